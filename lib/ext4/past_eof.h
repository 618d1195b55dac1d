/* SPDX-License-Identifier: GPL-2.0-or-later */
/* past_eof.h - internal: whether the blocks past a file's data, and its xattr block, are its own */
#ifndef E2VERITY_PAST_EOF_H
#define E2VERITY_PAST_EOF_H

#include "ext4_file.h"

/*
 * Whether the blocks of @f from logical block @first on are
 * provably the file's own (inside the filesystem, outside its metadata, in
 * use, used by no other inode), so that freeing them harms nothing else.
 * @owners is e2verity_owners_scan()'s, or NULL to scan every inode here.
 */
errcode_t e2v_check_past_eof(struct e2v_ext4_file *f, blk64_t first,
			     const struct e2verity_owners *owners);

/*
 * Whether blocks the block bitmap calls free are free indeed (named by no
 * inode at the scan, not filesystem metadata): then what libext2fs allocates
 * is the allocating file's alone.  Returns 0 or E2VERITY_ET_BITMAP_STALE.
 */
errcode_t e2v_owners_allocatable(const struct e2verity_owners *owners);

/* The system zone made with @owners (NULL for NULL), for e2v_ext4_file_open_in() */
const struct e2v_system_zone *e2v_owners_zone(const struct e2verity_owners *owners);

/*
 * Whether @ino may free its extended attribute block @block, or lower its
 * count: @refcount (read now) must be the number of inodes that name it.
 * Return: 0 or E2VERITY_ET_XATTR_REFCOUNT (logged to @fs's image with the
 * block and the inodes).
 */
errcode_t e2v_owners_xattr_check(ext2_filsys fs, const struct e2verity_owners *owners,
				 blk64_t block, ext2_ino_t ino, uint32_t refcount);
/* After @ino let go of @block (its attributes moved to a new block): the map follows */
void e2v_owners_xattr_left(const struct e2verity_owners *owners, blk64_t block, ext2_ino_t ino);

#endif /* E2VERITY_PAST_EOF_H */
