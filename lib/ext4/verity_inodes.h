/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verity_inodes.h - internal: the verity inodes of an image, in inode order */
#ifndef E2VERITY_VERITY_INODES_H
#define E2VERITY_VERITY_INODES_H

#include "private.h"

/**
 * e2v_list_verity() - every linked inode with the verity flag, in inode order
 * @fs: the filesystem
 * @unlinked: also the inodes with no links that are in use and not deleted
 *	(no dtime), which a directory may still name (check judges them)
 * @inos: set to a malloc'ed array (the caller frees it)
 * @sizes: when not NULL, set to a malloc'ed array of their i_size (for progress)
 * @count: set to the number of inodes
 *
 * Return: 0, or the error of the inode scan.
 */
errcode_t e2v_list_verity(ext2_filsys fs, int unlinked, ext2_ino_t **inos, uint64_t **sizes,
			  size_t *count);

#endif /* E2VERITY_VERITY_INODES_H */
