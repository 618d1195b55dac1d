// SPDX-License-Identifier: GPL-2.0-or-later
/* past_eof.c - internal: prove that the blocks past EOF are the file's own before freeing them */
#include "config.h"

#include <stdlib.h>

#include "block_validity.h"
#include "past_eof.h"

/*
 * Who uses which block, from one scan of every inode: a block that two maps
 * name (two inodes, or one inode twice, or a map and an extent tree node) is
 * in @dup.  Freeing blocks only removes names, so the map stays a safe
 * judge while the caller unseals file after file.
 */
struct e2verity_owners {
	ext2fs_block_bitmap meta; /* superblocks, descriptors, bitmaps, inode tables */
	ext2fs_block_bitmap seen;
	ext2fs_block_bitmap dup;
	/* the first inode whose map could not be read: it may name any block */
	ext2_ino_t unreadable;
	/* the kernel's system zone, for opening many files */
	struct e2v_system_zone *zone;
	/* a block in use that the block bitmap calls free: allocating could hand it out */
	int bitmap_stale;
	blk64_t stale_block;
};

struct e2v_owner_scan {
	struct e2verity_owners *o;
	ext2_filsys fs;
};

static int e2v_in_fs(ext2_filsys fs, blk64_t b)
{
	/* out of range tests make libext2fs print: a hostile block number is just not ours */
	return b >= fs->super->s_first_data_block && b < ext2fs_blocks_count(fs->super);
}

static void e2v_note_block(ext2_filsys fs, struct e2verity_owners *o, blk64_t b)
{
	if (!e2v_in_fs(fs, b))
		return;
	if (ext2fs_fast_test_block_bitmap2(o->seen, b))
		ext2fs_fast_mark_block_bitmap2(o->dup, b);
	else
		ext2fs_fast_mark_block_bitmap2(o->seen, b);
}

static int e2v_owner_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			int ref_offset, void *priv)
{
	struct e2v_owner_scan *s = priv;

	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	e2v_note_block(fs, s->o, *blocknr);
	return 0;
}

/*
 * The blocks of an extent tree that is all in the inode (depth 0, a header
 * ext2fs_extent_open2() accepts), named from i_block as
 * ext2fs_block_iterate3() would, without reading the inode again and
 * opening a handle.  0 if the tree is not of that kind.
 */
static int e2v_note_root_extents(ext2_filsys fs, struct e2verity_owners *o,
				 const struct ext2_inode *in)
{
	const uint8_t *ib = (const uint8_t *)in->i_block;
	const unsigned int max_calc = (sizeof(in->i_block) - 12) / 12;
	unsigned int entries = e2v_get_le16(ib + 2), max = e2v_get_le16(ib + 4);

	if (!(in->i_flags & EXT4_EXTENTS_FL) || e2v_get_le16(ib) != EXT3_EXT_MAGIC ||
	    e2v_get_le16(ib + 6) != 0 || max > max_calc || max + 2 < max_calc || entries > max)
		return 0;
	for (unsigned int i = 0; i < entries; i++) {
		const uint8_t *e = ib + 12 * (i + 1);
		blk64_t pblk = ((blk64_t)e2v_get_le16(e + 6) << 32) | e2v_get_le32(e + 8);
		unsigned int len = e2v_get_le16(e + 4);

		if (len > EXT_INIT_MAX_LEN)
			len -= EXT_INIT_MAX_LEN;
		for (unsigned int k = 0; k < len; k++)
			e2v_note_block(fs, o, pblk + k);
	}
	return 1;
}

/* Every block every in-use inode names: its map, its map's own blocks, its xattr block */
static errcode_t e2v_scan_owners(ext2_filsys fs, struct e2verity_owners *o)
{
	const int saved_flags = fs->flags;
	struct e2v_owner_scan s = { .o = o, .fs = fs };
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

		err = ext2fs_get_next_inode_full(scan, &ino, in, sizeof(inode));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err == EXT2_ET_INODE_CSUM_INVALID)
			err = 0;
		if (err || !ino)
			break;
		if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		if (ext2fs_file_acl_block(fs, in))
			e2v_note_block(fs, o, ext2fs_file_acl_block(fs, in));
		if (!ext2fs_inode_has_valid_blocks2(fs, in))
			continue;
		/*
		 * Blocks an unreadable map may hold are not provably anyone's: every
		 * proof fails then, but the scan goes on, so that the file being
		 * judged can still say what is wrong with its own map.
		 */
		if (e2v_note_root_extents(fs, o, in))
			continue;
		err = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, e2v_owner_cb, &s);
		if (err == EXT2_ET_NO_MEMORY)
			break;
		if (err && !o->unreadable)
			o->unreadable = ino;
	}
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
		    (saved_flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
	ext2fs_close_inode_scan(scan);
	return err;
}

/*
 * Whether every block of @used is in use in the block bitmap; if not, the
 * first that is not goes to *@block.
 */
static int e2v_bitmap_covers(ext2_filsys fs, ext2fs_block_bitmap used, blk64_t *block)
{
	const blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	blk64_t pos = fs->super->s_first_data_block, start, end;

	/* run by run of @used: as many runs as the filesystem has extents */
	while (pos <= last && !ext2fs_find_first_set_block_bitmap2(used, pos, last, &start)) {
		if (ext2fs_find_first_zero_block_bitmap2(used, start, last, &end))
			end = last + 1;
		if (!ext2fs_find_first_zero_block_bitmap2(fs->block_map, start, end - 1, block))
			return 0;
		pos = end;
	}
	return 1;
}

/* The superblocks, group descriptors, bitmaps and inode tables of every group */
static errcode_t e2v_fs_metadata_map(ext2_filsys fs, ext2fs_block_bitmap map)
{
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		blk64_t it = ext2fs_inode_table_loc(fs, g);
		blk64_t bb = ext2fs_block_bitmap_loc(fs, g), ib = ext2fs_inode_bitmap_loc(fs, g);

		ext2fs_reserve_super_and_bgd(fs, g, map);
		if (e2v_in_fs(fs, bb))
			ext2fs_fast_mark_block_bitmap2(map, bb);
		if (e2v_in_fs(fs, ib))
			ext2fs_fast_mark_block_bitmap2(map, ib);
		if (it && it + fs->inode_blocks_per_group <= ext2fs_blocks_count(fs->super))
			ext2fs_mark_block_bitmap_range2(map, it, fs->inode_blocks_per_group);
	}
	if (ext2fs_has_feature_mmp(fs->super) && e2v_in_fs(fs, fs->super->s_mmp_block))
		ext2fs_fast_mark_block_bitmap2(map, fs->super->s_mmp_block);
	return 0;
}

void e2verity_owners_free(struct e2verity_owners *o)
{
	if (!o)
		return;
	if (o->meta)
		ext2fs_free_block_bitmap(o->meta);
	if (o->seen)
		ext2fs_free_block_bitmap(o->seen);
	if (o->dup)
		ext2fs_free_block_bitmap(o->dup);
	e2v_system_zone_free(o->zone);
	free(o);
}

errcode_t e2verity_owners_scan(ext2_filsys fs, struct e2verity_owners **ret)
{
	struct e2verity_owners *o;
	errcode_t err;

	*ret = NULL;
	if (!fs->block_map || !fs->inode_map) {
		err = ext2fs_read_bitmaps(fs);
		if (err)
			return err;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return E2VERITY_ET_NO_MEMORY;
	err = ext2fs_allocate_block_bitmap(fs, "filesystem metadata", &o->meta);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "blocks in use", &o->seen);
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "blocks used twice", &o->dup);
	if (!err)
		err = e2v_fs_metadata_map(fs, o->meta);
	if (!err)
		err = e2v_scan_owners(fs, o);
	if (!err)
		err = e2v_system_zone_build(fs, &o->zone);
	if (!err)
		o->bitmap_stale = !e2v_bitmap_covers(fs, o->meta, &o->stale_block) ||
				  !e2v_bitmap_covers(fs, o->seen, &o->stale_block);
	if (err) {
		e2verity_owners_free(o);
		return err;
	}
	*ret = o;
	return 0;
}

const struct e2v_system_zone *e2v_owners_zone(const struct e2verity_owners *owners)
{
	return owners ? owners->zone : NULL;
}

errcode_t e2v_owners_allocatable(const struct e2verity_owners *owners)
{
	return owners->bitmap_stale ? E2VERITY_ET_BITMAP_STALE : 0;
}

/**
 * e2v_check_past_eof() - may the blocks of @f from logical block @first on be freed
 * @f: an open file
 * @first: first logical block that would be freed
 * @owners: a scan of the filesystem made since its maps last grew, or NULL to scan here
 *
 * A hostile extent can point at the superblock, a bitmap, an inode table or
 * another file.  The blocks are the file's own only if each lies inside the
 * filesystem outside its metadata, is in use in the block bitmap, and is
 * named once by all the maps of all inodes (this one's included).  Reads the
 * bitmaps if they are not loaded; writes nothing.
 *
 * Return: 0, E2VERITY_ET_META_IN_FS_METADATA, E2VERITY_ET_META_NOT_IN_USE,
 * E2VERITY_ET_META_SHARED, E2VERITY_ET_META_UNPROVEN (the map of some inode
 * cannot be read) or a libext2fs error.
 */
errcode_t e2v_check_past_eof(struct e2v_ext4_file *f, blk64_t first,
			     const struct e2verity_owners *owners)
{
	ext2_filsys fs = f->fs;
	struct e2verity_owners *own = NULL;
	errcode_t err = 0;

	/* every extent, the kernel's last or not: they are in logical order */
	if (!f->nr_extents ||
	    f->extents[f->nr_extents - 1].lblk + f->extents[f->nr_extents - 1].len <= first)
		return 0;
	if (!owners) {
		err = e2verity_owners_scan(fs, &own);
		if (err)
			return err;
		owners = own;
	}
	for (size_t i = 0; i < f->nr_extents && !err; i++) {
		const struct e2v_extent *e = &f->extents[i];
		blk64_t skip = e->lblk < first ? first - e->lblk : 0;

		/* e2v_ext4_file_open() keeps only extents inside the filesystem */
		for (blk64_t k = skip; k < e->len && !err; k++) {
			blk64_t b = e->pblk + k;

			if (ext2fs_fast_test_block_bitmap2(owners->meta, b))
				err = E2VERITY_ET_META_IN_FS_METADATA;
			else if (!ext2fs_test_block_bitmap2(fs->block_map, b))
				err = E2VERITY_ET_META_NOT_IN_USE;
			else if (ext2fs_fast_test_block_bitmap2(owners->dup, b) ||
				 !ext2fs_fast_test_block_bitmap2(owners->seen, b))
				/* not seen: mapped after the scan, by someone else */
				err = E2VERITY_ET_META_SHARED;
		}
	}
	if (!err && owners->unreadable)
		err = E2VERITY_ET_META_UNPROVEN;
	e2verity_owners_free(own);
	return err;
}
