// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_blocks.c - internal: allocate, punch, zero and write the blocks of a file being sealed */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ext4/punch.h"
#include "seal_blocks.h"
#include "txn/txn_io.h"

/* Tree blocks are written in runs of up to this many bytes. */
#define E2V_WRITE_RUN (256u * 1024)

/* The inline bytes, zero-padded to whole blocks (the kernel hashes the last one raw). */
static errcode_t e2v_inline_read(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in,
				 uint8_t **ret, blk64_t *nblocks)
{
	uint64_t size = EXT2_I_SIZE(in);
	size_t cap = 0, got = 0, buflen;
	uint8_t *buf;
	errcode_t err;

	*ret = NULL;
	err = ext2fs_inline_data_size(fs, ino, &cap);
	if (err)
		return err;
	if (size > cap)
		return E2VERITY_ET_CORRUPT;
	*nblocks = e2v_div_round_up(size, fs->blocksize);
	buflen = *nblocks * fs->blocksize > cap ? *nblocks * fs->blocksize : cap;
	buf = calloc(1, buflen);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = ext2fs_inline_data_get(fs, ino, in, buf, &got);
	if (err) {
		free(buf);
		return err;
	}
	memset(buf + size, 0, buflen - size);
	*ret = buf;
	return 0;
}

/* Fresh blocks near the inode's goal, written with @buf before anything points to them. */
static errcode_t e2v_inline_write_blocks(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in,
					 const uint8_t *buf, blk64_t nblocks, blk64_t *pblk)
{
	blk64_t goal = ext2fs_find_inode_goal(fs, ino, in, 0);
	errcode_t err;

	err = ext2fs_alloc_range(fs, 0, goal, nblocks, pblk);
	if (err)
		return err;
	e2v_io_data(fs, 1);
	err = io_channel_write_blk64(fs->io, *pblk, nblocks, buf);
	e2v_io_data(fs, 0);
	if (err)
		ext2fs_block_alloc_stats_range(fs, *pblk, nblocks, -1);
	return err;
}

/*
 * Turns the inode into an extent-mapped one over [@pblk, @pblk + @nblocks).
 * *@switched says whether the inode on disk points to the blocks (then they
 * are its own, whatever else failed).
 */
static errcode_t e2v_inline_switch(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in,
				   blk64_t pblk, blk64_t nblocks, int *switched)
{
	ext2_extent_handle_t eh = NULL;
	struct ext2fs_extent ex;
	errcode_t err;

	/* an inline inode cannot have been sealed: a verity flag on it means nothing */
	in->i_flags &= ~(EXT4_INLINE_DATA_FL | EXT4_VERITY_FL);
	memset(in->i_block, 0, sizeof(in->i_block));
	/* on an all-zero i_block this writes an empty extent header and sets EXTENTS_FL */
	err = ext2fs_extent_open2(fs, ino, in, &eh);
	if (err)
		return err;
	if (nblocks) {
		err = ext2fs_iblk_add_blocks(fs, in, nblocks);
		if (err)
			goto out;
		ex = (struct ext2fs_extent){ .e_lblk = 0, .e_pblk = pblk, .e_len = nblocks };
		err = ext2fs_extent_insert(eh, 0, &ex);
		if (err)
			goto out;
		/* the insert wrote the inode: it points to the blocks now */
		*switched = 1;
	}
	err = ext2fs_write_inode(fs, ino, in);
	if (!err)
		*switched = 1;
out:
	ext2fs_extent_free(eh);
	return err;
}

/* The attribute that held the rest of the inline bytes is stale once they moved. */
static errcode_t e2v_inline_drop_xattr(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_xattr_handle *xh = NULL;
	errcode_t err;

	err = ext2fs_xattrs_open(fs, ino, &xh);
	if (!err)
		err = ext2fs_xattrs_read(xh);
	if (!err)
		err = ext2fs_xattr_remove(xh, "system.data");
	if (xh)
		ext2fs_xattrs_close(&xh);
	return err;
}

errcode_t e2v_move_inline_data(ext2_filsys fs, ext2_ino_t ino, struct e2v_ext4_file *f,
			       blk64_t *allocated)
{
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	blk64_t nblocks = 0, pblk = 0;
	uint8_t *buf = NULL;
	int switched = 0;
	errcode_t err;

	*allocated = 0;
	err = ext2fs_read_inode_full(fs, ino, in, sizeof(inode));
	if (err)
		return err;
	err = e2v_inline_read(fs, ino, in, &buf, &nblocks);
	if (err)
		return err;
	/*
	 * The data is on disk in its new block before the inode points to it:
	 * a crash leaves either the inline file or the extent-mapped one.
	 */
	if (nblocks)
		err = e2v_inline_write_blocks(fs, ino, in, buf, nblocks, &pblk);
	free(buf);
	if (err)
		return err;
	err = e2v_inline_switch(fs, ino, in, pblk, nblocks, &switched);
	if (err) {
		if (nblocks && !switched)
			ext2fs_block_alloc_stats_range(fs, pblk, nblocks, -1);
		return err;
	}
	*allocated = nblocks;
	err = e2v_inline_drop_xattr(fs, ino);
	if (!err)
		err = e2v_ext4_file_open(fs, ino, f);
	return err;
}

errcode_t e2v_punch_from(struct e2v_ext4_file *f, blk64_t first)
{
	const struct e2v_extent *last = e2v_ext4_last_extent(f);
	errcode_t err;

	if (!last || last->lblk + last->len <= first)
		return 0;
	err = e2v_punch_past(f->fs, f->ino, EXT2_INODE(&f->inode), first);
	if (err)
		return err;
	return e2v_ext4_file_reload(f);
}

errcode_t e2v_zero_tail(struct e2v_ext4_file *f, int *zeroed)
{
	const unsigned int bs = f->fs->blocksize;
	unsigned int used = f->size % bs;
	blk64_t pblk;
	errcode_t err;

	*zeroed = 0;
	if (!used)
		return 0;
	/* a hole or an unwritten extent reads as zeros already */
	if (e2v_ext4_file_map(f, f->size / bs, &pblk, NULL))
		return 0;
	if (!e2v_ext4_file_bounce(f))
		return E2VERITY_ET_NO_MEMORY;
	err = io_channel_read_blk64(f->fs->io, pblk, 1, f->bounce);
	if (err)
		return err;
	if (e2v_all_zero(f->bounce + used, bs - used))
		return 0;
	memset(f->bounce + used, 0, bs - used);
	e2v_io_data(f->fs, 1);
	err = io_channel_write_blk64(f->fs->io, pblk, 1, f->bounce);
	e2v_io_data(f->fs, 0);
	if (err)
		return err;
	*zeroed = 1;
	return 0;
}

errcode_t e2v_alloc_range(struct e2v_ext4_file *f, blk64_t first, blk64_t count, int zero)
{
	/*
	 * Initialized: the kernel counts an unwritten last extent and would
	 * read a zero size word.  Past EOF on purpose.
	 */
	int flags = EXT2_FALLOCATE_FORCE_INIT | EXT2_FALLOCATE_INIT_BEYOND_EOF;
	struct ext2_inode *in = EXT2_INODE(&f->inode);
	errcode_t err;

	/* libext2fs only grows an initialized extent into blocks it zeroes */
	if (zero)
		flags |= EXT2_FALLOCATE_ZERO_BLOCKS;
	if (!count)
		return 0;
	err = ext2fs_fallocate(f->fs, flags, f->ino, in, ~0ULL, first, count);
	if (!err)
		err = ext2fs_write_inode(f->fs, f->ino, in);
	if (err)
		return err;
	return e2v_ext4_file_reload(f);
}

errcode_t e2v_tree_writer_init(struct e2v_tree_writer *w, struct e2v_ext4_file *f, uint64_t base,
			       uint64_t tree_size)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->base = base;
	w->tree_size = tree_size;
	w->cap = E2V_WRITE_RUN / f->fs->blocksize;
	if (!w->cap)
		w->cap = 1;
	w->buf = malloc((size_t)w->cap * f->fs->blocksize);
	return w->buf ? 0 : E2VERITY_ET_NO_MEMORY;
}

static errcode_t e2v_tree_writer_run(struct e2v_tree_writer *w)
{
	errcode_t err;

	if (!w->nblocks)
		return 0;
	e2v_io_data(w->f->fs, 1);
	err = io_channel_write_blk64(w->f->fs->io, w->start, w->nblocks, w->buf);
	e2v_io_data(w->f->fs, 0);
	w->nblocks = 0;
	return err;
}

/* Queues one whole fs block of the tree, logical block @lblk. */
static errcode_t e2v_tree_writer_put(struct e2v_tree_writer *w, blk64_t lblk, const void *data)
{
	const unsigned int bs = w->f->fs->blocksize;
	blk64_t pblk;
	errcode_t err;

	err = e2v_ext4_file_map(w->f, lblk, &pblk, NULL);
	if (err)
		return err;
	if (w->nblocks && (pblk != w->start + w->nblocks || w->nblocks == w->cap)) {
		err = e2v_tree_writer_run(w);
		if (err)
			return err;
	}
	if (!w->nblocks)
		w->start = pblk;
	memcpy(w->buf + (size_t)w->nblocks * bs, data, bs);
	w->nblocks++;
	return 0;
}

/* The part assembling fs block @lblk, a fresh zeroed one if there is none yet. */
static errcode_t e2v_tree_part_get(struct e2v_tree_writer *w, blk64_t lblk,
				   struct e2v_tree_part **ret)
{
	const unsigned int bs = w->f->fs->blocksize;
	struct e2v_tree_part *free_part = NULL, *n;

	for (size_t i = 0; i < w->nparts; i++) {
		if (w->parts[i].used && w->parts[i].lblk == lblk) {
			*ret = &w->parts[i];
			return 0;
		}
		if (!w->parts[i].used && !free_part)
			free_part = &w->parts[i];
	}
	if (!free_part) {
		n = realloc(w->parts, (w->nparts + 1) * sizeof(*n));
		if (!n)
			return E2VERITY_ET_NO_MEMORY;
		w->parts = n;
		free_part = &w->parts[w->nparts];
		memset(free_part, 0, sizeof(*free_part));
		free_part->buf = malloc(bs);
		if (!free_part->buf)
			return E2VERITY_ET_NO_MEMORY;
		w->nparts++;
	}
	memset(free_part->buf, 0, bs);
	free_part->lblk = lblk;
	free_part->filled = 0;
	free_part->used = 1;
	*ret = free_part;
	return 0;
}

errcode_t e2v_tree_writer_flush(struct e2v_tree_writer *w)
{
	errcode_t err;

	/* only if a Merkle block never came: the slots it left stay zero */
	for (size_t i = 0; i < w->nparts; i++) {
		if (!w->parts[i].used)
			continue;
		w->parts[i].used = 0;
		err = e2v_tree_writer_put(w, w->parts[i].lblk, w->parts[i].buf);
		if (err)
			return err;
	}
	return e2v_tree_writer_run(w);
}

errcode_t e2v_tree_writer_block(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct e2v_tree_writer *w = ctx;
	const unsigned int bs = w->f->fs->blocksize;
	uint64_t pos = w->base + offset;
	uint64_t in_tree, expected;
	struct e2v_tree_part *part;
	errcode_t err;

	/* the Merkle block size never exceeds the fs block size */
	if (size == bs)
		return e2v_tree_writer_put(w, pos / bs, block);
	/*
	 * Several Merkle blocks share one fs block, and they may come at
	 * different times (one level ends and the next starts in it): keep the
	 * fs block in memory until every Merkle block it holds has come.  The
	 * tree starts on an fs block boundary; what its last fs block has left
	 * over stays zero.
	 */
	err = e2v_tree_part_get(w, pos / bs, &part);
	if (err)
		return err;
	memcpy(part->buf + pos % bs, block, size);
	part->filled++;
	in_tree = w->tree_size - (pos - pos % bs - w->base);
	expected = (in_tree < bs ? in_tree : bs) / size;
	if (part->filled < expected)
		return 0;
	part->used = 0;
	return e2v_tree_writer_put(w, part->lblk, part->buf);
}

errcode_t e2v_tree_writer_bytes(struct e2v_tree_writer *w, const void *buf, size_t len,
				uint64_t pos)
{
	const unsigned int bs = w->f->fs->blocksize;
	const uint8_t *p = buf;
	errcode_t err = 0;

	if (len % bs || pos % bs)
		return E2VERITY_ET_CORRUPT; /* cannot happen: the layout is block-aligned */
	for (; !err && len; p += bs, pos += bs, len -= bs)
		err = e2v_tree_writer_put(w, pos / bs, p);
	return err;
}

void e2v_tree_writer_free(struct e2v_tree_writer *w)
{
	for (size_t i = 0; i < w->nparts; i++)
		free(w->parts[i].buf);
	free(w->parts);
	free(w->buf);
	w->parts = NULL;
	w->nparts = 0;
	w->buf = NULL;
}
