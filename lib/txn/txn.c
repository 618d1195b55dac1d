// SPDX-License-Identifier: GPL-2.0-or-later
/* txn.c - all-or-nothing writes: metadata through the ext4 journal, or in an order e2fsck -p repairs */
#include "config.h"

#include <stdlib.h>

#include "ext4/ext4_file.h"
#include "ext4/image.h"
#include "jbd2.h"
#include "txn.h"
#include "txn_io.h"
#include "core/array.h"

struct e2v_range {
	blk64_t blk;
	blk64_t n;
};

struct e2verity_txn {
	ext2_filsys fs;
	int journaled;
	int aborted;
	int state_cleared; /* no journal: VALID_FS cleared while writing */
	int write_failed;  /* no journal: the disk may hold part of a commit */
	struct e2v_jbd2 j;
	/* journal blocks the commit's flush of the in-memory metadata can take */
	uint64_t flush_reserve;
	/* freed in the open transaction: not handed out again before it commits */
	struct e2v_range *freed;
	size_t nfreed, capfreed;
	/* no journal: allocated in the open transaction, so referenced by nothing on disk yet */
	struct e2v_range *fresh;
	size_t nfresh, capfresh;
	/* no journal: every group's inode table, sorted, for e2v_phase_of() */
	struct e2v_range *itables;
	size_t nitables;
	void (*old_stats)(ext2_filsys fs, blk64_t blk, int inuse);
	void (*old_stats_range)(ext2_filsys fs, blk64_t blk, blk_t num, int inuse);
};

/*
 * The transaction open on @fs, or NULL: the image's (e2verity_image_attach()),
 * found through @fs->priv_data, as libext2fs' allocation callbacks carry no
 * context of their own.
 */
static struct e2verity_txn *e2v_txn_of(ext2_filsys fs)
{
	struct e2verity_image *img = e2v_image_of(fs);

	return img ? img->txn : NULL;
}

static int e2v_cmp_range(const void *a, const void *b);
static errcode_t e2v_commit_unjournaled(struct e2verity_txn *t, int super_only);

/* Appends [@blk, @blk + @n) to a list of ranges, joined to the last one when they touch. */
static int e2v_range_add(struct e2v_range **v, size_t *nr, size_t *cap, blk64_t blk, blk64_t n)
{
	if (*nr && (*v)[*nr - 1].blk + (*v)[*nr - 1].n == blk) {
		(*v)[*nr - 1].n += n;
		return 0;
	}
	if (e2v_array_room(v, cap, *nr, sizeof(**v)))
		return -1;
	(*v)[(*nr)++] = (struct e2v_range){ blk, n };
	return 0;
}

static void e2v_hold_freed(struct e2verity_txn *t, blk64_t blk, blk64_t n)
{
	/* cannot remember it: better lost until e2fsck than reused */
	if (e2v_range_add(&t->freed, &t->nfreed, &t->capfreed, blk, n))
		return;
	/*
	 * The counts say free, the bitmap in memory says used: the allocator
	 * passes these blocks by, so nothing written straight to disk before the
	 * commit lands in a block the committed image still gives to a file.
	 */
	ext2fs_mark_block_bitmap_range2(t->fs->block_map, blk, n);
}

/*
 * A block allocated since the last commit.  Should the list not grow, the
 * transaction cannot order its writes: it is aborted before it writes any.
 */
static void e2v_note_fresh(struct e2verity_txn *t, blk64_t blk, blk64_t n)
{
	if (!t->journaled && e2v_range_add(&t->fresh, &t->nfresh, &t->capfresh, blk, n))
		e2verity_txn_abort(t);
}

static void e2v_stats_cb(ext2_filsys fs, blk64_t blk, int inuse)
{
	struct e2verity_txn *t = e2v_txn_of(fs);

	if (t && t->fs == fs && inuse < 0)
		e2v_hold_freed(t, blk, 1);
	else if (t && t->fs == fs && inuse > 0)
		e2v_note_fresh(t, blk, 1);
	if (t && t->old_stats)
		t->old_stats(fs, blk, inuse);
}

static void e2v_stats_range_cb(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	struct e2verity_txn *t = e2v_txn_of(fs);

	if (t && t->fs == fs && inuse < 0)
		e2v_hold_freed(t, blk, num);
	else if (t && t->fs == fs && inuse > 0)
		e2v_note_fresh(t, blk, num);
	if (t && t->old_stats_range)
		t->old_stats_range(fs, blk, num, inuse);
}

unsigned long e2v_txn_free_epoch(ext2_filsys fs)
{
	const struct e2verity_txn *t = e2v_txn_of(fs);

	/* outside a transaction a freed block is free at once */
	if (!t || t->fs != fs || t->aborted)
		return 0;
	return e2v_image_of(fs)->free_epoch;
}

static void e2v_release_freed(struct e2verity_txn *t)
{
	if (t->nfreed)
		e2v_image_of(t->fs)->free_epoch++;
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
	const struct e2verity_txn *t = e2v_txn_of(fs);
	errcode_t err;

	ext2fs_mark_super_dirty(fs);
	/*
	 * In a transaction nothing reaches the disk before the commit, whose
	 * flush writes the superblock from memory: writing it here too cost a
	 * full ext2fs_flush() pass (and two fsync() calls) twice per sealed
	 * file.
	 */
	if (t && t->fs == fs && !t->aborted)
		return 0;
	fs->flags |= only;
	err = ext2fs_flush(fs);
	fs->flags = (fs->flags & ~only) | saved;
	/* the flush called everything written, the group descriptors it skipped too */
	ext2fs_mark_super_dirty(fs);
	return err;
}

/* ext4's orphan file: each block a run of le32 inode numbers, then an 8-byte tail */
#define E2V_ORPHAN_TAIL 8

/* Whether any block of the orphan file names an inode. */
static errcode_t e2v_orphan_file_pending(ext2_filsys fs, int *pending)
{
	ext2_ino_t ino = fs->super->s_orphan_file_inum;
	const unsigned int bs = fs->blocksize;
	ext2_file_t f = NULL;
	uint8_t *buf = NULL;
	unsigned int got;
	errcode_t err;

	*pending = 0;
	if (!ext2fs_has_feature_orphan_file(fs->super) || !ino)
		return 0;
	if (ino > fs->super->s_inodes_count)
		return E2VERITY_ET_ORPHANS_PENDING;
	buf = malloc(bs);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = ext2fs_file_open(fs, ino, 0, &f);
	if (err)
		goto out;
	/* bounded by the file's blocks: a hole reads as zeros, which name no inode */
	while (!*pending && !(err = ext2fs_file_read(f, buf, bs, &got)) && got == bs) {
		for (unsigned int i = 0; i + E2V_ORPHAN_TAIL < bs; i += 4)
			if (e2v_get_le32(buf + i)) {
				*pending = 1;
				break;
			}
	}
out:
	if (f)
		ext2fs_file_close(f);
	free(buf);
	return err;
}

errcode_t e2verity_fs_health(ext2_filsys fs)
{
	int pending;
	errcode_t err;

	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return E2VERITY_ET_NEEDS_RECOVERY;
	/* a recovery would truncate those inodes, whatever was written to them: never forced */
	if (fs->super->s_last_orphan || ext2fs_has_feature_orphan_present(fs->super))
		return E2VERITY_ET_ORPHANS_PENDING;
	err = e2v_orphan_file_pending(fs, &pending);
	if (err || pending)
		return err ? err : E2VERITY_ET_ORPHANS_PENDING;
	if (fs->super->s_state & EXT2_ERROR_FS)
		return E2VERITY_ET_FS_ERRORS;
	if (!(fs->super->s_state & EXT2_VALID_FS))
		return E2VERITY_ET_FS_UNCLEAN;
	return 0;
}

/* Every group's inode table as sorted ranges: the blocks whose writes switch inodes over. */
static errcode_t e2v_itables_load(struct e2verity_txn *t)
{
	ext2_filsys fs = t->fs;
	size_t cap = 0;

	for (dgrp_t g = 0; g < fs->group_desc_count; g++)
		if (e2v_range_add(&t->itables, &t->nitables, &cap, ext2fs_inode_table_loc(fs, g),
				  fs->inode_blocks_per_group))
			return E2VERITY_ET_NO_MEMORY;
	qsort(t->itables, t->nitables, sizeof(*t->itables), e2v_cmp_range);
	return 0;
}

errcode_t e2verity_txn_begin(ext2_filsys fs, struct e2verity_txn **ret)
{
	struct e2verity_image *img = e2v_image_of(fs);
	struct e2verity_txn *t;
	errcode_t err;

	*ret = NULL;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (!img)
		return E2VERITY_ET_NO_IMAGE;
	if (img->txn)
		return E2VERITY_ET_TXN_BUSY;
	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return E2VERITY_ET_NEEDS_RECOVERY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return E2VERITY_ET_NO_MEMORY;
	t->fs = fs;
	err = e2v_jbd2_open(fs, fs->io, &t->j);
	if (err && err != E2VERITY_ET_NO_JOURNAL)
		goto fail;
	t->journaled = !err;
	err = t->journaled ? 0 : e2v_itables_load(t);
	if (!err && !fs->block_map)
		err = ext2fs_read_block_bitmap(fs);
	if (!err)
		err = e2v_txn_io_wrap(fs);
	if (err)
		goto fail_journal;
	if (e2v_txn_io_is(fs)) {
		uint64_t base;
		int fd = e2v_fs_image_fd(fs, &base);

		if (fd >= 0)
			e2v_txn_io_set_image_fd(fs->io, fd, base);
	}
	ext2fs_set_block_alloc_stats_callback(fs, e2v_stats_cb, &t->old_stats);
	ext2fs_set_block_alloc_stats_range_callback(fs, e2v_stats_range_cb, &t->old_stats_range);
	img->txn = t;
	img->free_epoch++;
	if (t->journaled) {
		t->flush_reserve = e2v_flush_reserve(fs);
	} else if (fs->super->s_state & EXT2_VALID_FS) {
		/* the next e2fsck -p checks the image whole, and the next e2verity refuses it */
		fs->super->s_state &= ~EXT2_VALID_FS;
		err = e2v_commit_unjournaled(t, 1);
		if (err) {
			e2verity_txn_abort(t);
			e2verity_txn_end(t);
			return err;
		}
		t->state_cleared = 1;
	}
	*ret = t;
	return 0;
fail_journal:
	if (t->journaled)
		e2v_jbd2_close(&t->j);
fail:
	free(t->itables);
	free(t);
	return err;
}

int e2v_txn_unjournaled(ext2_filsys fs)
{
	const struct e2verity_txn *t = e2v_txn_of(fs);

	return t && t->fs == fs && !t->journaled;
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

static int e2v_cmp_range(const void *a, const void *b)
{
	const struct e2v_range *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Whether @blk lies in one of the sorted, disjoint ranges @v. */
static int e2v_in_ranges(const struct e2v_range *v, size_t n, blk64_t blk)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (blk < v[mid].blk)
			hi = mid;
		else if (blk - v[mid].blk >= v[mid].n)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * Without a journal the held blocks reach the disk in three phases, each
 * made durable before the next (doc/unjournaled.md has every state a cut
 * leaves and what e2fsck -p makes of it):
 */
enum e2v_phase {
	/* blocks allocated since the last commit: nothing on disk points to them */
	E2V_PHASE_FRESH,
	/* bitmaps, descriptors, superblocks, quota: counts that e2fsck -p recomputes */
	E2V_PHASE_COUNTS,
	/* inode tables: each inode is one sector, so each file switches whole */
	E2V_PHASE_INODES,
	E2V_NR_PHASES
};

static enum e2v_phase e2v_phase_of(const struct e2verity_txn *t, blk64_t blk)
{
	if (e2v_in_ranges(t->fresh, t->nfresh, blk))
		return E2V_PHASE_FRESH;
	if (e2v_in_ranges(t->itables, t->nitables, blk))
		return E2V_PHASE_INODES;
	return E2V_PHASE_COUNTS;
}

/* Writes what is held, phase by phase, and lets it go. */
static errcode_t e2v_write_phases(struct e2verity_txn *t)
{
	struct e2v_held *v = NULL, *w = NULL;
	size_t n, k;
	errcode_t err = 0;

	n = e2v_txn_io_held(t->fs->io, &v);
	if (n == (size_t)-1)
		return E2VERITY_ET_NO_MEMORY;
	w = malloc((n ? n : 1) * sizeof(*w));
	if (!w) {
		free(v);
		return E2VERITY_ET_NO_MEMORY;
	}
	qsort(v, n, sizeof(*v), e2v_cmp_held);
	if (t->nfresh) /* qsort() takes no NULL array, even empty */
		qsort(t->fresh, t->nfresh, sizeof(*t->fresh), e2v_cmp_range);
	for (int phase = 0; phase < E2V_NR_PHASES && !err; phase++) {
		k = 0;
		for (size_t i = 0; i < n; i++)
			if (e2v_phase_of(t, v[i].blk) == (enum e2v_phase)phase)
				w[k++] = v[i];
		if (k)
			err = e2v_checkpoint(t, w, k);
	}
	free(w);
	free(v);
	if (!err)
		e2v_txn_io_drop_all(t->fs->io);
	return err;
}

/*
 * The commit without a journal: everything libext2fs keeps in memory is
 * flushed into the held blocks and written in phases; the blocks freed in
 * the transaction stay marked in use until the inodes that let them go are
 * on disk, and are released by a second pass.  @super_only: the primary
 * superblock alone changed (its clean state).
 */
static errcode_t e2v_commit_unjournaled(struct e2verity_txn *t, int super_only)
{
	const int only = EXT2_FLAG_SUPER_ONLY | EXT2_FLAG_MASTER_SB_ONLY;
	ext2_filsys fs = t->fs;
	const int saved = fs->flags & only;
	errcode_t err;

	if (t->aborted)
		return E2VERITY_ET_TXN_ABORTED;
	/* the data gathered in one run: in phase "data", before anything points to it */
	err = e2v_txn_io_settle(fs);
	if (err) {
		t->write_failed = 1;
		return err;
	}
	if (super_only)
		fs->flags |= only;
	ext2fs_mark_super_dirty(fs);
	err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
	fs->flags = (fs->flags & ~only) | saved;
	if (!err)
		err = e2v_write_phases(t);
	if (!err && t->nfreed) {
		e2v_release_freed(t);
		err = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);
		if (!err)
			err = e2v_write_phases(t);
	}
	t->nfresh = 0;
	/* the disk may now hold any prefix of the phases: only e2fsck -p may judge it */
	if (err)
		t->write_failed = 1;
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
	/* ordered: the data gathered in one run is written, then flushed below */
	err = e2v_txn_io_settle(fs);
	if (err)
		return err;
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
	err = t->journaled ? e2v_commit_journaled(t) : e2v_commit_unjournaled(t, 0);
	/* the disk holds the last commit, or this one: never what memory says now */
	if (err)
		e2verity_txn_abort(t);
	return err;
}

void e2verity_txn_abort(struct e2verity_txn *t)
{
	t->aborted = 1;
	if (!e2v_txn_io_is(t->fs))
		return;
	e2v_txn_io_drop_all(t->fs->io);
	e2v_txn_io_set_dropping(t->fs->io, 1);
}

/*
 * After an abort without a journal: the disk holds the last commit whole,
 * which is consistent, so its superblock (not the one in memory, which has
 * the abandoned changes) gets its clean state back, written whole.
 */
static errcode_t e2v_mark_clean_on_disk(struct e2verity_txn *t)
{
	ext2_filsys fs = t->fs;
	io_channel io = e2v_txn_io_inner(fs->io);
	const unsigned int bs = fs->blocksize;
	const blk64_t blk = SUPERBLOCK_OFFSET / bs;
	const unsigned int off = SUPERBLOCK_OFFSET % bs;
	uint8_t *buf = malloc(bs), *sb;
	errcode_t err;

	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	sb = buf + off;
	err = io_channel_read_blk64(io, blk, 1, buf);
	if (err)
		goto out;
	/* s_state, le16 at 0x3a; the checksum, crc32c of all that precedes it, at 0x3fc */
	e2v_put_le16(sb + 0x3a, e2v_get_le16(sb + 0x3a) | EXT2_VALID_FS);
	if (ext2fs_has_feature_metadata_csum(fs->super))
		e2v_put_le32(sb + 0x3fc, ext2fs_crc32c_le(~0U, sb, 0x3fc));
	err = io_channel_write_blk64(io, blk, 1, buf);
	if (!err)
		err = io_channel_flush(io);
out:
	free(buf);
	return err;
}

errcode_t e2verity_txn_end(struct e2verity_txn *t)
{
	struct e2verity_image *img;
	ext2_filsys fs;
	errcode_t err = 0;

	if (!t)
		return 0;
	fs = t->fs;
	if (!t->aborted)
		err = e2verity_txn_commit(t);
	ext2fs_set_block_alloc_stats_callback(fs, t->old_stats, NULL);
	ext2fs_set_block_alloc_stats_range_callback(fs, t->old_stats_range, NULL);
	if (t->journaled) {
		e2v_jbd2_close(&t->j);
	} else if (t->state_cleared && !err && !t->write_failed) {
		if (t->aborted) {
			err = e2v_mark_clean_on_disk(t);
		} else {
			fs->super->s_state |= EXT2_VALID_FS;
			err = e2v_commit_unjournaled(t, 1);
		}
	}
	free(t->freed);
	free(t->fresh);
	free(t->itables);
	free(t);
	img = e2v_image_of(fs);
	if (img) {
		img->txn = NULL;
		img->free_epoch++;
	}
	return err;
}
