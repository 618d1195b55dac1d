/* SPDX-License-Identifier: GPL-2.0-or-later */
/* orphan.h - internal: the orphan list, as the kernel uses it while enabling verity */
#ifndef E2VERITY_ORPHAN_H
#define E2VERITY_ORPHAN_H

#include "private.h"

/*
 * Puts the inode at the head of the orphan list (and writes it), as
 * the kernel's ext4_begin_enable_verity() does: recovery from a crash trims
 * the blocks past EOF instead of growing i_size over them.
 */
errcode_t e2v_orphan_add(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in);
/* Takes it off the list; the caller writes the inode after this. */
errcode_t e2v_orphan_del(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in);

#endif /* E2VERITY_ORPHAN_H */
