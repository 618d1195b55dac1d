// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_sign.c - `e2verity sign`: a built-in signature of a host file, as `fsverity sign` */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

int cmd_sign(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		E2V_TREE_LONG_OPTIONS,
		E2V_SIGNER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct e2v_signer_opts so = { .embed = -1 };
	const char *file, *sigfile, *doing;
	char dg[E2V_DIGEST_STRING_MAX];
	struct e2verity_signer *signer = NULL;
	struct e2v_tree_opts t = { 0 };
	struct e2verity_result res;
	struct e2v_outfile out = { .fd = -1 };
	int ret = E2V_EXIT_FAILURE, opt, r;
	uint8_t *sig = NULL;
	size_t sig_size;
	struct e2v_getopt g;
	errcode_t err;

	e2v_getopt_init(&g, cmd, argc, argv, "", longopts);
	while ((opt = e2v_getopt(&g)) != -1) {
		r = e2v_parse_tree_option(opt, optarg, &t);
		if (r < 0)
			return e2v_usage_error(cmd, NULL);
		if (r > 0 || e2v_parse_signer_option(opt, optarg, &so))
			continue;
		switch (opt) {
		default:
			return g.status ? g.status : e2v_usage_error(cmd, NULL);
		}
	}
	if (argc - optind > 2)
		return e2v_usage_error(cmd, "too many operands: '%s' after FILE and OUT_SIGFILE",
				       e2v_name(argv[optind + 2]));
	if (argc - optind != 2)
		return e2v_usage_error(cmd, "FILE and OUT_SIGFILE are needed");
	if (!so.keyfile)
		return e2v_usage_error(cmd, "no --key given");
	file = argv[optind];
	sigfile = argv[optind + 1];
	t.params.threads = e2v_default_threads();
	if (e2verity_params_validate(&t.params))
		return e2v_usage_error(cmd, "invalid tree parameters");

	/* a bad key must not cost a whole file's hashing */
	err = e2v_load_signer(&so, &signer);
	if (err)
		goto out;
	/* nor a signature file that cannot be written */
	err = e2v_outfile_open(&out, sigfile, 0);
	if (err) {
		e2v_error(err, "while writing the signature file '%s'%s", e2v_name(sigfile), out.why);
		goto out;
	}
	err = e2v_digest_host_file(file, &t, &res, &doing);
	if (err) {
		e2v_error(err, "while %s '%s'", doing, e2v_name(file));
		goto out;
	}
	err = e2verity_sign_digest(signer, t.params.hash_alg, res.digest, &sig, &sig_size);
	if (err) {
		e2v_error(err, "while signing '%s'", e2v_name(file));
		goto out;
	}
	err = e2v_outfile_write(&out, sig, sig_size);
	if (!err)
		err = e2v_outfile_commit(&out);
	if (err) {
		e2v_error(err, "while writing the signature file '%s'", e2v_name(sigfile));
		goto out;
	}
	e2v_format_digest(t.params.hash_alg, res.digest, dg);
	printf("Signed file '%s' (%s)\n", e2v_name(file), dg);
	if (e2v_flush_stdout())
		goto out;
	ret = E2V_EXIT_OK;
out:
	e2v_outfile_abort(&out);
	free(sig);
	e2verity_signer_free(signer);
	return ret;
}
