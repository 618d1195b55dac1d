// SPDX-License-Identifier: GPL-2.0-or-later
/* txn.c - all-or-nothing writes: metadata through the ext4 journal, or a marked-unclean image */
#include "config.h"

#include <stdlib.h>

#include "jbd2.h"
#include "txn.h"
#include "txn_io.h"

struct e2v_range {
	blk64_t blk;
	blk64_t n;
};

struct e2verity_txn {
	ext2_filsys fs;
	int journaled;
	int aborted;
	int state_cleared; /* no journal: VALID_FS cleared while writing */
	struct e2v_jbd2 j;
	/* journal blocks the commit's flush of the in-memory metadata can take */
	uint64_t flush_reserve;
	/* freed in the open transaction: not handed out again before it commits */
	struct e2v_range *freed;
	size_t nfreed, capfreed;
	void (*old_stats)(ext2_filsys fs, blk64_t blk, int inuse);
	void (*old_stats_range)(ext2_filsys fs, blk64_t blk, blk_t num, int inuse);
};

/*
 * One transaction at a time per process: the allocation callbacks of
 * libext2fs carry no context of their own.
 */
static struct e2verity_txn *e2v_current;

static void e2v_hold_freed(struct e2verity_txn *t, blk64_t blk, blk64_t n)
{
	struct e2v_range *r;

	if (t->nfreed && t->freed[t->nfreed - 1].blk + t->freed[t->nfreed - 1].n == blk) {
		t->freed[t->nfreed - 1].n += n;
	} else {
		if (t->nfreed == t->capfreed) {
			size_t cap = t->capfreed ? 2 * t->capfreed : 64;

			r = realloc(t->freed, cap * sizeof(*r));
			if (!r) {
				/* cannot remember it: better lost until e2fsck than reused */
				return;
			}
			t->freed = r;
			t->capfreed = cap;
		}
		t->freed[t->nfreed++] = (struct e2v_range){ blk, n };
	}
	/*
	 * The counts say free, the bitmap in memory says used: the allocator
	 * passes these blocks by, so nothing written straight to disk before the
	 * commit lands in a block the committed image still gives to a file.
	 */
	ext2fs_mark_block_bitmap_range2(t->fs->block_map, blk, n);
}

static void e2v_stats_cb(ext2_filsys fs, blk64_t blk, int inuse)
{
	struct e2verity_txn *t = e2v_current;

	if (t && t->fs == fs && inuse < 0)
		e2v_hold_freed(t, blk, 1);
	if (t && t->old_stats)
		t->old_stats(fs, blk, inuse);
}

static void e2v_stats_range_cb(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	struct e2verity_txn *t = e2v_current;

	if (t && t->fs == fs && inuse < 0)
		e2v_hold_freed(t, blk, num);
	if (t && t->old_stats_range)
		t->old_stats_range(fs, blk, num, inuse);
}

static void e2v_release_freed(struct e2verity_txn *t)
{
	for (size_t i = 0; i < t->nfreed; i++)
		ext2fs_unmark_block_bitmap_range2(t->fs->block_map, t->freed[i].blk, t->freed[i].n);
	/* a flush since they were freed may have written them as used */
	if (t->nfreed)
		ext2fs_mark_bb_dirty(t->fs);
	t->nfreed = 0;
}

/* Superblock, descriptors, their backups, bitmaps and quota: what ext2fs_flush() may write. */
static uint64_t e2v_flush_reserve(ext2_filsys fs)
{
	uint64_t backups = 0;

	for (dgrp_t g = 1; g < fs->group_desc_count; g++)
		backups += ext2fs_bg_has_super(fs, g);
	return 1 + (backups + 1) * (fs->desc_blocks + 1) + 2ULL * fs->group_desc_count + 32;
}

errcode_t e2v_write_super(ext2_filsys fs)
{
	const int only = EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_MASTER_SB_ONLY;
	const int saved = fs->flags & only;
	errcode_t err;

	ext2fs_mark_super_dirty(fs);
	/*
	 * In a journaled transaction nothing reaches the disk before the
	 * commit, whose flush writes the superblock from memory: writing it
	 * here too cost a full ext2fs_flush() pass (and two fsync() calls)
	 * twice per sealed file.
	 */
	if (e2v_current && e2v_current->journaled && e2v_current->fs == fs && !e2v_current->aborted)
		return 0;
	fs->flags |= only;
	err = ext2fs_flush(fs);
	fs->flags = (fs->flags & ~only) | saved;
	return err;
}

errcode_t e2verity_fs_health(ext2_filsys fs)
{
	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return E2VERITY_ET_NEEDS_RECOVERY;
	if (fs->super->s_state & EXT2_ERROR_FS)
		return E2VERITY_ET_FS_ERRORS;
	if (!(fs->super->s_state & EXT2_VALID_FS))
		return E2VERITY_ET_FS_UNCLEAN;
	if (fs->super->s_last_orphan)
		return E2VERITY_ET_FS_UNCLEAN;
	return 0;
}

errcode_t e2verity_txn_begin(ext2_filsys fs, struct e2verity_txn **ret)
{
	struct e2verity_txn *t;
	errcode_t err;

	*ret = NULL;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (e2v_current)
		return E2VERITY_ET_TXN_BUSY;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return E2VERITY_ET_NEEDS_RECOVERY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return E2VERITY_ET_NO_MEMORY;
	t->fs = fs;
	err = e2v_jbd2_open(fs, fs->io, &t->j);
	if (err == E2VERITY_ET_NO_JOURNAL) {
		/* the next e2fsck -p, and the next e2verity, see an interrupted run */
		if (fs->super->s_state & EXT2_VALID_FS) {
			fs->super->s_state &= ~EXT2_VALID_FS;
			err = e2v_write_super(fs);
			if (!err)
				err = io_channel_flush(fs->io);
			if (err)
				goto fail;
			t->state_cleared = 1;
		}
		err = 0;
		goto out;
	}
	if (err)
		goto fail;
	if (!fs->block_map) {
		err = ext2fs_read_block_bitmap(fs);
		if (err)
			goto fail_journal;
	}
	err = e2v_txn_io_wrap(fs);
	if (err)
		goto fail_journal;
	t->journaled = 1;
	t->flush_reserve = e2v_flush_reserve(fs);
	ext2fs_set_block_alloc_stats_callback(fs, e2v_stats_cb, &t->old_stats);
	ext2fs_set_block_alloc_stats_range_callback(fs, e2v_stats_range_cb, &t->old_stats_range);
out:
	e2v_current = t;
	*ret = t;
	return 0;
fail_journal:
	e2v_jbd2_close(&t->j);
fail:
	free(t);
	return err;
}

int e2verity_txn_journaled(const struct e2verity_txn *t)
{
	return t->journaled;
}

uint64_t e2verity_txn_room(const struct e2verity_txn *t)
{
	uint64_t used, cap;

	if (!t->journaled || t->aborted)
		return UINT64_MAX;
	cap = e2v_jbd2_capacity(&t->j);
	used = e2v_jbd2_txn_blocks(&t->j, e2v_txn_io_held(t->fs->io, NULL) + t->flush_reserve);
	return used < cap ? cap - used : 0;
}

static int e2v_cmp_held(const void *a, const void *b)
{
	const struct e2v_held *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Writes the held blocks where they belong, one write per contiguous run. */
static errcode_t e2v_checkpoint(struct e2verity_txn *t, const struct e2v_held *v, size_t n)
{
	const unsigned int bs = t->fs->blocksize;
	io_channel io = e2v_txn_io_inner(t->fs->io);
	uint8_t *run = malloc(64 * bs);
	errcode_t err = 0;
	size_t i = 0;

	if (!run)
		return E2VERITY_ET_NO_MEMORY;
	while (i < n && !err) {
		size_t k = 0;

		while (i + k < n && k < 64 && v[i + k].blk == v[i].blk + k) {
			memcpy(run + k * bs, v[i + k].buf, bs);
			k++;
		}
		err = io_channel_write_blk64(io, v[i].blk, k, run);
		i += k;
	}
	free(run);
	if (!err)
		err = io_channel_flush(io);
	/*
	 * The next transaction holds copies read through that cache: without
	 * this, a block held by two transactions in a row lost the first one's
	 * changes (seen: an inode table block of 14 sealed files, back unsealed).
	 */
	if (!err)
		err = e2v_io_drop_cache(io);
	return err;
}

static errcode_t e2v_commit_journaled(struct e2verity_txn *t)
{
	ext2_filsys fs = t->fs;
	io_channel io = e2v_txn_io_inner(fs->io);
	struct e2v_held *v = NULL;
	size_t n;
	errcode_t err;

	e2v_release_freed(t);
	if (!e2v_txn_io_held(fs->io, NULL) &&
	    !(fs->flags & (EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY)))
		return 0;
	/* the image as the journal replays it says it needs recovery, as the kernel's does */
	ext2fs_set_feature_journal_needs_recovery(fs->super);
	ext2fs_mark_super_dirty(fs);
	err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
	ext2fs_clear_feature_journal_needs_recovery(fs->super);
	if (err)
		return err;
	n = e2v_txn_io_held(fs->io, &v);
	if (n == (size_t)-1)
		return E2VERITY_ET_NO_MEMORY;
	qsort(v, n, sizeof(*v), e2v_cmp_held);
	/* ordered: what was written straight (the trees) is on disk before the commit */
	err = io_channel_flush(io);
	if (!err)
		err = e2v_jbd2_commit(&t->j, v, n);
	if (!err)
		err = e2v_checkpoint(t, v, n);
	if (!err)
		err = e2v_jbd2_empty(&t->j);
	if (!err)
		err = e2v_jbd2_mark_recovery(&t->j, 0);
	if (!err)
		err = io_channel_flush(io);
	free(v);
	if (!err)
		e2v_txn_io_drop_all(fs->io);
	return err;
}

errcode_t e2verity_txn_commit(struct e2verity_txn *t)
{
	errcode_t err;

	if (t->aborted)
		return E2VERITY_ET_TXN_ABORTED;
	if (!t->journaled)
		return ext2fs_flush(t->fs);
	err = e2v_commit_journaled(t);
	/* the disk holds the last commit, or this one: never what memory says now */
	if (err)
		e2verity_txn_abort(t);
	return err;
}

void e2verity_txn_abort(struct e2verity_txn *t)
{
	t->aborted = 1;
	if (!t->journaled)
		return;
	e2v_txn_io_drop_all(t->fs->io);
	e2v_txn_io_set_dropping(t->fs->io, 1);
}

errcode_t e2verity_txn_end(struct e2verity_txn *t)
{
	ext2_filsys fs;
	errcode_t err = 0;

	if (!t)
		return 0;
	fs = t->fs;
	if (!t->aborted)
		err = e2verity_txn_commit(t);
	if (t->journaled) {
		ext2fs_set_block_alloc_stats_callback(fs, t->old_stats, NULL);
		ext2fs_set_block_alloc_stats_range_callback(fs, t->old_stats_range, NULL);
		e2v_jbd2_close(&t->j);
	} else if (t->state_cleared && !err && !t->aborted) {
		fs->super->s_state |= EXT2_VALID_FS;
		err = e2v_write_super(fs);
		if (!err)
			err = io_channel_flush(fs->io);
	}
	free(t->freed);
	free(t);
	e2v_current = NULL;
	return err;
}
