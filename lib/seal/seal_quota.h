/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_quota.h - internal: quota usage of the blocks sealing adds or frees */
#ifndef E2VERITY_SEAL_QUOTA_H
#define E2VERITY_SEAL_QUOTA_H

#include "private.h"

/*
 * Adds @delta bytes to the usage of the inode's user, group and project in
 * the quota files, when the filesystem has the quota feature.
 */
errcode_t e2v_quota_charge_inode(ext2_filsys fs, const struct ext2_inode_large *inode,
				 int64_t delta);

#endif /* E2VERITY_SEAL_QUOTA_H */
