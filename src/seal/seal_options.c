// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_options.c - `e2verity seal`'s command line: options, and the combinations it refuses */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "seal/seal_options.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cmd/select.h"
#include "cmd/signer.h"
#include "image/same_file.h"
#include "output/manifest.h"
#include "output/outfile.h"
#include "seal/seal_ima.h"
#include "seal/seal_run.h"

enum {
	OPT_IMMUTABLE = OPT_FIRST_PRIVATE,
	OPT_MANIFEST,
	OPT_JSON,
	OPT_SIGNATURES_FROM,
	OPT_SIGNATURE,
	OPT_CA,
	OPT_MIN_KERNEL,
	OPT_IMA_KEY,
	OPT_IMA_CERT,
	OPT_IMA_KEY_PASS,
	OPT_IMA_ONLY,
	OPT_IMA_SIGNATURES_FROM,
	OPT_FOR_IMA_SIG,
};

/* The IMA options: what each needs, and what they exclude */
static int cli_seal_parse_ima(const struct cli_command *cmd, struct cli_seal_run *c)
{
	const int signing = c->ima_so.keyfile || c->ima_sigsrc;

	if (c->ima_so.keyfile && c->ima_sigsrc)
		return cli_usage_error(cmd, "--ima-key signs here; --ima-signatures-from brings "
					    "security.ima values made elsewhere");
	if (c->ima_so.key_pass && !c->ima_so.keyfile)
		return cli_usage_error(cmd, "--ima-key-pass needs --ima-key");
	if (c->ima_so.certfile && !signing)
		return cli_usage_error(cmd, "--ima-cert needs --ima-key or --ima-signatures-from");
	if (c->for_ima_sig && !c->manifest)
		return cli_usage_error(cmd, "--for-ima-sig needs --manifest");
	if (c->for_ima_sig && c->for_builtin_sig)
		return cli_usage_error(cmd, "--for-builtin-sig or --for-ima-sig, not both");
	/* a dry run lists what to sign for --ima-only without a key */
	if (c->ima_only && !signing && !(c->w.dry_run && c->for_ima_sig))
		return cli_usage_error(cmd, "--ima-only needs --ima-key or --ima-signatures-from "
					    "(or -n --manifest --for-ima-sig)");
	if (c->ima_only &&
	    (c->so.keyfile || c->sigdir || c->sigfile || c->so.certfile || c->cafile ||
	     c->for_builtin_sig || (c->opts.flags & E2VERITY_SEAL_IMMUTABLE)))
		return cli_usage_error(cmd,
				       "--ima-only writes security.ima alone: --key, --cert, "
				       "--ca, --signatures-from, --signature, --for-builtin-sig "
				       "and --immutable belong to sealing");
	if (c->ima_only &&
	    (c->tree.params.hash_alg || c->tree.params.block_size || c->tree.params.salt))
		return cli_usage_error(cmd,
				       "--ima-only signs the digest each file was sealed with: "
				       "the tree options have no use");
	return 0;
}

/*
 * Nothing the run writes (the undo file, the manifest) may be the image, a
 * file it reads or each other, and nothing it reads while it writes the image
 * may be the image: said before a key is loaded or a file made.
 */
static int cli_seal_names_check(const struct cli_command *cmd, const struct cli_seal_run *c)
{
	struct cli_names names = { 0 };

	cli_write_args_names(&c->w, &names);
	cli_names_add(&names, c->sigdir, "the signatures (--signatures-from)", 0);
	cli_names_add(&names, c->sigfile, "the signature (--signature)", 0);
	cli_names_add(&names, c->ima_sigsrc, "the security.ima values (--ima-signatures-from)", 0);
	cli_names_add(&names, c->so.keyfile, "the key (--key)", 0);
	cli_names_add(&names, c->so.certfile, "the certificate (--cert)", 0);
	cli_names_add(&names, c->cafile, "the CA certificates (--ca)", 0);
	cli_names_add(&names, c->ima_so.keyfile, "the IMA key (--ima-key)", 0);
	cli_names_add(&names, c->ima_so.certfile, "the IMA certificate (--ima-cert)", 0);
	cli_names_add(&names, c->manifest, "the manifest (--manifest)", CLI_NAMED_WRITTEN);
	return cli_names_check(cmd, &names);
}

int cli_seal_parse(const struct cli_command *cmd, int argc, char *argv[], struct cli_seal_run *c)
{
	static const struct option longopts[] = {
		CLI_TREE_LONG_OPTIONS,
		CLI_SELECT_LONG_OPTIONS,
		{ "immutable", no_argument, NULL, OPT_IMMUTABLE },
		CLI_WRITE_LONG_OPTIONS,
		{ "threads", required_argument, NULL, 'j' },
		{ "progress", no_argument, NULL, 'p' },
		CLI_SIGNER_LONG_OPTIONS,
		{ "manifest", required_argument, NULL, OPT_MANIFEST },
		CLI_IMAGE_LONG_OPTIONS,
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "for-builtin-sig", no_argument, NULL, OPT_FOR_BUILTIN_SIG },
		{ "signatures-from", required_argument, NULL, OPT_SIGNATURES_FROM },
		{ "signature", required_argument, NULL, OPT_SIGNATURE },
		{ "ca", required_argument, NULL, OPT_CA },
		{ "min-kernel", required_argument, NULL, OPT_MIN_KERNEL },
		{ "ima-key", required_argument, NULL, OPT_IMA_KEY },
		{ "ima-cert", required_argument, NULL, OPT_IMA_CERT },
		{ "ima-key-pass", required_argument, NULL, OPT_IMA_KEY_PASS },
		{ "ima-only", no_argument, NULL, OPT_IMA_ONLY },
		{ "ima-signatures-from", required_argument, NULL, OPT_IMA_SIGNATURES_FROM },
		{ "for-ima-sig", no_argument, NULL, OPT_FOR_IMA_SIG },
		{ NULL, 0, NULL, 0 },
	};
	static const int repeatable[] = { CLI_SELECT_REPEATABLE, 0 };
	struct cli_getopt g;
	int opt, r;

	c->tree.params.threads.count = cli_default_threads();
	c->so.embed = -1;
	cli_getopt_init(&g, cmd, argc, argv, CLI_WRITE_SHORTOPTS "j:p", longopts);
	g.repeatable = repeatable;
	while ((opt = cli_getopt(&g)) != -1) {
		r = cli_parse_tree_option(opt, optarg, &c->tree);
		if (r < 0)
			return cli_usage_error(cmd, NULL);
		if (r > 0) {
			if (opt == OPT_OUT_MERKLE_TREE || opt == OPT_OUT_DESCRIPTOR)
				return cli_usage_error(cmd, "--out-merkle-tree and "
							    "--out-descriptor belong to digest");
			continue;
		}
		if (cli_parse_signer_option(opt, optarg, &c->so))
			continue;
		r = cli_parse_write_option(opt, optarg, &c->w);
		if (r < 0)
			return cli_usage_error(cmd, "out of memory");
		if (r > 0)
			continue;
		switch (opt) {
		case OPT_IMMUTABLE:
			c->opts.flags |= E2VERITY_SEAL_IMMUTABLE;
			break;
		case 'j':
			if (cli_parse_threads(optarg, &c->tree.params.threads.count))
				return cli_usage_error(cmd, "invalid thread count '%s' (1 to %d)",
						       optarg, CLI_THREADS_MAX);
			break;
		case 'p':
			c->progress = 1;
			break;
		case OPT_MANIFEST:
			c->manifest = optarg;
			break;
		case OPT_COMPACT:
			c->mformat = CLI_MANIFEST_COMPACT;
			break;
		case OPT_JSON:
			c->mformat = CLI_MANIFEST_JSON;
			break;
		case OPT_FOR_BUILTIN_SIG:
			c->for_builtin_sig = 1;
			break;
		case OPT_SIGNATURES_FROM:
			c->sigdir = optarg;
			break;
		case OPT_SIGNATURE:
			c->sigfile = optarg;
			break;
		case OPT_CA:
			c->cafile = optarg;
			break;
		case OPT_MIN_KERNEL:
			if (cli_parse_min_kernel(optarg, &c->kernel) ||
			    c->kernel.version < E2VERITY_KERNEL_VERSION(5, 4))
				return cli_usage_error(cmd,
						       "invalid kernel version '%s' (MAJOR.MINOR "
						       "from 5.4, when ext4 gained fs-verity, then "
						       ":16k or :64k for larger pages)",
						       optarg);
			break;
		case OPT_IMA_KEY:
			c->ima_so.keyfile = optarg;
			break;
		case OPT_IMA_CERT:
			c->ima_so.certfile = optarg;
			break;
		case OPT_IMA_KEY_PASS:
			c->ima_so.key_pass = optarg;
			break;
		case OPT_IMA_ONLY:
			c->ima_only = 1;
			break;
		case OPT_IMA_SIGNATURES_FROM:
			c->ima_sigsrc = optarg;
			break;
		case OPT_FOR_IMA_SIG:
			c->for_ima_sig = 1;
			break;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	r = cli_write_args_finish(cmd, argc, argv, &c->w);
	if (r)
		return r;
	if (c->w.force)
		c->opts.flags |= E2VERITY_SEAL_FORCE;
	if (c->ima_only)
		c->opts.flags |= E2VERITY_SEAL_IMA_ONLY;
	/* the manifest owns standard output then */
	if (c->manifest && strcmp(c->manifest, "-") == 0)
		c->w.quiet = 1;
	if (c->for_builtin_sig && !c->manifest)
		return cli_usage_error(cmd, "--for-builtin-sig needs --manifest");
	if (c->mformat != CLI_MANIFEST_TEXT && !c->manifest)
		return cli_usage_error(cmd, "--compact and --json need --manifest");
	if ((c->so.key_pass || c->so.embed >= 0) && !c->so.keyfile)
		return cli_usage_error(cmd, "--key-pass and --[no-]embed-cert need --key");
	if (c->sigdir && c->sigfile)
		return cli_usage_error(cmd, "--signatures-from or --signature, not both");
	if ((c->sigdir || c->sigfile) && c->so.keyfile)
		return cli_usage_error(cmd, "--key signs here; --signatures-from and --signature "
					    "bring signatures made elsewhere");
	if (c->sigfile &&
	    (c->w.sel.npaths != 1 || c->w.sel.recursive || c->w.sel.all || c->w.sel.nfiles_from))
		return cli_usage_error(cmd, "--signature is for exactly one PATH");
	if (c->so.certfile && !c->so.keyfile && !c->sigdir && !c->sigfile)
		return cli_usage_error(cmd, "--cert needs --key, --signatures-from or --signature");
	if (c->cafile && !c->sigdir && !c->sigfile)
		return cli_usage_error(cmd, "--ca needs --signatures-from or --signature");
	r = cli_seal_parse_ima(cmd, c);
	if (r)
		return r;
	if (e2verity_params_validate(&c->tree.params))
		return cli_usage_error(cmd, "invalid tree parameters");
	r = cli_seal_names_check(cmd, c);
	if (r)
		return r;
	c->opts.params = c->tree.params;
	/* -q quiets what is printed; progress, asked for, still shows on a terminal */
	cli_progress_init(&c->bar, c->progress, -1, c->w.image);
	return CLI_EXIT_OK;
}

void cli_seal_run_free(struct cli_seal_run *c)
{
	cli_ima_run_free(c);
	cli_manifest_free(&c->mf);
	cli_outfile_abort(&c->mout);
	for (size_t i = 0; i < c->ndetached; i++)
		free(c->detached[i].sig);
	free(c->detached);
	c->detached = NULL;
	c->ndetached = 0;
	cli_write_args_free(&c->w);
	e2verity_signer_free(c->signer);
	c->signer = NULL;
	e2verity_verifier_free(c->key_verifier);
	c->key_verifier = NULL;
	e2verity_verifier_free(c->verifier);
	c->verifier = NULL;
}
