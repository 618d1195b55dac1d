/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_private.h - internal: what the parts of check share about the inode being checked */
#ifndef E2VERITY_CHECK_PRIVATE_H
#define E2VERITY_CHECK_PRIVATE_H

#include "ahead.h"

struct e2v_check {
	ext2_filsys fs;
	const struct e2verity_check_opts *opts;
	struct e2verity_check_file *file;
	struct e2verity_check_stats *stats;
	/* the image-wide progress: bytes hashed before this file, and in all */
	uint64_t progress_base;
	uint64_t progress_total;
	/* the Merkle tree made ahead by another thread, or NULL */
	const struct e2v_ahead_job *ahead;
};

/*
 * Fills in the table row and the inode of @f, counts it against the file and
 * hands it to the caller's callback.
 */
errcode_t e2v_report(struct e2v_check *c, unsigned int code, struct e2verity_finding *f);

/* a finding with only a code and up to three numbers */
errcode_t e2v_report_values(struct e2v_check *c, unsigned int code, uint64_t value,
			    uint64_t expected, uint64_t offset);

/*
 * Re-hashes the data and compares every stored Merkle tree block with the
 * hash its parent keeps for it, as the kernel does on reads.
 */
errcode_t e2v_check_tree(struct e2v_check *c, struct e2v_ext4_file *f,
			 const struct e2v_verity_meta *m);

/*
 * e2verity_check_inode() within the image-wide progress of e2verity_check_image(),
 * with the tree of @ino from @batch (or NULL) if it was made ahead
 */
errcode_t e2v_check_one(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_check_opts *opts,
			struct e2verity_check_stats *stats, uint64_t progress_base,
			uint64_t progress_total, struct e2verity_batch *batch);

#endif /* E2VERITY_CHECK_PRIVATE_H */
