/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_cli.h - what the parts of `e2verity check` share: the run, its files and their findings */
#ifndef E2VERITY_CHECK_CLI_H
#define E2VERITY_CHECK_CLI_H

#include "cmd.h"
#include "manifest.h"

/* fsck(8) exit status bits */
#define FSCK_OK 0
#define FSCK_NONDESTRUCT 1
#define FSCK_UNCORRECTED 4
#define FSCK_ERROR 8
#define FSCK_CANCELED 32

/* what check may change: e2fsck's -n, -p and -y */
enum e2v_check_mode {
	E2V_CHECK_READ = 0, /* -n, the default */
	E2V_CHECK_PREEN,    /* -p: a damaged tree rewritten from data that still gives the root */
	E2V_CHECK_YES,	    /* -y: also a damaged file resealed to a trusted digest */
};

/* what an unlisted sealed file is (--manifest-extra) */
enum e2v_extra_policy {
	E2V_EXTRA_ERROR = 0,
	E2V_EXTRA_WARN,
	E2V_EXTRA_IGNORE,
};

/* One finding, of the file record @rec; @path when it concerns another name of the file */
struct e2v_check_finding {
	struct e2verity_finding f;
	const struct e2verity_problem *problem; /* its row, or a copy with the policy's severity */
	size_t rec;
	char *path;
	int after; /* found by the check that follows a repair */
};

/* what a repair of one file came to */
enum e2v_repair_state {
	E2V_REPAIR_NONE = 0, /* not tried */
	E2V_REPAIR_DONE,     /* repaired, and checked again */
	E2V_REPAIR_LEFT,     /* tried, and refused: left as it is (repair_err says why) */
};

/* One file (one inode; or a path of the manifest that is not in the image) */
struct e2v_checked {
	struct e2verity_check_file file; /* the check's result; ino 0: not in the image */
	int checked;			 /* the check looked at it (it is sealed) */
	char *path;
	const struct e2v_listed *listed; /* its entry in the manifest, or NULL */
	unsigned int errors, warnings;	 /* of all its findings before any repair */
	unsigned int errors_after;	 /* after a repair: what the check found then */
	enum e2v_repair_state repair;
	int resealed; /* the repair was a reseal (-y), not a tree rewrite (-p) */
	errcode_t repair_err;
	const char *repair_why; /* or, for a file no repair was tried on, why not */
	struct e2verity_repair_result rres;
	size_t first, count; /* its findings: c->order[first .. first + count) */
};

struct e2v_check_cli {
	const char *image;
	int json, verbose, quiet, recursive;
	struct e2v_kernel kernel;   /* --min-kernel, or the page size the report assumes */
	unsigned int fs_block_size; /* of the image, for each file's oldest kernel */
	enum e2v_check_mode mode;
	const char *undo_file; /* -z */
	struct e2v_progress progress;
	struct e2verity_check_opts opts;
	struct e2verity_verifier *verifier; /* --cert and --ca, loaded before the image is read */
	struct e2verity_ima_verifier *ima_verifier; /* --ima-cert, loaded then too */
	/* --manifest, read before the image is opened */
	const char *manifest;
	struct e2v_listing listing;
	enum e2v_extra_policy extra;
	struct e2verity_problem extra_warn; /* MANIFEST_EXTRA's row as a warning */
	/* --require-sealed[=PATH]... and --exclude=GLOB... */
	int require_sealed;
	const char **required;
	size_t nrequired;
	const char **excludes;
	size_t nexcludes;
	unsigned int not_sealed; /* files --require-sealed found unsealed */
	/* the files and their findings */
	struct e2v_check_finding *findings;
	size_t nr_findings, cap_findings;
	size_t *order; /* findings grouped by file, for printing */
	struct e2v_checked *files;
	size_t nr_files, cap_files;
	/*
	 * Files that passed with no finding and that no output lists (no -v,
	 * --json or --manifest) are counted, not kept: a record is 528 bytes.
	 * What the summary takes from them: the oldest kernel that reads them.
	 */
	size_t nr_clean;
	unsigned int clean_kernel; /* the oldest kernel that reads them all */
	int clean_kernel_none;	   /* one of them no kernel with this page size reads */
	size_t pending_findings; /* findings of the file being checked */
	size_t recheck;		 /* the file a repair's check reports to, or SIZE_MAX */
	const char *next_path;	 /* the path of the file being checked, when given */
	char **paths;		 /* the PATHs given, or none: the whole image */
	int npaths;
	unsigned int missing; /* PATHs not checked: not found, a directory without -r (reported) */
	int needs_recovery;   /* the journal holds what was not replayed */
	unsigned int repaired, left; /* files repaired; files with errors left */
	uint64_t manifest_findings;
	char errbuf[512]; /* what stopped the run, for --json */
};

/* ---- cmd_check.c ---------------------------------------------------------------------------- */

/* A new file record (zeroed but for @ino and a copy of @path); NULL without memory */
struct e2v_checked *e2v_check_add_file(struct e2v_check_cli *c, ext2_ino_t ino, const char *path);
/* The record of inode @ino, or NULL */
struct e2v_checked *e2v_check_file_of(struct e2v_check_cli *c, ext2_ino_t ino);
/* Adds a finding of @code to @r (about @path when it is not @r's own name); -1 without memory */
int e2v_check_add_finding(struct e2v_check_cli *c, struct e2v_checked *r, unsigned int code,
			  const struct e2verity_finding *f, const char *path);

/* ---- check_manifest.c ----------------------------------------------------------------------- */

/*
 * The image against the manifest: every listed path must be a sealed file
 * with the listed digest (and parameters), every name of a sealed file must
 * be listed.  Each deviation is a finding of its file.
 */
errcode_t e2v_check_manifest(struct e2v_check_cli *c, ext2_filsys fs);
/* --require-sealed: every regular file under the paths (but the excluded) must be sealed */
errcode_t e2v_check_required(struct e2v_check_cli *c, ext2_filsys fs);
/* After a repair of @r: its digest against the manifest again (findings marked after) */
int e2v_check_manifest_again(struct e2v_check_cli *c, struct e2v_checked *r);

/* ---- check_repair.c ------------------------------------------------------------------------- */

/* Whether a file's findings ask for a repair that the mode may make */
int e2v_check_wants_repair(const struct e2v_check_cli *c, const struct e2v_checked *r);
/*
 * -p and -y: opens the image for writing (the undo file, the transaction) and
 * repairs the files that want it, each committed on its own, then checks each
 * again.  Returns the fsck status bits it adds; c->errbuf says what stopped it.
 */
int e2v_check_repair(struct e2v_check_cli *c);

/* ---- check_output.c ------------------------------------------------------------------------- */

/* Groups the findings by file (c->order, each file's first and count) */
int e2v_check_group(struct e2v_check_cli *c);
void e2v_check_print_text(struct e2v_check_cli *c, const struct e2verity_check_stats *st);
void e2v_check_print_json(struct e2v_check_cli *c, const struct e2verity_check_stats *st,
			  const char *error, int status);

#endif /* E2VERITY_CHECK_CLI_H */
