/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_run.h - what the parts of `e2verity check` share: the run, its files and their findings
 * (types only) */
#ifndef CLI_CHECK_RUN_H
#define CLI_CHECK_RUN_H

#include "cli/cli.h"
#include "cli/progress.h"
#include "output/manifest_read.h"

/* what check may change: e2fsck's -n, -p and -y */
enum cli_check_mode {
	CLI_CHECK_READ = 0, /* -n, the default */
	CLI_CHECK_PREEN,    /* -p: a damaged tree rewritten from data that still gives the root */
	CLI_CHECK_YES,	    /* -y: also a damaged file resealed to a trusted digest */
};

/* what an unlisted sealed file is (--manifest-extra) */
enum cli_extra_policy {
	CLI_EXTRA_ERROR = 0,
	CLI_EXTRA_WARN,
	CLI_EXTRA_IGNORE,
};

/* One finding, of the file record @rec; @path when it concerns another name of the file */
struct cli_check_finding {
	struct e2verity_finding f;
	const struct e2verity_problem *problem; /* its row, or a copy with the policy's severity */
	size_t rec;
	char *path;
	int after; /* found by the check that follows a repair */
};

/* what a repair of one file came to */
enum cli_repair_state {
	CLI_REPAIR_NONE = 0, /* not tried */
	CLI_REPAIR_DONE,     /* repaired, and checked again */
	CLI_REPAIR_LEFT,     /* tried, and refused: left as it is (repair_err says why) */
};

/* One file (one inode; or a path of the manifest that is not in the image) */
struct cli_checked {
	struct e2verity_check_file file; /* the check's result; ino 0: not in the image */
	int checked;			 /* the check looked at it (it is sealed) */
	char *path;
	const struct cli_listed *listed; /* its entry in the manifest, or NULL */
	int said_not_sealed;		 /* NOT_SEALED is among its findings */
	int in_store_counted;		 /* counted once among the --digest-names findings */
	int unreachable;	       /* its path's lookup fails on damage (PATH_LOOKUP_FAILED) */
	unsigned int errors, warnings; /* of all its findings before any repair */
	unsigned int errors_after;     /* after a repair: what the check found then */
	enum cli_repair_state repair;
	int resealed; /* the repair was a reseal (-y), not a tree rewrite (-p) */
	errcode_t repair_err;
	const char *repair_why; /* or, for a file no repair was tried on, why not */
	struct e2verity_repair_result rres;
	size_t first, count; /* its findings: c->order[first .. first + count) */
};

struct cli_check_run {
	const char *image;
	int json, verbose, quiet, recursive;
	struct cli_kernel kernel;   /* --min-kernel, or the page size the report assumes */
	unsigned int fs_block_size; /* of the image, for each file's oldest kernel */
	enum cli_check_mode mode;
	const char *undo_file; /* -z */
	struct cli_progress progress;
	struct e2verity_check_opts opts;
	struct e2verity_verifier *verifier; /* --cert and --ca, loaded before the image is read */
	struct e2verity_ima_verifier *ima_verifier; /* --ima-cert, loaded then too */
	/* --manifest, read before the image is opened */
	const char *manifest;
	struct cli_listing listing;
	enum cli_extra_policy extra;
	struct e2verity_problem extra_warn; /* MANIFEST_EXTRA's row as a warning */
	/* --require-sealed[=PATH]... and --exclude=GLOB... */
	int require_sealed;
	const char **required;
	size_t nrequired;
	const char **excludes;
	size_t nexcludes;
	unsigned int not_sealed; /* files --require-sealed or --digest-names found unsealed */
	/* --digest-names=DIR: every regular file under DIR sealed and named by its digest */
	const char *digest_names;
	unsigned int named_files; /* regular files under it */
	uint64_t name_findings;	  /* of DIGEST_NAME_* and NOT_SEALED there */
	/* the files and their findings */
	struct cli_check_finding *findings;
	size_t nr_findings, cap_findings;
	size_t *order; /* findings grouped by file, for printing */
	struct cli_checked *files;
	size_t nr_files, cap_files;
	/*
	 * Files that passed with no finding and that no output lists (no -v,
	 * --json or --manifest) are counted, not kept: a record is 528 bytes.
	 * What the summary takes from them: the oldest kernel that reads them.
	 */
	size_t nr_clean;
	unsigned int clean_kernel; /* the oldest kernel that reads them all */
	int clean_kernel_none;	   /* one of them no kernel with this page size reads */
	size_t pending_findings;   /* findings of the file being checked */
	size_t recheck;		   /* the file a repair's check reports to, or SIZE_MAX */
	const char *next_path;	   /* the path of the file being checked, when given */
	char **paths;		   /* the PATHs given, or none: the whole image */
	int npaths;
	unsigned int missing; /* PATHs not checked: not found, a directory without -r (reported) */
	int needs_recovery;   /* the journal holds what was not replayed */
	unsigned int repaired, left; /* files repaired; files with errors left */
	uint64_t manifest_findings;
	char errbuf[512]; /* what stopped the run, for --json */
};

#endif /* CLI_CHECK_RUN_H */
