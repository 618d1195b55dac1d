// SPDX-License-Identifier: GPL-2.0-or-later
/* past_eof.c - internal: prove that blocks past EOF and xattr blocks are the file's own before freeing them */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "block_validity.h"
#include "core/log.h"
#include "image.h"
#include "past_eof.h"

/* one inode naming one extended attribute block (i_file_acl), at the scan */
struct e2v_xattr_ref {
	blk64_t block;
	ext2_ino_t ino;
};

/* the inodes that name one extended attribute block, and how many of them still do */
struct e2v_xattr_block {
	blk64_t block;
	size_t first; /* of its inodes in e2v_xattr_map.inos, sorted */
	uint32_t count, live;
};

/*
 * Who names which extended attribute block.  A block's h_refcount is what
 * decides between freeing it and lowering the count: a count lower than the
 * inodes that name it frees a block they still use.  The map is the scan's,
 * then follows the inodes that let a block go (e2v_owners_xattr_left()), so
 * that it stays the truth while a run moves file after file off a shared
 * block.  It is reached through the owners' pointer, which the const map
 * handed to the drivers leaves writable: only the writing thread changes it.
 */
struct e2v_xattr_map {
	struct e2v_xattr_ref *refs; /* while scanning; sorted into @blocks and @inos after */
	size_t nrefs, caprefs;
	struct e2v_xattr_block *blocks;
	size_t nblocks;
	ext2_ino_t *inos;
	uint8_t *gone; /* one per @inos: the inode let the block go since the scan */
};

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
	struct e2v_xattr_map *xattr;
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

static errcode_t e2v_xattr_note(struct e2v_xattr_map *m, blk64_t block, ext2_ino_t ino)
{
	if (m->nrefs == m->caprefs) {
		size_t cap = m->caprefs ? 2 * m->caprefs : 256;
		struct e2v_xattr_ref *v = realloc(m->refs, cap * sizeof(*v));

		if (!v)
			return E2VERITY_ET_NO_MEMORY;
		m->refs = v;
		m->caprefs = cap;
	}
	m->refs[m->nrefs].block = block;
	m->refs[m->nrefs].ino = ino;
	m->nrefs++;
	return 0;
}

static int e2v_xattr_ref_cmp(const void *a, const void *b)
{
	const struct e2v_xattr_ref *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The scan's pairs, grouped by block: a block's inode count is one look-up */
static errcode_t e2v_xattr_index(struct e2v_xattr_map *m)
{
	size_t n = m->nrefs, g = 0;

	/* no pairs, no array: qsort() must not be given NULL, even for none */
	if (n)
		qsort(m->refs, n, sizeof(*m->refs), e2v_xattr_ref_cmp);
	for (size_t i = 0; i < n; i++)
		g += !i || m->refs[i].block != m->refs[i - 1].block;
	m->blocks = calloc(g ? g : 1, sizeof(*m->blocks));
	m->inos = calloc(n ? n : 1, sizeof(*m->inos));
	m->gone = calloc(n ? n : 1, 1);
	if (!m->blocks || !m->inos || !m->gone)
		return E2VERITY_ET_NO_MEMORY;
	for (size_t i = 0; i < n; i++) {
		struct e2v_xattr_block *b = &m->blocks[m->nblocks ? m->nblocks - 1 : 0];

		if (!i || m->refs[i].block != m->refs[i - 1].block) {
			b = &m->blocks[m->nblocks++];
			b->block = m->refs[i].block;
			b->first = i;
		}
		m->inos[i] = m->refs[i].ino;
		b->count++;
		b->live++;
	}
	free(m->refs);
	m->refs = NULL;
	m->nrefs = m->caprefs = 0;
	return 0;
}

static void e2v_xattr_free(struct e2v_xattr_map *m)
{
	if (!m)
		return;
	free(m->refs);
	free(m->blocks);
	free(m->inos);
	free(m->gone);
	free(m);
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
		if (ext2fs_file_acl_block(fs, in)) {
			e2v_note_block(fs, o, ext2fs_file_acl_block(fs, in));
			err = e2v_xattr_note(o->xattr, ext2fs_file_acl_block(fs, in), ino);
			if (err)
				break;
		}
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
	e2v_xattr_free(o->xattr);
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
	o->xattr = calloc(1, sizeof(*o->xattr));
	if (!o->xattr) {
		free(o);
		return E2VERITY_ET_NO_MEMORY;
	}
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
		err = e2v_xattr_index(o->xattr);
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

static struct e2v_xattr_block *e2v_xattr_find(const struct e2v_xattr_map *m, blk64_t block)
{
	size_t lo = 0, hi = m->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->blocks[mid].block == block)
			return &m->blocks[mid];
		if (m->blocks[mid].block < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Where @ino is among the inodes of @b, or -1 */
static long e2v_xattr_slot(const struct e2v_xattr_map *m, const struct e2v_xattr_block *b,
			   ext2_ino_t ino)
{
	size_t lo = b->first, hi = b->first + b->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->inos[mid] == ino)
			return (long)mid;
		if (m->inos[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The first inode of @b that still names it, other than @ino; 0 if none */
static ext2_ino_t e2v_xattr_other(const struct e2v_xattr_map *m, const struct e2v_xattr_block *b,
				  ext2_ino_t ino)
{
	for (size_t i = b->first; i < b->first + b->count; i++)
		if (!m->gone[i] && m->inos[i] != ino)
			return m->inos[i];
	return 0;
}

/**
 * e2v_owners_xattr_check() - may @ino's extended attribute block be freed or its count lowered
 * @owners: the scan's map (NULL is a mistake of the caller: nothing is proven)
 * @block: the block @ino names now
 * @ino: the inode letting it go
 * @refcount: the block's h_refcount, as read now
 *
 * Freeing the block when its count says 1, or lowering the count, is right
 * only when the count is the number of inodes that name the block: a lower
 * count (a damaged or hostile image) would free a block other files still
 * read their attributes from.  @ino itself names the block even when the map
 * does not say so: only this run's writes gave it a block since the scan,
 * and those are fresh blocks of its own.  The disagreement is logged with
 * the block and the inodes, for the caller's message.  Writes nothing.
 *
 * Return: 0 or E2VERITY_ET_XATTR_REFCOUNT.
 */
errcode_t e2v_owners_xattr_check(ext2_filsys fs, const struct e2verity_owners *owners,
				 blk64_t block, ext2_ino_t ino, uint32_t refcount)
{
	const struct e2v_xattr_map *m = owners->xattr;
	const struct e2v_xattr_block *b = e2v_xattr_find(m, block);
	long slot = b ? e2v_xattr_slot(m, b, ino) : -1;
	uint64_t namers = (b ? b->live : 0) + (slot < 0 || m->gone[slot]);
	ext2_ino_t other = b ? e2v_xattr_other(m, b, ino) : 0;
	char detail[160];

	if (namers == refcount)
		return 0;
	if (namers > refcount && namers > 2)
		snprintf(detail, sizeof(detail),
			 "block %llu: reference count %u, but inodes %u, %u and %llu more name it",
			 (unsigned long long)block, refcount, ino, other,
			 (unsigned long long)namers - 2);
	else if (namers > refcount)
		snprintf(detail, sizeof(detail),
			 "block %llu: reference count %u, but inodes %u and %u name it",
			 (unsigned long long)block, refcount, ino, other);
	else if (namers > 1)
		snprintf(detail, sizeof(detail),
			 "block %llu: reference count %u, but only %llu inodes name it, %u and %u "
			 "among them",
			 (unsigned long long)block, refcount, (unsigned long long)namers, ino,
			 other);
	else
		snprintf(detail, sizeof(detail),
			 "block %llu: reference count %u, but only inode %u names it",
			 (unsigned long long)block, refcount, ino);
	e2v_log(e2v_image_log(fs), E2VERITY_ET_XATTR_REFCOUNT, NULL, detail);
	return E2VERITY_ET_XATTR_REFCOUNT;
}

void e2v_owners_xattr_left(const struct e2verity_owners *owners, blk64_t block, ext2_ino_t ino)
{
	struct e2v_xattr_map *m = owners->xattr;
	struct e2v_xattr_block *b = e2v_xattr_find(m, block);
	long slot = b ? e2v_xattr_slot(m, b, ino) : -1;

	/* a block given since the scan is in no map: nobody else named it */
	if (slot < 0 || m->gone[slot])
		return;
	m->gone[slot] = 1;
	b->live--;
}
