/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - internal: the inode being checked, and how its findings reach the caller */
#ifndef E2VERITY_REPORT_H
#define E2VERITY_REPORT_H

#include "ext4/ahead.h"

struct e2v_check {
	ext2_filsys fs;
	const struct e2verity_check_opts *opts;
	struct e2verity_check_file *file;
	struct e2verity_check_stats *stats;
	/* the image-wide progress: bytes hashed before this file, and in all */
	uint64_t progress_base;
	uint64_t progress_total;
	/* the batch that hashes ahead (its descriptor of the image), or NULL */
	struct e2verity_batch *batch;
	/* the Merkle tree made ahead by another thread, or NULL */
	struct e2v_ahead_job *ahead; /* its metadata region is taken: see e2v_check_meta_from() */
	/* who names which block, for every file; or NULL */
	const struct e2verity_owners *owners;
	/* the path by which the file was named, whose lookup is judged; or NULL */
	const char *path;
};

/*
 * Fills in the table row and the inode of @f, counts it against the file and
 * hands it to the caller's callback.
 */
errcode_t e2v_report(struct e2v_check *c, unsigned int code, struct e2verity_finding *f);

/* a finding with only a code and up to three numbers */
errcode_t e2v_report_values(struct e2v_check *c, unsigned int code, uint64_t value,
			    uint64_t expected, uint64_t offset);

#endif /* E2VERITY_REPORT_H */
