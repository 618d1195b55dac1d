// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_unseal.c - `e2verity unseal`: remove fs-verity from files of an unmounted image */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_unseal.h"
#include "cli/cancel.h"
#include "cli/util.h"
#include "cli/cli.h"
#include "cmd/select.h"
#include "image/image.h"
#include "image/same_file.h"
#include "output/names.h"

/* unseal's command line is the one it shares with seal */
static int cli_unseal_parse(const struct cli_command *cmd, int argc, char *argv[],
			    struct cli_write_args *c)
{
	static const struct option longopts[] = {
		CLI_SELECT_LONG_OPTIONS,
		CLI_WRITE_LONG_OPTIONS,
		CLI_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	static const int repeatable[] = { CLI_SELECT_REPEATABLE, 0 };
	struct cli_names names = { 0 };
	struct cli_getopt g;
	int opt, r;

	cli_getopt_init(&g, cmd, argc, argv, CLI_WRITE_SHORTOPTS, longopts);
	g.repeatable = repeatable;
	while ((opt = cli_getopt(&g)) != -1) {
		r = cli_parse_write_option(opt, optarg, c);
		if (r < 0)
			return cli_usage_error(cmd, "out of memory");
		if (r == 0)
			return g.status ? g.status : cli_usage_error(cmd, NULL);
	}
	r = cli_write_args_finish(cmd, argc, argv, c);
	if (r)
		return r;
	/* the undo file and the lists are neither the image nor each other */
	cli_write_args_names(c, &names);
	return cli_names_check(cmd, &names);
}

/* what unseal says of each file, as the library judges and unseals them */
struct cli_unseal_ctx {
	const struct cli_write_args *c;
	ext2_filsys fs;
	const struct cli_selection *sel;
};

/*
 * A file that cannot be unsealed stops the run, one that is not sealed is
 * skipped with a note (as seal skips a sealed one).
 */
static errcode_t cli_unseal_judged(void *ctx, size_t i, errcode_t err)
{
	const struct cli_unseal_ctx *u = ctx;
	const struct cli_target *t = &u->sel->v[i];

	if (err == E2VERITY_ET_NOT_SEALED) {
		/* -a and -r meet unsealed files by the thousand: a note only with -v */
		if (!u->c->quiet && (!t->walked || u->c->verbose))
			fprintf(stderr, "%s: '%s' is not sealed; skipped\n", cli_prog,
				cli_name(t->path));
	} else if (err) {
		cli_error(err, "while unsealing '%s'%s", cli_name(t->path),
			  err == E2VERITY_ET_NOT_REGULAR ? cli_file_kind(u->fs, t->ino)
							 : cli_log_detail(err));
	} else if (u->c->dry_run && !u->c->quiet) {
		printf("unseal %s\n", cli_name(t->path));
	}
	return 0;
}

static void cli_unseal_written(void *ctx, size_t i, blk64_t freed)
{
	const struct cli_unseal_ctx *u = ctx;

	if (u->c->verbose)
		printf("unsealed %s: %llu block%s freed\n", cli_name(u->sel->v[i].path),
		       (unsigned long long)freed, cli_s(freed));
}

int cmd_unseal(const struct cli_command *cmd, int argc, char *argv[])
{
	struct cli_write_args c = { 0 };
	struct cli_selection sel = { 0 };
	struct cli_image img = { 0 };
	struct e2verity_unseal_opts opts = { 0 };
	struct e2verity_files_totals tot;
	struct cli_unseal_ctx u;
	ext2_ino_t *inos = NULL;
	int status;
	errcode_t err;

	status = cli_unseal_parse(cmd, argc, argv, &c);
	if (status != CLI_EXIT_OK)
		goto out;
	cli_catch_signals();
	status = CLI_EXIT_FAILURE;
	/* a dry run is a pre-flight: nothing is written */
	err = cli_write_image_open(&img, &c, c.dry_run);
	if (err) {
		cli_image_report(&img, err);
		goto out;
	}
	status = cli_select_run(&sel, img.fs, c.image, "unseals", &c.sel, c.verbose);
	if (status != CLI_EXIT_OK)
		goto out;
	inos = cli_select_inos(&sel);
	if (!inos) {
		cli_error(ENOMEM, "while checking '%s'", cli_name(c.image));
		status = CLI_EXIT_FAILURE;
		goto out;
	}
	u.c = &c;
	u.fs = img.fs;
	u.sel = &sel;
	opts.judged = cli_unseal_judged;
	opts.written = cli_unseal_written;
	opts.ctx = &u;
	opts.cancel = &cli_cancel;
	/* a selection that failed is judged whole, written not at all */
	if (c.dry_run || sel.errors)
		opts.flags |= E2VERITY_UNSEAL_CHECK_ONLY;
	/* the library names the blocks and inodes of a refusal in its log */
	cli_log_listen();
	err = e2verity_unseal_files(img.fs, img.txn, inos, sel.n, &opts, &tot);
	if (tot.refused || sel.errors) {
		status = CLI_EXIT_FAILURE;
	} else if (err == E2VERITY_ET_CANCELLED) {
		fprintf(stderr, "%s: %s: nothing unsealed\n", cli_prog, strsignal(cli_cancel));
		status = 128 + cli_cancel;
	} else if (err && tot.step == E2VERITY_FILES_SCAN) {
		cli_error(err, "while reading the block maps of '%s'", cli_name(c.image));
		status = CLI_EXIT_FAILURE;
	} else if (err && tot.step == E2VERITY_FILES_WRITE) {
		cli_error(err, "while unsealing '%s' in '%s'%s", cli_name(sel.v[tot.index].path),
			  cli_name(c.image), cli_log_detail(err));
		status = CLI_EXIT_FAILURE;
	} else if (err) {
		cli_error(err, "while committing to '%s'", c.image);
		status = CLI_EXIT_FAILURE;
	}
out:
	if (status != CLI_EXIT_OK)
		cli_image_abandon(&img);
	err = cli_image_close(&img);
	if (err && status == CLI_EXIT_OK) {
		cli_image_report(&img, err);
		status = CLI_EXIT_FAILURE;
	}
	if (cli_flush_stdout() && status == CLI_EXIT_OK)
		status = CLI_EXIT_FAILURE;
	if (sel.seen)
		cli_select_free(&sel);
	free(inos);
	cli_write_args_free(&c);
	return status;
}
