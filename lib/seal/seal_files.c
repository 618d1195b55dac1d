// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_files.c - seal or unseal many files: every one judged first, then written in transactions */
#include "config.h"

#include <stdlib.h>

#include "ext4/ahead.h"
#include "private.h"

/*
 * A transaction is committed before a file this large, so that an
 * interruption while it is hashed loses only its own work ...
 */
#define E2V_TXN_BIG_FILE (64ULL << 20)
/* ... and once this much data was hashed, or the journal is this close to full */
#define E2V_TXN_MAX_BYTES (256ULL << 20)
#define E2V_TXN_MIN_ROOM 256
/*
 * ... or once this many files wait in it: each holds its result here and
 * its inode's block in the transaction until the commit, so memory stays
 * bounded whatever the file count (a commit costs a few milliseconds)
 */
#define E2V_TXN_MAX_FILES 8192

/* whether a plan writes anything */
static int e2v_plan_writes(const struct e2verity_seal_plan *p)
{
	return p->action != E2VERITY_SEAL_SKIP || p->ima == E2VERITY_IMA_WRITE ||
	       p->ima == E2VERITY_IMA_REPLACE;
}

static int e2v_cancelled(const volatile sig_atomic_t *cancel)
{
	return cancel && *cancel;
}

/* the failure's step and file, for the caller's message; returns @err */
static errcode_t e2v_files_fail(struct e2verity_files_totals *t, enum e2verity_files_step step,
				size_t index, errcode_t err)
{
	t->step = step;
	t->index = index;
	return err;
}

/* the callbacks, or none; an option structure of a later version is refused */
static errcode_t e2v_seal_files_start(const struct e2verity_seal_files_cb **cb,
				      const struct e2verity_seal_opts *opts,
				      struct e2verity_files_totals *t)
{
	static const struct e2verity_seal_files_cb none;

	if (!*cb)
		*cb = &none;
	memset(t, 0, sizeof(*t));
	if (!e2v_all_zero((*cb)->reserved, sizeof((*cb)->reserved)) ||
	    !e2v_all_zero(opts->reserved, sizeof(opts->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	return 0;
}

/* the caller's transaction, or one of the run's own (*@own, for e2verity_txn_end()) */
static errcode_t e2v_files_txn(ext2_filsys fs, struct e2verity_txn **txn, struct e2verity_txn **own,
			       struct e2verity_files_totals *t)
{
	errcode_t err;

	if (*txn)
		return 0;
	err = ext2fs_read_bitmaps(fs);
	if (!err)
		err = e2verity_txn_begin(fs, own);
	if (err)
		return e2v_files_fail(t, E2VERITY_FILES_BEGIN, 0, err);
	*txn = *own;
	return 0;
}

errcode_t e2verity_seal_preflight(ext2_filsys fs, const ext2_ino_t *inos, size_t count,
				  const struct e2verity_seal_opts *opts,
				  const struct e2verity_seal_files_cb *cb,
				  struct e2verity_seal_plan *plans, struct e2verity_files_totals *t)
{
	struct e2verity_seal_opts o = *opts;
	struct e2verity_owners *owners = NULL;
	struct e2verity_seal_plan one, *plan;
	errcode_t err, first = 0;

	err = e2v_seal_files_start(&cb, opts, t);
	if (err)
		return err;
	t->blocks_free = ext2fs_free_blocks_count(fs->super);
	/* one scan of every inode proves what each seal writes into its file's alone */
	if (!o.owners) {
		err = e2verity_owners_scan(fs, &owners);
		if (err)
			return e2v_files_fail(t, E2VERITY_FILES_SCAN, 0, err);
		o.owners = owners;
	}
	for (size_t i = 0; i < count; i++) {
		if (cb->begin)
			cb->begin(cb->ctx, i);
		/* without @plans, one plan at a time: a file's is read by the callback only */
		plan = plans ? &plans[i] : &one;
		err = e2verity_seal_prepare(fs, inos[i], &o, plan);
		if (err) {
			t->refused++;
			if (!first) {
				first = err;
				t->step = E2VERITY_FILES_PREPARE;
				t->index = i;
			}
		} else {
			t->blocks_needed += plan->blocks_needed;
			t->blocks_freed += plan->blocks_freed;
			if (e2v_plan_writes(plan))
				t->todo++;
		}
		if (cb->judged) {
			errcode_t cerr = cb->judged(cb->ctx, i, err, err ? NULL : plan);

			if (cerr) {
				first = e2v_files_fail(t, E2VERITY_FILES_CALLBACK, i, cerr);
				goto out;
			}
		}
	}
	if (!first && t->blocks_needed > t->blocks_free + t->blocks_freed)
		first = e2v_files_fail(t, E2VERITY_FILES_SPACE, 0, E2VERITY_ET_NO_SPACE);
out:
	e2verity_owners_free(owners);
	return first;
}

/*
 * A file's size for the commit policy: its plan's, or without plans its
 * inode's (an inode that cannot be read fails in e2verity_seal_inode() next)
 */
static uint64_t e2v_files_data_size(ext2_filsys fs, ext2_ino_t ino,
				    const struct e2verity_seal_plan *plans, size_t i,
				    const struct e2verity_seal_opts *o)
{
	const struct e2v_ahead_job *j = e2v_ahead_peek(o->batch, ino);
	struct ext2_inode inode;

	if (plans)
		return plans[i].data_size;
	/* the plan made when it was queued for hashing */
	if (j && j->plan_opts == o)
		return j->plan.data_size;
	/* a policy, not a judgement: the checksum is verified when the file is sealed */
	if (ext2fs_read_inode2(fs, ino, &inode, sizeof(inode), READ_INODE_NOCSUM))
		return 0;
	return EXT2_I_SIZE(&inode);
}

/* what the files sealed in the open transaction report once it commits */
struct e2v_seal_pending {
	size_t index;
	struct e2verity_seal_result res;
};

struct e2v_seal_run {
	ext2_filsys fs;
	struct e2verity_txn *txn;
	const struct e2verity_seal_files_cb *cb;
	struct e2verity_files_totals *t;
	struct e2v_seal_pending *pending;
	size_t npending;
	uint64_t bytes; /* hashed since the last commit */
};

/* Commits the open transaction; only then are its files reported, in order. */
static errcode_t e2v_seal_commit(struct e2v_seal_run *run)
{
	errcode_t err;

	err = e2verity_txn_commit(run->txn);
	if (err)
		return e2v_files_fail(run->t, E2VERITY_FILES_COMMIT, 0, err);
	for (size_t i = 0; i < run->npending; i++) {
		const struct e2v_seal_pending *p = &run->pending[i];

		if (p->res.action == E2VERITY_SEAL_SKIP)
			run->t->skipped++;
		else
			run->t->done++;
		/* after a callback's error the rest are counted, not reported */
		if (!err && run->cb->committed) {
			err = run->cb->committed(run->cb->ctx, p->index, &p->res);
			if (err)
				e2v_files_fail(run->t, E2VERITY_FILES_CALLBACK, p->index, err);
		}
	}
	run->npending = 0;
	run->bytes = 0;
	return err;
}

errcode_t e2verity_seal_files(ext2_filsys fs, struct e2verity_txn *txn, const ext2_ino_t *inos,
			      size_t count, const struct e2verity_seal_opts *opts,
			      const struct e2verity_seal_plan *plans,
			      const struct e2verity_seal_files_cb *cb,
			      struct e2verity_files_totals *t)
{
	struct e2verity_seal_opts o = *opts;
	struct e2v_seal_run run = { 0 };
	struct e2verity_owners *owners = NULL;
	struct e2verity_workers *workers = NULL;
	struct e2verity_txn *own_txn = NULL;
	errcode_t err, err2;

	err = e2v_seal_files_start(&cb, opts, t);
	if (err)
		return err;
	/* what each seal writes into must be its file's alone: one scan of every inode proves it */
	if (!o.owners) {
		err = e2verity_owners_scan(fs, &owners);
		if (err) {
			e2v_files_fail(t, E2VERITY_FILES_SCAN, 0, err);
			goto out;
		}
		o.owners = owners;
	}
	/* no plan is kept: the commit policy reads each file's size from its inode */
	if (!plans && !(o.flags & E2VERITY_SEAL_JUDGED)) {
		err = e2verity_seal_preflight(fs, inos, count, &o, cb, NULL, t);
		if (err)
			goto out;
		/* the plans made while writing need not judge the files again */
		o.flags |= E2VERITY_SEAL_JUDGED;
	}
	err = e2v_files_txn(fs, &txn, &own_txn, t);
	if (err)
		goto out;
	run.fs = fs;
	run.txn = txn;
	run.cb = cb;
	run.t = t;
	/* a commit empties it at E2V_TXN_MAX_FILES at the latest */
	run.pending = calloc(count < E2V_TXN_MAX_FILES ? (count ? count : 1) : E2V_TXN_MAX_FILES,
			     sizeof(*run.pending));
	if (!run.pending) {
		err = E2VERITY_ET_NO_MEMORY;
		goto abort;
	}
	/* one set of hashing threads for all the files */
	if (o.params.threads.count > 1 && !o.params.threads.workers) {
		err = e2verity_workers_new(o.params.threads.count, &workers);
		if (err) {
			e2v_files_fail(t, E2VERITY_FILES_THREADS, 0, err);
			goto abort;
		}
		o.params.threads.workers = workers;
	}
	/* the small files are hashed a few files ahead while this thread writes */
	if (!o.batch) {
		err = e2verity_seal_batch_new(fs, &o, inos, count, &o.batch);
		if (err) {
			e2v_files_fail(t, E2VERITY_FILES_THREADS, 0, err);
			goto abort;
		}
	}
	err = 0;
	for (size_t i = 0; i < count && !e2v_cancelled(o.cancel); i++) {
		struct e2v_seal_pending *p;

		if (run.npending &&
		    e2v_files_data_size(fs, inos[i], plans, i, &o) >= E2V_TXN_BIG_FILE) {
			err = e2v_seal_commit(&run);
			if (err)
				break;
		}
		p = &run.pending[run.npending];
		p->index = i;
		if (cb->begin)
			cb->begin(cb->ctx, i);
		err = e2verity_seal_inode(fs, inos[i], &o, &p->res);
		if (err) {
			e2v_files_fail(t, E2VERITY_FILES_WRITE, i, err);
			break;
		}
		run.npending++;
		/* a file re-signed was not hashed */
		if (p->res.action == E2VERITY_SEAL_NEW || p->res.action == E2VERITY_SEAL_RESEAL)
			run.bytes += p->res.desc.data_size;
		if (cb->written)
			cb->written(cb->ctx, i, &p->res);
		if (run.bytes >= E2V_TXN_MAX_BYTES || run.npending >= E2V_TXN_MAX_FILES ||
		    e2verity_txn_room(txn) < E2V_TXN_MIN_ROOM) {
			err = e2v_seal_commit(&run);
			if (err)
				break;
		}
	}
	/* a stop between files keeps the files done; a stop inside one drops the transaction */
	if (!err)
		err = e2v_seal_commit(&run);
	if (!err && e2v_cancelled(o.cancel))
		err = E2VERITY_ET_CANCELLED;
	if (err && !(err == E2VERITY_ET_CANCELLED && !t->step))
		goto abort;
	goto out;
abort:
	/* the image keeps its last commit: the files since then are not sealed */
	e2verity_txn_abort(txn);
	t->aborted = 1;
out:
	if (o.batch != opts->batch)
		e2verity_batch_free(o.batch);
	e2verity_owners_free(owners);
	e2verity_workers_free(workers);
	if (own_txn) {
		err2 = e2verity_txn_end(own_txn);
		if (err2 && !err)
			err = e2v_files_fail(t, E2VERITY_FILES_COMMIT, 0, err2);
	}
	free(run.pending);
	return err;
}

/*
 * Once no inode carries the verity flag, the feature goes too (tune2fs cannot
 * clear it).  In a commit of its own, after the inodes': a flagged inode on a
 * filesystem without the feature would not be measured by the kernel.
 */
static errcode_t e2v_unseal_feature(ext2_filsys fs, struct e2verity_txn *txn,
				    struct e2verity_files_totals *t)
{
	ext2_ino_t *inos = NULL;
	size_t n = 0;
	errcode_t err;

	if (!ext2fs_has_feature_verity(fs->super))
		return 0;
	err = e2verity_txn_commit(txn);
	if (err)
		return e2v_files_fail(t, E2VERITY_FILES_COMMIT, 0, err);
	err = e2verity_list_verity_inodes(fs, &inos, &n);
	free(inos);
	if (err)
		return e2v_files_fail(t, E2VERITY_FILES_FEATURE, 0, err);
	if (n)
		return 0;
	ext2fs_clear_feature_verity(fs->super);
	ext2fs_mark_super_dirty(fs);
	err = e2verity_txn_commit(txn);
	if (err)
		return e2v_files_fail(t, E2VERITY_FILES_COMMIT, 0, err);
	return 0;
}

errcode_t e2verity_unseal_files(ext2_filsys fs, struct e2verity_txn *txn, const ext2_ino_t *inos,
				size_t count, const struct e2verity_unseal_opts *opts,
				struct e2verity_files_totals *t)
{
	const struct e2verity_owners *owners = opts->owners;
	struct e2verity_owners *own_owners = NULL;
	struct e2verity_txn *own_txn = NULL;
	char *todo = NULL;
	errcode_t err = 0, err2;

	memset(t, 0, sizeof(*t));
	if (!e2v_all_zero(opts->reserved, sizeof(opts->reserved)) ||
	    (opts->flags & ~E2VERITY_UNSEAL_CHECK_ONLY))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	todo = calloc(count ? count : 1, 1);
	if (!todo)
		return E2VERITY_ET_NO_MEMORY;
	/* one scan of every inode proves every file's blocks, not one scan per file */
	if (!owners) {
		err = e2verity_owners_scan(fs, &own_owners);
		if (err) {
			e2v_files_fail(t, E2VERITY_FILES_SCAN, 0, err);
			goto out;
		}
		owners = own_owners;
	}
	/* every file is judged before anything is written; one not sealed is skipped */
	for (size_t i = 0; i < count; i++) {
		errcode_t verdict = e2verity_unseal_check(fs, inos[i], owners);

		if (verdict == E2VERITY_ET_NOT_SEALED) {
			t->skipped++;
		} else if (verdict) {
			t->refused++;
			if (!err)
				err = e2v_files_fail(t, E2VERITY_FILES_PREPARE, i, verdict);
		} else {
			todo[i] = 1;
			t->todo++;
		}
		if (opts->judged) {
			errcode_t cerr = opts->judged(opts->ctx, i, verdict);

			if (cerr) {
				err = e2v_files_fail(t, E2VERITY_FILES_CALLBACK, i, cerr);
				goto out;
			}
		}
	}
	if (err || (opts->flags & E2VERITY_UNSEAL_CHECK_ONLY) || !t->todo)
		goto out;
	err = e2v_files_txn(fs, &txn, &own_txn, t);
	if (err)
		goto out;
	/* one transaction: every file is unsealed, or none */
	for (size_t i = 0; i < count && !(opts->cancel && *opts->cancel); i++) {
		blk64_t freed;

		if (!todo[i])
			continue;
		err = e2verity_unseal_inode_with(fs, inos[i], owners, &freed);
		if (err) {
			e2v_files_fail(t, E2VERITY_FILES_WRITE, i, err);
			goto abort;
		}
		if (opts->written)
			opts->written(opts->ctx, i, freed);
	}
	if (opts->cancel && *opts->cancel) {
		err = E2VERITY_ET_CANCELLED;
		goto abort;
	}
	err = e2v_unseal_feature(fs, txn, t);
	if (err)
		goto abort;
	t->done = t->todo;
	goto out;
abort:
	e2verity_txn_abort(txn);
	t->aborted = 1;
out:
	if (own_txn) {
		err2 = e2verity_txn_end(own_txn);
		if (err2 && !err)
			err = e2v_files_fail(t, E2VERITY_FILES_COMMIT, 0, err2);
	}
	e2verity_owners_free(own_owners);
	free(todo);
	return err;
}
