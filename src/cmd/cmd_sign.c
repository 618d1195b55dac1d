// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_sign.c - `e2verity sign`: signatures of a host file or of a manifest, as `fsverity sign` */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd_sign.h"
#include "cli/cli.h"
#include "cmd/host_digest.h"
#include "cmd/sign_batch.h"
#include "cmd/signer.h"
#include "image/same_file.h"
#include "output/names.h"
#include "output/outfile.h"

enum {
	OPT_DIGESTS_FROM = OPT_FIRST_PRIVATE,
};

/*
 * --digests-from: the digests are the manifest's, so the options that make
 * one (tree options) have nothing to act on; refused rather than ignored.
 */
static int cmd_sign_batch(const struct cli_command *cmd, int argc, char *argv[],
			  const char *manifest, const struct cli_signer_opts *so, int tree_opts,
			  unsigned int threads)
{
	struct cli_names names = { 0 };
	int r;

	if (tree_opts)
		return cli_usage_error(cmd, "--digests-from signs the manifest's digests: the tree "
					    "options (--hash-alg, --block-size, --salt, --out-*) "
					    "belong to the run that wrote it");
	if (argc - optind > 1)
		return cli_usage_error(cmd, "too many operands: '%s' after SIGDIR",
				       cli_name(argv[optind + 1]));
	if (argc - optind != 1)
		return cli_usage_error(cmd, "SIGDIR is needed with --digests-from");
	if (!so->keyfile)
		return cli_usage_error(cmd, "no --key given");
	if (strcmp(manifest, "-") == 0 && so->key_pass && strcmp(so->key_pass, "stdin") == 0)
		return cli_usage_error(cmd, "--digests-from=- and --key-pass=stdin both read "
					    "standard input");
	cli_names_add(&names, manifest, "the digests (--digests-from)", 0);
	cli_names_add(&names, so->keyfile, "the key (--key)", 0);
	cli_names_add(&names, so->certfile, "the certificate (--cert)", 0);
	r = cli_names_check(cmd, &names);
	if (r)
		return r;
	return cli_sign_batch(manifest, argv[optind], so, threads);
}

int cmd_sign(const struct cli_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		CLI_TREE_LONG_OPTIONS,
		CLI_SIGNER_LONG_OPTIONS,
		{ "digests-from", required_argument, NULL, OPT_DIGESTS_FROM },
		{ "threads", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_signer_opts so = { .embed = -1 };
	const char *file, *sigfile, *doing, *manifest = NULL;
	unsigned int threads = cli_default_threads();
	int tree_opts = 0;
	char dg[CLI_DIGEST_STRING_MAX];
	struct e2verity_signer *signer = NULL;
	struct cli_tree_opts t = { 0 };
	struct e2verity_result res;
	struct cli_outfile out = { .fd = -1 };
	struct cli_names names = { 0 };
	int ret = CLI_EXIT_FAILURE, opt, r;
	uint8_t *sig = NULL;
	size_t sig_size;
	struct cli_getopt g;
	errcode_t err;

	/* FILE is hashed as `fsverity sign` does: any block size `fsverity digest` takes */
	t.params.flags = E2VERITY_PARAMS_HOST_DIGEST;
	cli_getopt_init(&g, cmd, argc, argv, "j:", longopts);
	while ((opt = cli_getopt(&g)) != -1) {
		r = cli_parse_tree_option(opt, optarg, &t);
		if (r < 0)
			return cli_usage_error(cmd, NULL);
		tree_opts |= r > 0;
		if (r > 0 || cli_parse_signer_option(opt, optarg, &so))
			continue;
		switch (opt) {
		case OPT_DIGESTS_FROM:
			manifest = optarg;
			break;
		case 'j':
			if (cli_parse_threads(optarg, &threads))
				return cli_usage_error(cmd, "invalid thread count '%s' (1 to %d)",
						       optarg, CLI_THREADS_MAX);
			break;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	if (manifest)
		return cmd_sign_batch(cmd, argc, argv, manifest, &so, tree_opts, threads);
	if (argc - optind > 2)
		return cli_usage_error(cmd, "too many operands: '%s' after FILE and OUT_SIGFILE",
				       cli_name(argv[optind + 2]));
	if (argc - optind != 2)
		return cli_usage_error(cmd, "FILE and OUT_SIGFILE are needed");
	if (!so.keyfile)
		return cli_usage_error(cmd, "no --key given");
	file = argv[optind];
	sigfile = argv[optind + 1];
	t.params.threads.count = threads;
	r = cli_tree_validate(cmd, &t);
	if (r)
		return r;
	/* the signature written over FILE or the key would lose it */
	cli_names_add(&names, file, "the file signed", 0);
	cli_names_add(&names, so.keyfile, "the key (--key)", 0);
	cli_names_add(&names, so.certfile, "the certificate (--cert)", 0);
	cli_names_add(&names, sigfile, "the signature file", CLI_NAMED_WRITTEN);
	r = cli_names_check(cmd, &names);
	if (r)
		return r;

	/* a bad key must not cost a whole file's hashing */
	err = cli_load_signer(&so, &signer);
	if (err)
		goto out;
	/* nor a signature file that cannot be written */
	err = cli_outfile_open(&out, sigfile, 0);
	if (err) {
		cli_error(err, "while writing the signature file '%s'%s", cli_name(sigfile),
			  out.why);
		goto out;
	}
	err = cli_digest_host_file(file, &t, &res, &doing);
	if (err) {
		cli_error(err, "while %s '%s'", doing, cli_name(file));
		goto out;
	}
	err = e2verity_sign_digest(signer, t.params.hash_alg, res.digest, &sig, &sig_size);
	if (err) {
		cli_error(err, "while signing '%s'", cli_name(file));
		goto out;
	}
	err = cli_outfile_write(&out, sig, sig_size);
	if (!err)
		err = cli_outfile_commit(&out);
	if (err) {
		cli_error(err, "while writing the signature file '%s'", cli_name(sigfile));
		goto out;
	}
	cli_format_digest(t.params.hash_alg, res.digest, dg);
	printf("Signed file '%s' (%s)\n", cli_name(file), dg);
	if (cli_flush_stdout())
		goto out;
	ret = CLI_EXIT_OK;
out:
	cli_outfile_abort(&out);
	free(sig);
	e2verity_signer_free(signer);
	return ret;
}
