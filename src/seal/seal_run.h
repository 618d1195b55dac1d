/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_run.h - what the parts of `e2verity seal` share: its options and state (types only) */
#ifndef CLI_SEAL_RUN_H
#define CLI_SEAL_RUN_H

#include "cli/cli.h"
#include "cli/progress.h"
#include "cmd/select.h"
#include "cmd/signer.h"
#include "output/manifest.h"
#include "output/outfile.h"

/* a signature made elsewhere, for one selected file */
struct cli_detached {
	uint8_t *sig;
	size_t size;
	int verified; /* @digest is what the signature was verified against */
	unsigned int alg;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
};

/* a security.ima made elsewhere, for one selected file: a whole value, or a bare signature */
struct cli_ima_detached {
	uint8_t *bytes; /* as read; made into a value by cli_ima_detached_verify() */
	size_t size;
	uint8_t *value; /* what is written */
	size_t len;
	int verified; /* @digest is what the value was verified against */
	unsigned int alg;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
};

/*
 * What a run keeps of each file's pre-flight plan, for every file at once:
 * the rest (a sealed file's descriptor and digest) is read again when needed
 */
struct cli_seal_rec {
	uint64_t data_size;
	uint8_t action;	       /* enum e2verity_seal_action */
	uint8_t ima;	       /* enum e2verity_ima_action */
	uint8_t signed_before; /* E2VERITY_SEAL_RESIGN: the file had a signature */
};

/* how many files the pre-flight refused, and why: the first few are named */
struct cli_seal_refusals {
	size_t n, named;
	/* the reasons met, each with its count, in the order first met */
	struct {
		errcode_t err;
		size_t n;
	} why[8];
	size_t nwhy;
	size_t other; /* refused for a reason past the eighth */
};

struct cli_seal_run {
	struct cli_tree_opts tree;
	struct e2verity_seal_opts opts;
	struct cli_write_args w; /* IMAGE, the selection, -n -q -v -z --force: as unseal's */
	struct cli_signer_opts so;
	/* detached signatures: a directory of PATH.sig files, or one file for one PATH */
	const char *sigdir, *sigfile, *cafile;
	struct cli_detached *detached;
	size_t ndetached;
	const char *manifest;	 /* where each file's digest line goes, or NULL */
	struct cli_outfile mout; /* opened before anything is written */
	int for_builtin_sig;
	enum cli_manifest_format mformat;
	struct cli_manifest mf; /* one entry per file, until the run succeeds */
	struct e2verity_signer *signer;
	/* --key's certificate: a signature a sealed file has that it verifies is kept */
	struct e2verity_verifier *key_verifier;
	struct e2verity_verifier *verifier; /* --cert/--ca for detached signatures */
	struct cli_kernel kernel;	    /* --min-kernel */
	/* security.ima: a key here (--ima-key), or values made elsewhere (--ima-signatures-from) */
	struct cli_signer_opts ima_so;
	const char *ima_sigsrc; /* a directory of PATH.ima files, or evmctl's output */
	int ima_only, for_ima_sig;
	struct e2verity_ima_signer *ima_signer;
	struct e2verity_ima_verifier *ima_verifier; /* --ima-cert, for values made elsewhere */
	struct cli_ima_detached *ima_detached;
	size_t nima_detached;
	int progress;
	/* progress display */
	struct cli_progress bar;
	size_t index, total; /* the file being sealed: its index in the selection */
	const char *current;
	/* the writing phase's selection, plans and block size, for the library's callbacks */
	const struct cli_selection *sel;
	const struct cli_seal_rec *plans;
	unsigned int blocksize;
	size_t skipped;	 /* files reported as sealed already, with these parameters */
	size_t ima_kept; /* files sealed already whose security.ima is kept */
	/* files committed: sealed or resealed; sealed already and signed, re-signed, unsigned */
	size_t sealed, signed_added, signed_replaced, signed_removed, ima_written;
	struct cli_seal_refusals refused;
};

#endif /* CLI_SEAL_RUN_H */
