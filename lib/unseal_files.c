// SPDX-License-Identifier: GPL-2.0-or-later
/* unseal_files.c - unseal many files: every one judged first, then all in one transaction */
#include "config.h"

#include <stdlib.h>

#include "private.h"

static errcode_t e2v_unseal_fail(struct e2verity_files_totals *t, enum e2verity_files_step step,
				 size_t index, errcode_t err)
{
	t->step = step;
	t->index = index;
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
		return e2v_unseal_fail(t, E2VERITY_FILES_COMMIT, 0, err);
	err = e2verity_list_verity_inodes(fs, &inos, &n);
	free(inos);
	if (err)
		return e2v_unseal_fail(t, E2VERITY_FILES_FEATURE, 0, err);
	if (n)
		return 0;
	ext2fs_clear_feature_verity(fs->super);
	ext2fs_mark_super_dirty(fs);
	err = e2verity_txn_commit(txn);
	if (err)
		return e2v_unseal_fail(t, E2VERITY_FILES_COMMIT, 0, err);
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
			e2v_unseal_fail(t, E2VERITY_FILES_SCAN, 0, err);
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
				err = e2v_unseal_fail(t, E2VERITY_FILES_PREPARE, i, verdict);
		} else {
			todo[i] = 1;
			t->todo++;
		}
		if (opts->judged) {
			errcode_t cerr = opts->judged(opts->ctx, i, verdict);

			if (cerr) {
				err = e2v_unseal_fail(t, E2VERITY_FILES_CALLBACK, i, cerr);
				goto out;
			}
		}
	}
	if (err || (opts->flags & E2VERITY_UNSEAL_CHECK_ONLY) || !t->todo)
		goto out;
	if (!txn) {
		err = ext2fs_read_bitmaps(fs);
		if (!err)
			err = e2verity_txn_begin(fs, &own_txn);
		if (err) {
			e2v_unseal_fail(t, E2VERITY_FILES_BEGIN, 0, err);
			goto out;
		}
		txn = own_txn;
	}
	/* one transaction: every file is unsealed, or none */
	for (size_t i = 0; i < count && !(opts->cancel && *opts->cancel); i++) {
		blk64_t freed;

		if (!todo[i])
			continue;
		err = e2verity_unseal_inode_with(fs, inos[i], owners, &freed);
		if (err) {
			e2v_unseal_fail(t, E2VERITY_FILES_WRITE, i, err);
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
			err = e2v_unseal_fail(t, E2VERITY_FILES_COMMIT, 0, err2);
	}
	e2verity_owners_free(own_owners);
	free(todo);
	return err;
}
