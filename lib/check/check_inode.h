/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_inode.h - internal: one inode's check, as the image-wide check runs it */
#ifndef E2VERITY_CHECK_INODE_H
#define E2VERITY_CHECK_INODE_H

#include "ext4/ahead.h"

/*
 * e2verity_check_inode() within the image-wide progress of e2verity_check_image(),
 * with the tree of @ino from @batch (or NULL) if it was made ahead
 */
errcode_t e2v_check_one(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_check_opts *opts,
			struct e2verity_check_stats *stats, uint64_t progress_base,
			uint64_t progress_total, struct e2verity_batch *batch);

#endif /* E2VERITY_CHECK_INODE_H */
