/* SPDX-License-Identifier: GPL-2.0-or-later */
/* block_validity.h - internal: the kernel's system zone, the blocks no file may name */
#ifndef E2VERITY_BLOCK_VALIDITY_H
#define E2VERITY_BLOCK_VALIDITY_H

#include "private.h"

/* A run of physical blocks an extent tree names, and when the kernel would look at it */
struct e2v_blockref {
	blk64_t pblk;
	blk64_t len;
	uint64_t seq;  /* the order of the kernel's checks: the first that fails is reported */
	uint32_t lblk; /* logical block of the entry that names the run */
};

/*
 * Whether blocks [@start, @start + @count) can be named by a file at all:
 * after the first data block and inside the filesystem, the first test of
 * the kernel's ext4_inode_block_valid().
 */
static inline int e2v_block_range_valid(ext2_filsys fs, blk64_t start, blk64_t count)
{
	return start > fs->super->s_first_data_block && start + count >= start &&
	       start + count <= ext2fs_blocks_count(fs->super);
}

/* The system zone of a filesystem, made once for many files */
struct e2v_system_zone;

/*
 * ext4_setup_system_zone(): the superblocks and group descriptors of the
 * groups the kernel lists, every group's bitmaps and inode table, and the
 * journal inode's blocks (its own to name).  Valid while the filesystem's
 * layout and journal stay as they are.
 */
errcode_t e2v_system_zone_build(ext2_filsys fs, struct e2v_system_zone **z);
void e2v_system_zone_free(struct e2v_system_zone *z);

/*
 * The system zone test of ext4_inode_block_valid() for inode @ino, on all of
 * @refs at once (they may be reordered), against @zone or, if it is NULL,
 * the zone of @fs made on the fly.  *@found says whether one fails; then
 * *@hit is the failing ref the kernel meets first and *@block its first
 * block in the zone.
 */
errcode_t e2v_system_zone_check(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
				struct e2v_blockref *refs, size_t n, int *found,
				struct e2v_blockref *hit, blk64_t *block);

#endif /* E2VERITY_BLOCK_VALIDITY_H */
