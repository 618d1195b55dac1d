/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extent_renew.h - internal: give an inode's extent tree fresh node blocks before it changes */
#ifndef E2VERITY_EXTENT_RENEW_H
#define E2VERITY_EXTENT_RENEW_H

#include "private.h"

/* Rebuilds the extent tree of @ino in newly allocated nodes; writes @in. */
errcode_t e2v_extent_tree_renew(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in);

#endif /* E2VERITY_EXTENT_RENEW_H */
