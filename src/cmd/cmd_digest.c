// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_digest.c - `e2verity digest`: fs-verity digests of host files, as `fsverity digest` */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cmd/cmd_digest.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "cmd/host_digest.h"
#include "image/same_file.h"
#include "output/manifest.h"
#include "output/names.h"

int cmd_digest(const struct cli_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		CLI_TREE_LONG_OPTIONS,
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "for-builtin-sig", no_argument, NULL, OPT_FOR_BUILTIN_SIG },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_tree_opts t = { 0 };
	struct cli_names names = { 0 };
	struct cli_getopt g;
	int compact = 0, for_builtin_sig = 0, opt, r;

	/* a host file's digest, as `fsverity digest`: its block sizes, not only the kernel's */
	t.params.flags = E2VERITY_PARAMS_HOST_DIGEST;
	cli_getopt_init(&g, cmd, argc, argv, "", longopts);
	while ((opt = cli_getopt(&g)) != -1) {
		r = cli_parse_tree_option(opt, optarg, &t);
		if (r < 0)
			return cli_usage_error(cmd, NULL);
		if (r > 0)
			continue;
		switch (opt) {
		case OPT_COMPACT:
			compact = 1;
			break;
		case OPT_FOR_BUILTIN_SIG:
			for_builtin_sig = 1;
			break;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "no FILE given");
	t.params.threads.count = cli_default_threads();
	r = cli_tree_validate(cmd, &t);
	if (r)
		return r;
	/* a tree or descriptor written over a FILE, or over each other, would lose it */
	for (int i = optind; i < argc; i++)
		cli_names_add(&names, argv[i], "the file hashed", 0);
	cli_names_add(&names, t.out_merkle_tree, "the Merkle tree file (--out-merkle-tree)",
		      CLI_NAMED_WRITTEN);
	cli_names_add(&names, t.out_descriptor, "the descriptor file (--out-descriptor)",
		      CLI_NAMED_WRITTEN);
	r = cli_names_check(cmd, &names);
	if (r)
		return r;

	for (int i = optind; i < argc; i++) {
		uint8_t formatted[E2VERITY_FORMATTED_DIGEST_MAX];
		char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];
		struct e2verity_result res;
		const char *doing;
		size_t len;
		errcode_t err;

		err = cli_digest_host_file(argv[i], &t, &res, &doing);
		if (err) {
			cli_error(err, "while %s '%s'", doing, cli_name(argv[i]));
			return CLI_EXIT_FAILURE;
		}
		if (!compact) {
			cli_digest_line(stdout, t.params.hash_alg, res.digest, argv[i],
					for_builtin_sig);
			continue;
		}
		if (for_builtin_sig) {
			e2verity_formatted_digest(t.params.hash_alg, res.digest, formatted, &len);
			cli_bin2hex(formatted, len, hex);
		} else {
			cli_bin2hex(res.digest, res.digest_size, hex);
		}
		printf("%s\n", hex);
	}
	if (cli_flush_stdout())
		return CLI_EXIT_FAILURE;
	return CLI_EXIT_OK;
}
