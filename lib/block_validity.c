// SPDX-License-Identifier: GPL-2.0-or-later
/* block_validity.c - internal: the system zone of fs/ext4/block_validity.c, tested against a file */
#include "config.h"

#include <stdlib.h>

#include "block_validity.h"
#include "extent_tree.h"

struct e2v_zone_test {
	ext2_ino_t ino;
	struct e2v_blockref *refs; /* sorted by first block */
	blk64_t *max_end;	   /* max_end[i]: the furthest end of refs[0..i] */
	size_t n;
	int found;
	struct e2v_blockref hit;
	blk64_t block;
};

static int e2v_ref_cmp(const void *a, const void *b)
{
	const struct e2v_blockref *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* One zone entry [@start, @start + @count), @owner's to name (0: nobody's) */
static void e2v_zone_entry(struct e2v_zone_test *z, blk64_t start, blk64_t count,
			   ext2_ino_t owner)
{
	blk64_t end = start + count < start ? ~(blk64_t)0 : start + count;
	size_t lo = 0, hi = z->n;

	if (!count || owner == z->ino)
		return;
	/* the refs that begin before the entry ends ... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->refs[mid].pblk < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... and end after it begins; only an image that fails walks this loop */
	if (!lo || z->max_end[lo - 1] <= start)
		return;
	for (size_t i = 0; i < lo; i++) {
		const struct e2v_blockref *r = &z->refs[i];

		if (r->pblk + r->len <= start || (z->found && r->seq >= z->hit.seq))
			continue;
		z->found = 1;
		z->hit = *r;
		z->block = r->pblk > start ? r->pblk : start;
	}
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
	struct e2v_zone_test *z;
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
		e2v_zone_entry(r->z, r->start, r->len, r->jino);
	r->start = *blocknr;
	r->len = 1;
	return 0;
}

/*
 * ext4_protect_reserved_inode(): the blocks the journal maps below its
 * i_size.  A journal that cannot be read is left out: the kernel would not
 * mount the filesystem at all, which is e2fsck's business, not this file's.
 */
static void e2v_zone_journal(ext2_filsys fs, struct e2v_zone_test *z)
{
	const ext2_ino_t jino = fs->super->s_journal_inum;
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	struct e2v_extent_tree t;
	blk64_t num;

	if (!ext2fs_has_feature_journal(fs->super) || !jino ||
	    jino > fs->super->s_inodes_count || jino < EXT2_ROOT_INO)
		return;
	if (ext2fs_read_inode_full(fs, jino, in, sizeof(inode)))
		return;
	num = e2v_div_round_up(EXT2_I_SIZE(in), fs->blocksize);
	if (in->i_flags & EXT4_EXTENTS_FL) {
		if (e2v_extent_tree_read(fs, jino, in, E2V_TREE_NO_ZONE, &t))
			return;
		for (size_t i = 0; i < t.nr && t.extents[i].lblk < num; i++) {
			const struct e2v_extent *e = &t.extents[i];
			blk64_t len = e->len < num - e->lblk ? e->len : num - e->lblk;

			e2v_zone_entry(z, e->pblk, len, jino);
		}
		e2v_extent_tree_free(&t);
		return;
	}
	/* a block-mapped journal (made by old tools) */
	{
		struct e2v_journal_run r = { .z = z, .jino = jino, .num = num };

		if (!ext2fs_block_iterate3(fs, jino, BLOCK_FLAG_DATA_ONLY | BLOCK_FLAG_READ_ONLY,
					   NULL, e2v_journal_block, &r) &&
		    r.len)
			e2v_zone_entry(z, r.start, r.len, jino);
	}
}

errcode_t e2v_system_zone_check(ext2_filsys fs, ext2_ino_t ino, struct e2v_blockref *refs,
				size_t n, int *found, struct e2v_blockref *hit, blk64_t *block)
{
	struct ext2_super_block *sb = fs->super;
	struct e2v_zone_test z = { .ino = ino, .refs = refs, .n = n };
	dgrp_t flex = 1;

	*found = 0;
	if (!n)
		return 0;
	z.max_end = malloc(n * sizeof(*z.max_end));
	if (!z.max_end)
		return E2VERITY_ET_NO_MEMORY;
	qsort(refs, n, sizeof(*refs), e2v_ref_cmp);
	for (size_t i = 0; i < n; i++) {
		blk64_t end = refs[i].pblk + refs[i].len;

		z.max_end[i] = i && z.max_end[i - 1] > end ? z.max_end[i - 1] : end;
	}
	/* ext4_fill_flex_info() ignores a flex size it cannot use */
	if (ext2fs_has_feature_flex_bg(sb) && sb->s_log_groups_per_flex >= 1 &&
	    sb->s_log_groups_per_flex <= 31)
		flex = (dgrp_t)1 << sb->s_log_groups_per_flex;
	/* ext4_setup_system_zone(): backups of groups past 4 only at flex group starts */
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		if (ext2fs_bg_has_super(fs, g) && (g < 5 || g % flex == 0))
			e2v_zone_entry(&z, ext2fs_group_first_block2(fs, g),
				       e2v_bg_num_gdb(fs, g) + 1, 0);
		e2v_zone_entry(&z, ext2fs_block_bitmap_loc(fs, g), 1, 0);
		e2v_zone_entry(&z, ext2fs_inode_bitmap_loc(fs, g), 1, 0);
		e2v_zone_entry(&z, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group, 0);
	}
	e2v_zone_journal(fs, &z);
	free(z.max_end);
	*found = z.found;
	if (z.found) {
		*hit = z.hit;
		*block = z.block;
	}
	return 0;
}
