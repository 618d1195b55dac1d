// SPDX-License-Identifier: GPL-2.0-or-later
/* past_eof.c - internal: prove that the blocks past EOF are the file's own before freeing them */
#include "config.h"

#include "ext4_file.h"

struct e2v_owner_scan {
	ext2fs_block_bitmap mine; /* the blocks that would be freed */
	ext2_filsys fs;
	blk64_t first;	 /* for our own inode: blocks from here on are the candidates */
	int own;	 /* iterating our own inode */
	errcode_t found; /* E2VERITY_ET_META_SHARED once a candidate is seen */
};

static int e2v_is_mine(ext2_filsys fs, ext2fs_block_bitmap mine, blk64_t b)
{
	/* out of range tests make libext2fs print: a hostile block number is just not ours */
	if (b < fs->super->s_first_data_block || b >= ext2fs_blocks_count(fs->super))
		return 0;
	return ext2fs_test_block_bitmap2(mine, b);
}

static int e2v_owner_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			int ref_offset, void *priv)
{
	struct e2v_owner_scan *s = priv;

	(void)ref_blk;
	(void)ref_offset;
	/* our own blocks past EOF are the candidates themselves; tree nodes (< 0) are not */
	if (s->own && blockcnt >= 0 && (blk64_t)blockcnt >= s->first)
		return 0;
	if (e2v_is_mine(fs, s->mine, *blocknr)) {
		s->found = E2VERITY_ET_META_SHARED;
		return BLOCK_ABORT;
	}
	return 0;
}

/* Every block of every other inode, and our own below @first, must be outside @mine. */
static errcode_t e2v_scan_owners(struct e2v_ext4_file *f, ext2fs_block_bitmap mine, blk64_t first)
{
	ext2_filsys fs = f->fs;
	const int saved_flags = fs->flags;
	struct e2v_owner_scan s = { .mine = mine, .fs = fs, .first = first };
	struct ext2_inode_large inode;
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		return err;
	/* an inode with a bad checksum still owns what it maps: look at it all the same */
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	for (;;) {
		struct ext2_inode *in = EXT2_INODE(&inode);
		blk64_t acl;

		err = ext2fs_get_next_inode_full(scan, &ino, in, sizeof(inode));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err == EXT2_ET_INODE_CSUM_INVALID)
			err = 0;
		if (err || !ino)
			break;
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		acl = ext2fs_file_acl_block(fs, in);
		if (acl && e2v_is_mine(fs, mine, acl)) {
			err = E2VERITY_ET_META_SHARED;
			break;
		}
		if (!ext2fs_inode_has_valid_blocks2(fs, in))
			continue;
		s.own = ino == f->ino;
		/* blocks an unreadable map may hold are not provably someone else's: refuse */
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, e2v_owner_cb, &s);
		if (!err)
			err = s.found;
		if (err)
			break;
	}
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
		    (saved_flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
	ext2fs_close_inode_scan(scan);
	return err;
}

/* The superblocks, group descriptors, bitmaps and inode tables of every group */
static errcode_t e2v_fs_metadata_map(ext2_filsys fs, ext2fs_block_bitmap *ret)
{
	ext2fs_block_bitmap map;
	errcode_t err;

	err = ext2fs_allocate_block_bitmap(fs, "filesystem metadata", &map);
	if (err)
		return err;
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		blk64_t it = ext2fs_inode_table_loc(fs, g);

		ext2fs_reserve_super_and_bgd(fs, g, map);
		ext2fs_fast_mark_block_bitmap2(map, ext2fs_block_bitmap_loc(fs, g));
		ext2fs_fast_mark_block_bitmap2(map, ext2fs_inode_bitmap_loc(fs, g));
		if (it && it + fs->inode_blocks_per_group <= ext2fs_blocks_count(fs->super))
			ext2fs_mark_block_bitmap_range2(map, it, fs->inode_blocks_per_group);
	}
	if (ext2fs_has_feature_mmp(fs->super) && fs->super->s_mmp_block &&
	    fs->super->s_mmp_block < ext2fs_blocks_count(fs->super))
		ext2fs_fast_mark_block_bitmap2(map, fs->super->s_mmp_block);
	*ret = map;
	return 0;
}

/**
 * e2v_check_past_eof() - may the blocks of @f from logical block @first on be freed
 * @f: an open file
 * @first: first logical block that would be freed
 *
 * A hostile extent can point at the superblock, a bitmap, an inode table or
 * another file.  The blocks are the file's own only if each lies inside the
 * filesystem outside its metadata, is in use in the block bitmap, is mapped
 * once, and no other inode (nor this one below @first) uses it.  Reads the
 * bitmaps if they are not loaded; writes nothing.
 *
 * Return: 0, E2VERITY_ET_META_IN_FS_METADATA, E2VERITY_ET_META_NOT_IN_USE,
 * E2VERITY_ET_META_SHARED or a libext2fs error.
 */
errcode_t e2v_check_past_eof(struct e2v_ext4_file *f, blk64_t first)
{
	ext2_filsys fs = f->fs;
	ext2fs_block_bitmap meta = NULL, mine = NULL;
	const struct e2v_extent *last = e2v_ext4_last_extent(f);
	errcode_t err;

	if (!last || last->lblk + last->len <= first)
		return 0;
	if (!fs->block_map || !fs->inode_map) {
		err = ext2fs_read_bitmaps(fs);
		if (err)
			return err;
	}
	err = e2v_fs_metadata_map(fs, &meta);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "blocks past EOF", &mine);
	if (err)
		goto out;
	for (size_t i = 0; i < f->nr_extents; i++) {
		const struct e2v_extent *e = &f->extents[i];
		blk64_t skip = e->lblk < first ? first - e->lblk : 0;

		/* e2v_ext4_file_open() keeps only extents inside the filesystem */
		for (blk64_t k = skip; k < e->len; k++) {
			blk64_t b = e->pblk + k;

			if (ext2fs_test_block_bitmap2(meta, b))
				err = E2VERITY_ET_META_IN_FS_METADATA;
			else if (!ext2fs_test_block_bitmap2(fs->block_map, b))
				err = E2VERITY_ET_META_NOT_IN_USE;
			else if (ext2fs_test_block_bitmap2(mine, b))
				err = E2VERITY_ET_META_SHARED;
			if (err)
				goto out;
			ext2fs_fast_mark_block_bitmap2(mine, b);
		}
	}
	err = e2v_scan_owners(f, mine, first);
out:
	if (meta)
		ext2fs_free_block_bitmap(meta);
	if (mine)
		ext2fs_free_block_bitmap(mine);
	return err;
}
