/* SPDX-License-Identifier: GPL-2.0-or-later */
/* punch.h - internal: release the blocks of a file past a point */
#ifndef E2VERITY_PUNCH_H
#define E2VERITY_PUNCH_H

#include "private.h"

/* ext2fs_punch() from @first to the end, the filesystem's last block included */
errcode_t e2v_punch_past(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode, blk64_t first);

#endif /* E2VERITY_PUNCH_H */
