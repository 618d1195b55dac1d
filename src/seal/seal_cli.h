/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_cli.h - what the parts of `e2verity seal` share: its options and state, and each part's
 * entry */
#ifndef E2VERITY_SEAL_CLI_H
#define E2VERITY_SEAL_CLI_H

#include "output/manifest.h"
#include "cmd/select.h"

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
	uint8_t action; /* enum e2verity_seal_action */
	uint8_t ima;	/* enum e2verity_ima_action */
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
	const char *manifest; /* where each file's digest line goes, or NULL */
	struct cli_outfile mout; /* opened before anything is written */
	int for_builtin_sig;
	enum cli_manifest_format mformat;
	struct cli_manifest mf; /* one entry per file, until the run succeeds */
	struct e2verity_signer *signer;
	struct e2verity_verifier *verifier; /* --cert/--ca for detached signatures */
	struct cli_kernel kernel; /* --min-kernel */
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
	size_t skipped; /* files reported as sealed already, with these parameters */
	size_t ima_kept; /* files sealed already whose security.ima is kept */
};

/* seal_options.c: the command line, checked whole; CLI_EXIT_OK or the usage status */
int cli_seal_parse(const struct cli_command *cmd, int argc, char *argv[], struct cli_seal_run *c);
void cli_seal_run_free(struct cli_seal_run *c);

/* cmd_seal.c: one set of hashing threads (-j) for a pass over the files; reported */
int cli_seal_workers_start(struct cli_seal_run *c);
void cli_seal_workers_stop(struct cli_seal_run *c);

/*
 * A file the pre-flight found sealed already: its plan again, for the stored
 * descriptor and digest its record leaves out; @fs the pre-flight's handle,
 * @c->opts.owners still its map
 */
errcode_t cli_seal_stored(const struct cli_seal_run *c, ext2_filsys fs, ext2_ino_t ino,
			  struct e2verity_seal_plan *plan);

/* seal_sign.c: the signing key, or signatures made elsewhere */
errcode_t cli_seal_signer(struct cli_seal_run *c, const char **doing);
int cli_detached_open(struct cli_seal_run *c);
int cli_detached_load(struct cli_seal_run *c, const struct cli_selection *sel);
int cli_detached_verify(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			const struct cli_seal_rec *plans);

/* seal_ima.c: security.ima, signed here or made elsewhere */
int cli_seal_ima_signer(struct cli_seal_run *c);
int cli_ima_detached_open(struct cli_seal_run *c);
int cli_ima_detached_load(struct cli_seal_run *c, const struct cli_selection *sel);
int cli_ima_detached_verify(struct cli_seal_run *c, ext2_filsys fs,
			    const struct cli_selection *sel, const struct cli_seal_rec *plans);
/* --ima-only with -a or -r: the files found that are not sealed are left out */
void cli_ima_only_filter(struct cli_seal_run *c, ext2_filsys fs, struct cli_selection *sel);
void cli_ima_run_free(struct cli_seal_run *c);

/* seal_write.c: the writing phase, in journal transactions; the pre-flight has passed */
int cli_seal_write(struct cli_seal_run *c, const struct cli_selection *sel,
		   const struct cli_seal_rec *plans);

/* seal_output.c: what a run prints, and the manifest */
/* One committed file: its digest line, its manifest entry, a note for a skip or -v. */
errcode_t cli_seal_report(struct cli_seal_run *c, const struct cli_target *t,
			  const struct e2verity_seal_result *res, unsigned int bs);
int cli_seal_report_skips(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			  const struct cli_seal_rec *plans);
/* How many files were sealed already (one line each with -v, said as they were met). */
void cli_seal_note_skips(const struct cli_seal_run *c);
/*
 * A dry run's line for file @i: "ACTION PATH (N blocks at most@more)", then
 * its other names.
 */
void cli_seal_list(const struct cli_selection *sel, size_t i, const char *action,
		   uint64_t blocks, const char *more);
int cli_seal_digests(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
		     const struct cli_seal_rec *plans);
/* Opens the manifest's file before the image is written: a bad path costs nothing. */
int cli_seal_manifest_open(struct cli_seal_run *c);
/* Writes the manifest; @sealed: the image was written, which a failure here does not undo. */
int cli_seal_manifest_write(struct cli_seal_run *c, int sealed);

#endif /* E2VERITY_SEAL_CLI_H */
