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

/* the file about to be sealed: the signing callbacks find its values by its index */
static void e2v_seal_begin(void *ctx, size_t i)
{
	struct e2v_seal_cli *c = ctx;

	c->index = i;
	c->current = c->sel->v[i].path;
}

/* empty files and skipped ones move the progress too */
static void e2v_seal_written(void *ctx, size_t i, const struct e2verity_seal_result *res)
{
	struct e2v_seal_cli *c = ctx;

	e2v_progress_file(&c->bar, res->action == E2VERITY_SEAL_SKIP ? 0 : c->plans[i].data_size,
			  c->current);
}

/* a file's transaction committed: only now is it reported as sealed */
static errcode_t e2v_seal_committed(void *ctx, size_t i, const struct e2verity_seal_result *res)
{
	struct e2v_seal_cli *c = ctx;

	/* what is printed next is not drawn over */
	e2v_progress_clear(&c->bar);
	/* e2v_seal_manifest_add() says what failed */
	return e2v_seal_report(c, &c->sel->v[i], res, c->blocksize);
}

/* The writing phase; the pre-flight has passed. */
int e2v_seal_write(struct e2v_seal_cli *c, const struct e2v_selection *sel,
		   const struct e2v_seal_rec *plans)
{
	const struct e2verity_seal_files_cb cb = {
		.begin = e2v_seal_begin,
		.written = e2v_seal_written,
		.committed = e2v_seal_committed,
		.ctx = c,
	};
	struct e2verity_files_totals tot = { 0 };
	struct e2v_image img;
	ext2_ino_t *inos = NULL;
	int status = E2V_EXIT_OK;
	errcode_t err;

	inos = e2v_select_inos(sel);
	if (!inos) {
		e2v_error(ENOMEM, "while sealing files of '%s'", e2v_name(c->w.image));
		return E2V_EXIT_FAILURE;
	}
	err = e2v_write_image_open(&img, &c->w, 0);
	if (err) {
		e2v_image_report(&img, err);
		e2v_image_abandon(&img);
		e2v_image_close(&img);
		free(inos);
		return E2V_EXIT_FAILURE;
	}
	if (e2v_progress_active(&c->bar)) {
		c->opts.progress = e2v_seal_progress;
		c->opts.progress_ctx = c;
	}
	c->opts.cancel = &e2v_cancel;
	c->sel = sel;
	c->plans = plans;
	c->blocksize = img.fs->blocksize;
	c->total = sel->n;
	if (e2v_progress_active(&c->bar)) {
		uint64_t bytes = 0;

		for (size_t i = 0; i < sel->n; i++)
			if (plans[i].action != E2VERITY_SEAL_SKIP)
				bytes += plans[i].data_size;
		e2v_progress_total(&c->bar, sel->n, bytes);
	}
	/* preflight, commit policy, hashing threads and files hashed ahead: the library's */
	/* the pre-flight ran on the read-only handle and kept only records */
	c->opts.flags |= E2VERITY_SEAL_JUDGED;
	err = e2verity_seal_files(img.fs, img.txn, inos, sel->n, &c->opts, NULL, &cb, &tot);
	c->opts.flags &= ~E2VERITY_SEAL_JUDGED;
	e2v_progress_clear(&c->bar);
	switch (err ? tot.step : E2VERITY_FILES_OK) {
	case E2VERITY_FILES_OK:
		break;
	case E2VERITY_FILES_SCAN:
		e2v_error(err, "while reading the block maps of '%s'", e2v_name(c->w.image));
		break;
	case E2VERITY_FILES_THREADS:
		e2v_error(err, "while starting hashing threads for '%s'", e2v_name(c->w.image));
		break;
	case E2VERITY_FILES_WRITE:
		if (err != E2VERITY_ET_CANCELLED)
			e2v_error(err, "while sealing '%s' in '%s'",
				  e2v_name(sel->v[tot.index].path), e2v_name(c->w.image));
		break;
	case E2VERITY_FILES_COMMIT:
		e2v_error(err, "while committing to '%s'", e2v_name(img.name));
		break;
	case E2VERITY_FILES_CALLBACK: /* said by the callback */
		break;
	default:
		e2v_error(err, "while sealing files of '%s'", e2v_name(c->w.image));
		break;
	}
	if (err) {
		/* the image keeps its last commit: the files since then are not sealed */
		if (tot.aborted)
			e2v_image_abandon(&img);
		status = E2V_EXIT_FAILURE;
	}
	if (e2v_cancel)
		status = 128 + e2v_cancel;
	/* the files sealed before this run are not counted as its work */
	if (status != E2V_EXIT_OK && !c->w.quiet && tot.skipped)
		fprintf(stderr, "%s: %s: %zu of %zu files sealed, %zu skipped (sealed already)\n",
			e2v_prog, e2v_cancel ? strsignal(e2v_cancel) : "stopped", tot.done, sel->n,
			tot.skipped);
	else if (status != E2V_EXIT_OK && !c->w.quiet)
		fprintf(stderr, "%s: %s: %zu of %zu files sealed\n", e2v_prog,
			e2v_cancel ? strsignal(e2v_cancel) : "stopped", tot.done, sel->n);
	c->sel = NULL;
	c->plans = NULL;
	free(inos);
	err = e2v_image_close(&img);
	if (err) {
		e2v_error(err, "while %s '%s'", img.doing, e2v_name(img.what));
		status = status == E2V_EXIT_OK ? E2V_EXIT_FAILURE : status;
	}
	return status;
}
