// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_write.c - seal's writing phase: files sealed in transactions, reported once committed */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal_cli.h"

static void e2v_seal_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct e2v_seal_cli *c = ctx;

	e2v_progress_bytes(&c->bar, done, c->current);
}

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

/* what the files sealed in the open transaction will print once it commits */
struct e2v_seal_pending {
	size_t index;
	struct e2verity_seal_result res;
};

struct e2v_seal_run {
	struct e2v_seal_pending *pending;
	size_t npending;
	size_t sealed;	/* committed */
	size_t skipped; /* committed, and sealed already before this run */
	uint64_t bytes; /* hashed since the last commit */
};

/* Commits the open transaction; only then are its files reported as sealed. */
static errcode_t e2v_seal_commit(struct e2v_seal_cli *c, const struct e2v_selection *sel,
				 struct e2v_image *img, struct e2v_seal_run *run)
{
	errcode_t err;

	/* what is printed next is not drawn over */
	e2v_progress_clear(&c->bar);
	err = e2v_image_commit(img);
	if (err) {
		e2v_error(err, "while %s '%s'", img->doing, e2v_name(img->what));
		return err;
	}
	/* e2v_seal_manifest_add() says what failed */
	for (size_t i = 0; i < run->npending; i++) {
		if (run->pending[i].res.action == E2VERITY_SEAL_SKIP)
			run->skipped++;
		else
			run->sealed++;
		if (!err)
			err = e2v_seal_report(c, &sel->v[run->pending[i].index],
					      &run->pending[i].res, img->fs->blocksize);
	}
	run->npending = 0;
	run->bytes = 0;
	return err;
}

/* The writing phase; the pre-flight has passed. */
int e2v_seal_write(struct e2v_seal_cli *c, const struct e2v_selection *sel,
		   const struct e2verity_seal_plan *plans)
{
	struct e2v_seal_run run = { 0 };
	struct e2verity_owners *owners = NULL;
	struct e2v_image img;
	ext2_ino_t *inos = NULL;
	int status = E2V_EXIT_OK;
	errcode_t err;

	run.pending = calloc(sel->n, sizeof(*run.pending));
	if (!run.pending) {
		e2v_error(ENOMEM, "while sealing files of '%s'", e2v_name(c->w.image));
		return E2V_EXIT_FAILURE;
	}
	err = e2v_write_image_open(&img, &c->w, 0);
	if (err) {
		e2v_image_report(&img, err);
		e2v_image_abandon(&img);
		e2v_image_close(&img);
		free(run.pending);
		return E2V_EXIT_FAILURE;
	}
	if (e2v_progress_active(&c->bar)) {
		c->opts.progress = e2v_seal_progress;
		c->opts.progress_ctx = c;
	}
	c->opts.cancel = &e2v_cancel;
	/* what each seal writes into must be its file's alone: one scan of every inode proves it */
	err = e2verity_owners_scan(img.fs, &owners);
	if (err) {
		e2v_error(err, "while reading the block maps of '%s'", e2v_name(c->w.image));
		status = E2V_EXIT_FAILURE;
		goto out;
	}
	c->opts.owners = owners;
	/* one set of hashing threads for all the files */
	if (e2v_seal_workers_start(c)) {
		status = E2V_EXIT_FAILURE;
		goto out;
	}
	/* the small files are hashed a few files ahead while this thread writes */
	inos = malloc(sel->n * sizeof(*inos));
	if (inos) {
		for (size_t i = 0; i < sel->n; i++)
			inos[i] = sel->v[i].ino;
		err = e2verity_seal_batch_new(img.fs, &c->opts, inos, sel->n, &c->opts.batch);
		if (err) {
			e2v_error(err, "while starting hashing threads for '%s'",
				  e2v_name(c->w.image));
			status = E2V_EXIT_FAILURE;
			goto out;
		}
	}
	c->total = sel->n;
	if (e2v_progress_active(&c->bar)) {
		uint64_t bytes = 0;

		for (size_t i = 0; i < sel->n; i++)
			if (plans[i].action != E2VERITY_SEAL_SKIP)
				bytes += plans[i].data_size;
		e2v_progress_total(&c->bar, sel->n, bytes);
	}
	err = 0;
	for (size_t i = 0; i < sel->n && !e2v_cancel; i++) {
		struct e2v_seal_pending *p;

		if (run.npending && plans[i].data_size >= E2V_TXN_BIG_FILE) {
			err = e2v_seal_commit(c, sel, &img, &run);
			if (err)
				break;
		}
		p = &run.pending[run.npending];
		c->index = i;
		c->current = sel->v[i].path;
		p->index = i;
		err = e2verity_seal_inode(img.fs, sel->v[i].ino, &c->opts, &p->res);
		if (err) {
			e2v_progress_clear(&c->bar);
			if (err != E2VERITY_ET_CANCELLED)
				e2v_error(err, "while sealing '%s' in '%s'",
					  e2v_name(sel->v[i].path), e2v_name(c->w.image));
			break;
		}
		run.npending++;
		if (p->res.action != E2VERITY_SEAL_SKIP)
			run.bytes += p->res.desc.data_size;
		/* empty files and skipped ones move the progress too */
		if (p->res.action == E2VERITY_SEAL_SKIP)
			e2v_progress_file(&c->bar, 0, c->current);
		else
			e2v_progress_file(&c->bar, plans[i].data_size, c->current);
		if (run.bytes >= E2V_TXN_MAX_BYTES || run.npending >= E2V_TXN_MAX_FILES ||
		    e2verity_txn_room(img.txn) < E2V_TXN_MIN_ROOM) {
			err = e2v_seal_commit(c, sel, &img, &run);
			if (err)
				break;
		}
	}
	/* a stop between files keeps the files done; a stop inside one drops the transaction */
	if (!err)
		err = e2v_seal_commit(c, sel, &img, &run);
	if (err) {
		/* the image keeps its last commit: the files since then are not sealed */
		e2v_image_abandon(&img);
		status = E2V_EXIT_FAILURE;
	}
	if (e2v_cancel)
		status = 128 + e2v_cancel;
	/* the files sealed before this run are not counted as its work */
	if (status != E2V_EXIT_OK && !c->w.quiet && run.skipped)
		fprintf(stderr, "%s: %s: %zu of %zu files sealed, %zu skipped (sealed already)\n",
			e2v_prog, e2v_cancel ? strsignal(e2v_cancel) : "stopped", run.sealed,
			sel->n, run.skipped);
	else if (status != E2V_EXIT_OK && !c->w.quiet)
		fprintf(stderr, "%s: %s: %zu of %zu files sealed\n", e2v_prog,
			e2v_cancel ? strsignal(e2v_cancel) : "stopped", run.sealed, sel->n);
out:
	e2verity_batch_free(c->opts.batch);
	c->opts.batch = NULL;
	c->opts.owners = NULL;
	e2verity_owners_free(owners);
	free(inos);
	e2v_seal_workers_stop(c);
	err = e2v_image_close(&img);
	if (err) {
		e2v_error(err, "while %s '%s'", img.doing, e2v_name(img.what));
		status = status == E2V_EXIT_OK ? E2V_EXIT_FAILURE : status;
	}
	free(run.pending);
	return status;
}
