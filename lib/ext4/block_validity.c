// SPDX-License-Identifier: GPL-2.0-or-later
/* block_validity.c - internal: the system zone of fs/ext4/block_validity.c, tested against a file */
#include "config.h"

#include <stdlib.h>

#include "block_validity.h"
#include "core/array.h"

/* One run of the zone: blocks [start, end), @ino's to name (0: nobody's) */
struct e2v_zone_range {
	blk64_t start, end;
	ext2_ino_t ino;
};

struct e2v_system_zone {
	struct e2v_zone_range *r; /* sorted by start */
	blk64_t *max_end;	  /* max_end[i]: the furthest end of r[0..i] */
	size_t n, cap;
	errcode_t err; /* of the building */
};

/* Receives the zone's runs one by one, in no order */
typedef void (*e2v_zone_emit_fn)(void *ctx, blk64_t start, blk64_t count, ext2_ino_t owner);

static blk64_t e2v_end(blk64_t start, blk64_t count)
{
	return start + count < start ? ~(blk64_t)0 : start + count;
}

/* ext4_bg_num_gdb(): group descriptor blocks in group @g (reserved ones not counted) */
static blk64_t e2v_bg_num_gdb(ext2_filsys fs, dgrp_t g)
{
	struct ext2_super_block *sb = fs->super;
	const dgrp_t per = EXT2_DESC_PER_BLOCK(sb), first = g / per * per;

	if (!ext2fs_has_feature_meta_bg(sb) || g / per < sb->s_first_meta_bg) {
		if (!ext2fs_bg_has_super(fs, g))
			return 0;
		return ext2fs_has_feature_meta_bg(sb) ? sb->s_first_meta_bg : fs->desc_blocks;
	}
	return g == first || g == first + 1 || g == first + per - 1;
}

/* The runs of a block-mapped journal, gathered block by block */
struct e2v_journal_run {
	e2v_zone_emit_fn emit;
	void *ctx;
	ext2_ino_t jino;
	blk64_t num, start, len;
};

static int e2v_journal_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
			     blk64_t ref_blk, int ref_offset, void *priv)
{
	struct e2v_journal_run *r = priv;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0 || (blk64_t)blockcnt >= r->num)
		return 0;
	if (r->len && *blocknr == r->start + r->len) {
		r->len++;
		return 0;
	}
	if (r->len)
		r->emit(r->ctx, r->start, r->len, r->jino);
	r->start = *blocknr;
	r->len = 1;
	return 0;
}

/*
 * The journal's extents below its i_size, as runs; -1 when its extent tree
 * cannot be opened (the caller walks it block by block then).
 */
static int e2v_zone_journal_extents(ext2_filsys fs, ext2_ino_t jino, struct ext2_inode *in,
				    struct e2v_journal_run *r)
{
	struct ext2fs_extent e;
	ext2_extent_handle_t h;
	errcode_t err;
	int op = EXT2_EXTENT_ROOT;

	if (ext2fs_extent_open2(fs, jino, in, &h))
		return -1;
	while (!(err = ext2fs_extent_get(h, op, &e))) {
		op = EXT2_EXTENT_NEXT_LEAF;
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF) || e.e_lblk >= r->num || !e.e_len)
			continue;
		if (e.e_lblk + e.e_len > r->num)
			e.e_len = (uint32_t)(r->num - e.e_lblk);
		/* one run for extents that continue each other on the disk, as the block walk makes */
		if (r->len && e.e_pblk == r->start + r->len) {
			r->len += e.e_len;
			continue;
		}
		if (r->len)
			r->emit(r->ctx, r->start, r->len, jino);
		r->start = e.e_pblk;
		r->len = e.e_len;
	}
	ext2fs_extent_free(h);
	/* a leaf that cannot be read ends the walk: what was read is protected, as the block walk does */
	(void)err;
	if (r->len)
		r->emit(r->ctx, r->start, r->len, jino);
	return 0;
}

/*
 * ext4_protect_reserved_inode(): the blocks the journal maps below its
 * i_size.  A journal that cannot be read is left out: the kernel would not
 * mount the filesystem at all, which is e2fsck's business, not this file's.
 */
static void e2v_zone_journal(ext2_filsys fs, e2v_zone_emit_fn emit, void *ctx)
{
	const ext2_ino_t jino = fs->super->s_journal_inum;
	struct e2v_journal_run r = { .emit = emit, .ctx = ctx, .jino = jino };
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);

	if (!ext2fs_has_feature_journal(fs->super) || !jino || jino > fs->super->s_inodes_count ||
	    jino < EXT2_ROOT_INO)
		return;
	if (ext2fs_read_inode_full(fs, jino, in, sizeof(inode)))
		return;
	r.num = e2v_div_round_up(EXT2_I_SIZE(in), fs->blocksize);
	/*
	 * An extent-mapped journal (mke2fs makes one) is read extent by extent:
	 * a block walk calls back once per block, 4096 to 262144 times, and
	 * every measure of a file without a zone built ahead walks it.  Not
	 * e2v_extent_tree_read(), which judges a tree against this very zone.
	 */
	if ((in->i_flags & EXT4_EXTENTS_FL) && !e2v_zone_journal_extents(fs, jino, in, &r))
		return;
	r.len = 0;
	if (!ext2fs_block_iterate3(fs, jino, BLOCK_FLAG_DATA_ONLY | BLOCK_FLAG_READ_ONLY, NULL,
				   e2v_journal_block, &r) &&
	    r.len)
		emit(ctx, r.start, r.len, jino);
}

/* ext4_setup_system_zone(), run by run */
static void e2v_zone_runs(ext2_filsys fs, e2v_zone_emit_fn emit, void *ctx)
{
	struct ext2_super_block *sb = fs->super;
	const int hi = ext2fs_has_feature_64bit(sb);
	dgrp_t flex = 1;

	/* ext4_fill_flex_info() ignores a flex size it cannot use */
	if (ext2fs_has_feature_flex_bg(sb) && sb->s_log_groups_per_flex >= 1 &&
	    sb->s_log_groups_per_flex <= 31)
		flex = (dgrp_t)1 << sb->s_log_groups_per_flex;
	/* superblock and descriptor backups past group 4 only at flex group starts */
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		if ((g < 5 || g % flex == 0) && ext2fs_bg_has_super(fs, g))
			emit(ctx, ext2fs_group_first_block2(fs, g), e2v_bg_num_gdb(fs, g) + 1, 0);
		if (fs->group_desc) {
			/* what ext2fs_block_bitmap_loc() and its kin read, without a call each */
			const struct ext4_group_desc *d =
				(const void *)((const char *)fs->group_desc +
					       (size_t)g * EXT2_DESC_SIZE(sb));

			emit(ctx,
			     d->bg_block_bitmap | (hi ? (blk64_t)d->bg_block_bitmap_hi << 32 : 0),
			     1, 0);
			emit(ctx,
			     d->bg_inode_bitmap | (hi ? (blk64_t)d->bg_inode_bitmap_hi << 32 : 0),
			     1, 0);
			emit(ctx,
			     d->bg_inode_table | (hi ? (blk64_t)d->bg_inode_table_hi << 32 : 0),
			     fs->inode_blocks_per_group, 0);
			continue;
		}
		emit(ctx, ext2fs_block_bitmap_loc(fs, g), 1, 0);
		emit(ctx, ext2fs_inode_bitmap_loc(fs, g), 1, 0);
		emit(ctx, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group, 0);
	}
	e2v_zone_journal(fs, emit, ctx);
}

/* The refs of one file, against a zone made run by run */
struct e2v_zone_test {
	ext2_ino_t ino;
	struct e2v_blockref *refs; /* sorted by first block */
	blk64_t *max_end;	   /* max_end[i]: the furthest end of refs[0..i] */
	size_t n;
	blk64_t lo, hi; /* the refs lie in [lo, hi) */
	int found;
	struct e2v_blockref hit;
	blk64_t block;
};

static void e2v_hit(struct e2v_zone_test *z, const struct e2v_blockref *r, blk64_t zone_start)
{
	if (z->found && r->seq >= z->hit.seq)
		return;
	z->found = 1;
	z->hit = *r;
	z->block = r->pblk > zone_start ? r->pblk : zone_start;
}

static void e2v_test_run(void *ctx, blk64_t start, blk64_t count, ext2_ino_t owner)
{
	struct e2v_zone_test *z = ctx;
	const blk64_t end = e2v_end(start, count);
	size_t lo = 0, hi = z->n;

	/* most runs are nowhere near a file's few blocks */
	if (start >= z->hi || end <= z->lo || !count || owner == z->ino)
		return;
	/* the refs that begin before the run ends ... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->refs[mid].pblk < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... and end after it begins: only an image that fails walks this loop */
	if (!lo || z->max_end[lo - 1] <= start)
		return;
	for (size_t i = 0; i < lo; i++)
		if (z->refs[i].pblk + z->refs[i].len > start)
			e2v_hit(z, &z->refs[i], start);
}

static void e2v_build_run(void *ctx, blk64_t start, blk64_t count, ext2_ino_t owner)
{
	struct e2v_system_zone *z = ctx;

	if (!count || z->err)
		return;
	if (e2v_array_room(&z->r, &z->cap, z->n, sizeof(*z->r))) {
		z->err = E2VERITY_ET_NO_MEMORY;
		return;
	}
	z->r[z->n++] = (struct e2v_zone_range){ start, e2v_end(start, count), owner };
}

static int e2v_range_cmp(const void *a, const void *b)
{
	const struct e2v_zone_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int e2v_ref_cmp(const void *a, const void *b)
{
	const struct e2v_blockref *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

void e2v_system_zone_free(struct e2v_system_zone *z)
{
	if (!z)
		return;
	free(z->r);
	free(z->max_end);
	free(z);
}

errcode_t e2v_system_zone_build(ext2_filsys fs, struct e2v_system_zone **ret)
{
	struct e2v_system_zone *z;
	errcode_t err;

	*ret = NULL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return E2VERITY_ET_NO_MEMORY;
	e2v_zone_runs(fs, e2v_build_run, z);
	err = z->err;
	if (!err && z->n) {
		z->max_end = malloc(z->n * sizeof(*z->max_end));
		if (!z->max_end)
			err = E2VERITY_ET_NO_MEMORY;
	}
	if (err) {
		e2v_system_zone_free(z);
		return err;
	}
	if (z->n)
		qsort(z->r, z->n, sizeof(*z->r), e2v_range_cmp);
	/* a valid filesystem's runs never overlap; a hostile one's may */
	for (size_t i = 0; i < z->n; i++)
		z->max_end[i] =
			i && z->max_end[i - 1] > z->r[i].end ? z->max_end[i - 1] : z->r[i].end;
	*ret = z;
	return 0;
}

/* Each ref against a zone built once */
static void e2v_test_built(const struct e2v_system_zone *zone, struct e2v_zone_test *t)
{
	for (size_t k = 0; k < t->n; k++) {
		const struct e2v_blockref *r = &t->refs[k];
		const blk64_t end = e2v_end(r->pblk, r->len);
		size_t lo = 0, hi = zone->n;

		/* the runs that begin before the ref ends, and end after it begins */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (zone->r[mid].start < end)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo || zone->max_end[lo - 1] <= r->pblk)
			continue;
		for (size_t i = lo; i-- > 0;) {
			const struct e2v_zone_range *z = &zone->r[i];

			if (z->end > r->pblk && z->ino != t->ino)
				e2v_hit(t, r, z->start);
		}
	}
}

errcode_t e2v_system_zone_check(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
				struct e2v_blockref *refs, size_t n, int *found,
				struct e2v_blockref *hit, blk64_t *block)
{
	struct e2v_zone_test t = { .ino = ino, .refs = refs, .n = n };

	*found = 0;
	if (!n)
		return 0;
	if (zone) {
		e2v_test_built(zone, &t);
	} else {
		t.max_end = malloc(n * sizeof(*t.max_end));
		if (!t.max_end)
			return E2VERITY_ET_NO_MEMORY;
		qsort(refs, n, sizeof(*refs), e2v_ref_cmp);
		for (size_t i = 0; i < n; i++) {
			blk64_t end = e2v_end(refs[i].pblk, refs[i].len);

			t.max_end[i] = i && t.max_end[i - 1] > end ? t.max_end[i - 1] : end;
		}
		t.lo = refs[0].pblk;
		t.hi = t.max_end[n - 1];
		e2v_zone_runs(fs, e2v_test_run, &t);
		free(t.max_end);
	}
	*found = t.found;
	if (t.found) {
		*hit = t.hit;
		*block = t.block;
	}
	return 0;
}
