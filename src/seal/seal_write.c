// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_write.c - seal's writing phase: files sealed in transactions, reported once committed */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal_write.h"
#include "cli/cancel.h"
#include "cli/util.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cmd/select.h"
#include "image/image.h"
#include "output/names.h"
#include "seal/seal_output.h"
#include "seal/seal_run.h"

static void cli_seal_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct cli_seal_run *c = ctx;

	(void)total; /* the bar's total was set by cli_progress_total() */
	cli_progress_bytes(&c->bar, done, c->current);
}

/* the file about to be sealed: the signing callbacks find its values by its index */
static void cli_seal_begin(void *ctx, size_t i)
{
	struct cli_seal_run *c = ctx;

	c->index = i;
	c->current = c->sel->v[i].path;
}

/* empty files and skipped ones move the progress too */
static void cli_seal_written(void *ctx, size_t i, const struct e2verity_seal_result *res)
{
	struct cli_seal_run *c = ctx;

	/* a file re-signed is not hashed */
	cli_progress_file(&c->bar,
			  res->action == E2VERITY_SEAL_NEW || res->action == E2VERITY_SEAL_RESEAL
				  ? c->plans[i].data_size
				  : 0,
			  c->current);
}

/* a file's transaction committed: only now is it reported as sealed */
static errcode_t cli_seal_committed(void *ctx, size_t i, const struct e2verity_seal_result *res)
{
	struct cli_seal_run *c = ctx;

	/* what is printed next is not drawn over */
	cli_progress_clear(&c->bar);
	/* cli_seal_manifest_add() says what failed */
	return cli_seal_report(c, &c->sel->v[i], &c->plans[i], res, c->blocksize);
}

/* The writing phase; the pre-flight has passed. */
int cli_seal_write(struct cli_seal_run *c, const struct cli_selection *sel,
		   const struct cli_seal_rec *plans)
{
	const struct e2verity_seal_files_cb cb = {
		.begin = cli_seal_begin,
		.written = cli_seal_written,
		.committed = cli_seal_committed,
		.ctx = c,
	};
	struct e2verity_files_totals tot = { 0 };
	struct cli_image img;
	ext2_ino_t *inos = NULL;
	int status = CLI_EXIT_OK;
	errcode_t err;

	inos = cli_select_inos(sel);
	if (!inos) {
		cli_error(ENOMEM, "while sealing files of '%s'", cli_name(c->w.image));
		return CLI_EXIT_FAILURE;
	}
	err = cli_write_image_open(&img, &c->w, 0);
	if (err) {
		cli_image_report(&img, err);
		cli_image_abandon(&img);
		cli_image_close(&img);
		free(inos);
		return CLI_EXIT_FAILURE;
	}
	if (cli_progress_active(&c->bar)) {
		c->opts.progress = cli_seal_progress;
		c->opts.progress_ctx = c;
	}
	c->opts.cancel = &cli_cancel;
	c->sel = sel;
	c->plans = plans;
	c->blocksize = img.fs->blocksize;
	c->total = sel->n;
	if (cli_progress_active(&c->bar)) {
		uint64_t bytes = 0;

		for (size_t i = 0; i < sel->n; i++)
			if (plans[i].action == E2VERITY_SEAL_NEW ||
			    plans[i].action == E2VERITY_SEAL_RESEAL)
				bytes += plans[i].data_size;
		cli_progress_total(&c->bar, sel->n, bytes);
	}
	/* preflight, commit policy, hashing threads and files hashed ahead: the library's */
	/* the pre-flight ran on the read-only handle and kept only records */
	c->opts.flags |= E2VERITY_SEAL_JUDGED;
	err = e2verity_seal_files(img.fs, img.txn, inos, sel->n, &c->opts, NULL, &cb, &tot);
	c->opts.flags &= ~E2VERITY_SEAL_JUDGED;
	cli_progress_clear(&c->bar);
	switch (err ? tot.step : E2VERITY_FILES_OK) {
	case E2VERITY_FILES_OK:
		break;
	case E2VERITY_FILES_SCAN:
		cli_error(err, "while reading the block maps of '%s'", cli_name(c->w.image));
		break;
	case E2VERITY_FILES_THREADS:
		cli_error(err, "while starting hashing threads for '%s'", cli_name(c->w.image));
		break;
	case E2VERITY_FILES_WRITE:
		if (err != E2VERITY_ET_CANCELLED)
			cli_error(err, "while sealing '%s' in '%s'%s",
				  cli_name(sel->v[tot.index].path), cli_name(c->w.image),
				  cli_log_detail(err));
		break;
	case E2VERITY_FILES_COMMIT:
		cli_error(err, "while committing to '%s'", cli_name(img.name));
		break;
	case E2VERITY_FILES_CALLBACK: /* said by the callback */
		break;
	default:
		cli_error(err, "while sealing files of '%s'", cli_name(c->w.image));
		break;
	}
	if (err) {
		/* the image keeps its last commit: the files since then are not sealed */
		if (tot.aborted)
			cli_image_abandon(&img);
		status = CLI_EXIT_FAILURE;
	}
	if (cli_cancel)
		status = 128 + cli_cancel;
	/* the files sealed before this run are not counted as its work */
	if (status != CLI_EXIT_OK && !c->w.quiet && tot.skipped)
		fprintf(stderr, "%s: %s: %zu of %zu file%s sealed, %zu skipped (sealed already)\n",
			cli_prog, cli_cancel ? strsignal(cli_cancel) : "stopped", tot.done, sel->n,
			cli_s(sel->n), tot.skipped);
	else if (status != CLI_EXIT_OK && !c->w.quiet)
		fprintf(stderr, "%s: %s: %zu of %zu file%s sealed\n", cli_prog,
			cli_cancel ? strsignal(cli_cancel) : "stopped", tot.done, sel->n,
			cli_s(sel->n));
	c->sel = NULL;
	c->plans = NULL;
	free(inos);
	err = cli_image_close(&img);
	if (err) {
		cli_error(err, "while %s '%s'", img.doing, cli_name(img.what));
		status = status == CLI_EXIT_OK ? CLI_EXIT_FAILURE : status;
	}
	return status;
}
