// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_unseal.c - `e2verity unseal`: remove fs-verity from files of an unmounted image */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

/* unseal's command line is the one it shares with seal */
static int e2v_unseal_parse(const struct e2v_command *cmd, int argc, char *argv[],
			    struct e2v_write_args *c)
{
	static const struct option longopts[] = {
		E2V_SELECT_LONG_OPTIONS,
		E2V_WRITE_LONG_OPTIONS,
		E2V_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	static const int repeatable[] = { E2V_SELECT_REPEATABLE, 0 };
	struct e2v_getopt g;
	int opt, r;

	e2v_getopt_init(&g, cmd, argc, argv, E2V_WRITE_SHORTOPTS, longopts);
	g.repeatable = repeatable;
	while ((opt = e2v_getopt(&g)) != -1) {
		r = e2v_parse_write_option(opt, optarg, c);
		if (r < 0)
			return e2v_usage_error(cmd, "out of memory");
		if (r == 0)
			return g.status ? g.status : e2v_usage_error(cmd, NULL);
	}
	return e2v_write_args_finish(cmd, argc, argv, c);
}

/* what unseal says of each file, as the library judges and unseals them */
struct e2v_unseal_ctx {
	const struct e2v_write_args *c;
	ext2_filsys fs;
	const struct e2v_selection *sel;
};

/*
 * A file that cannot be unsealed stops the run, one that is not sealed is
 * skipped with a note (as seal skips a sealed one).
 */
static errcode_t e2v_unseal_judged(void *ctx, size_t i, errcode_t err)
{
	const struct e2v_unseal_ctx *u = ctx;
	const struct e2v_target *t = &u->sel->v[i];

	if (err == E2VERITY_ET_NOT_SEALED) {
		/* -a and -r meet unsealed files by the thousand: a note only with -v */
		if (!u->c->quiet && (!t->walked || u->c->verbose))
			fprintf(stderr, "%s: '%s' is not sealed; skipped\n", e2v_prog,
				e2v_name(t->path));
	} else if (err) {
		e2v_error(err, "while unsealing '%s'%s", e2v_name(t->path),
			  err == E2VERITY_ET_NOT_REGULAR ? e2v_file_kind(u->fs, t->ino) : "");
	} else if (u->c->dry_run && !u->c->quiet) {
		printf("unseal %s\n", e2v_name(t->path));
	}
	return 0;
}

static void e2v_unseal_written(void *ctx, size_t i, blk64_t freed)
{
	const struct e2v_unseal_ctx *u = ctx;

	if (u->c->verbose)
		printf("unsealed %s: %llu blocks freed\n", e2v_name(u->sel->v[i].path),
		       (unsigned long long)freed);
}

int cmd_unseal(const struct e2v_command *cmd, int argc, char *argv[])
{
	struct e2v_write_args c = { 0 };
	struct e2v_selection sel = { 0 };
	struct e2v_image img = { 0 };
	struct e2verity_unseal_opts opts = { 0 };
	struct e2verity_files_totals tot;
	struct e2v_unseal_ctx u;
	ext2_ino_t *inos = NULL;
	int status;
	errcode_t err;

	status = e2v_unseal_parse(cmd, argc, argv, &c);
	if (status != E2V_EXIT_OK)
		goto out;
	e2v_catch_signals();
	status = E2V_EXIT_FAILURE;
	/* a dry run is a pre-flight: nothing is written */
	err = e2v_write_image_open(&img, &c, c.dry_run);
	if (err) {
		e2v_image_report(&img, err);
		goto out;
	}
	status = e2v_select_run(&sel, img.fs, c.image, "unseals", &c.sel, c.verbose);
	if (status != E2V_EXIT_OK)
		goto out;
	inos = e2v_select_inos(&sel);
	if (!inos) {
		e2v_error(ENOMEM, "while checking '%s'", e2v_name(c.image));
		status = E2V_EXIT_FAILURE;
		goto out;
	}
	u.c = &c;
	u.fs = img.fs;
	u.sel = &sel;
	opts.judged = e2v_unseal_judged;
	opts.written = e2v_unseal_written;
	opts.ctx = &u;
	opts.cancel = &e2v_cancel;
	/* a selection that failed is judged whole, written not at all */
	if (c.dry_run || sel.errors)
		opts.flags |= E2VERITY_UNSEAL_CHECK_ONLY;
	err = e2verity_unseal_files(img.fs, img.txn, inos, sel.n, &opts, &tot);
	if (tot.refused || sel.errors) {
		status = E2V_EXIT_FAILURE;
	} else if (err == E2VERITY_ET_CANCELLED) {
		fprintf(stderr, "%s: %s: nothing unsealed\n", e2v_prog, strsignal(e2v_cancel));
		status = 128 + e2v_cancel;
	} else if (err && tot.step == E2VERITY_FILES_SCAN) {
		e2v_error(err, "while reading the block maps of '%s'", e2v_name(c.image));
		status = E2V_EXIT_FAILURE;
	} else if (err && tot.step == E2VERITY_FILES_WRITE) {
		e2v_error(err, "while unsealing '%s' in '%s'", e2v_name(sel.v[tot.index].path),
			  e2v_name(c.image));
		status = E2V_EXIT_FAILURE;
	} else if (err) {
		e2v_error(err, "while committing to '%s'", c.image);
		status = E2V_EXIT_FAILURE;
	}
out:
	if (status != E2V_EXIT_OK)
		e2v_image_abandon(&img);
	err = e2v_image_close(&img);
	if (err && status == E2V_EXIT_OK) {
		e2v_image_report(&img, err);
		status = E2V_EXIT_FAILURE;
	}
	if (e2v_flush_stdout() && status == E2V_EXIT_OK)
		status = E2V_EXIT_FAILURE;
	if (sel.seen)
		e2v_select_free(&sel);
	free(inos);
	e2v_write_args_free(&c);
	return status;
}
