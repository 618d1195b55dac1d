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

/*
 * Every file is judged before anything is written: a file that cannot be
 * unsealed stops the run, one that is not sealed is skipped with a note (as
 * seal skips a sealed one).  @todo marks the files to unseal.
 */
static int e2v_unseal_preflight(const struct e2v_write_args *c, ext2_filsys fs,
				const struct e2verity_owners *owners,
				const struct e2v_selection *sel, char *todo, size_t *ntodo)
{
	unsigned int bad = 0;

	*ntodo = 0;
	for (size_t i = 0; i < sel->n; i++) {
		errcode_t err;

		todo[i] = 0;
		err = e2verity_unseal_check(fs, sel->v[i].ino, owners);
		if (err == E2VERITY_ET_NOT_SEALED) {
			/* -a and -r meet unsealed files by the thousand: a note only with -v */
			if (!c->quiet && (!sel->v[i].walked || c->verbose))
				fprintf(stderr, "%s: '%s' is not sealed; skipped\n", e2v_prog,
					e2v_name(sel->v[i].path));
			continue;
		}
		if (err) {
			e2v_error(err, "while unsealing '%s'%s", e2v_name(sel->v[i].path),
				  err == E2VERITY_ET_NOT_REGULAR ? e2v_file_kind(fs, sel->v[i].ino)
								 : "");
			bad++;
			continue;
		}
		todo[i] = 1;
		(*ntodo)++;
		if (c->dry_run && !c->quiet)
			printf("unseal %s\n", e2v_name(sel->v[i].path));
	}
	return bad || sel->errors ? E2V_EXIT_FAILURE : E2V_EXIT_OK;
}

/*
 * Once no inode carries the verity flag, the feature goes too (tune2fs cannot
 * clear it).  In a commit of its own, after the inodes': a flagged inode on a
 * filesystem without the feature would not be measured by the kernel.
 */
static int e2v_unseal_feature(struct e2v_image *img, const char *image)
{
	ext2_ino_t *inos = NULL;
	size_t n = 0;
	errcode_t err;

	if (!ext2fs_has_feature_verity(img->fs->super))
		return E2V_EXIT_OK;
	err = e2v_image_commit(img);
	if (!err)
		err = e2verity_list_verity_inodes(img->fs, &inos, &n);
	free(inos);
	if (!err && !n) {
		ext2fs_clear_feature_verity(img->fs->super);
		ext2fs_mark_super_dirty(img->fs);
		err = e2v_image_commit(img);
	}
	if (err) {
		e2v_error(err, "while %s '%s'", img->doing ? img->doing : "unsealing", image);
		return E2V_EXIT_FAILURE;
	}
	return E2V_EXIT_OK;
}

int cmd_unseal(const struct e2v_command *cmd, int argc, char *argv[])
{
	struct e2v_write_args c = { 0 };
	struct e2v_selection sel = { 0 };
	struct e2v_image img = { 0 };
	struct e2verity_owners *owners = NULL;
	char *todo = NULL;
	size_t ntodo = 0;
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
	todo = calloc(sel.n ? sel.n : 1, 1);
	if (!todo) {
		e2v_error(ENOMEM, "while checking '%s'", e2v_name(c.image));
		status = E2V_EXIT_FAILURE;
		goto out;
	}
	/* one scan of every inode proves every file's blocks, not one scan per file */
	err = e2verity_owners_scan(img.fs, &owners);
	if (err) {
		e2v_error(err, "while reading the block maps of '%s'", e2v_name(c.image));
		status = E2V_EXIT_FAILURE;
		goto out;
	}
	status = e2v_unseal_preflight(&c, img.fs, owners, &sel, todo, &ntodo);
	if (status != E2V_EXIT_OK || c.dry_run || !ntodo)
		goto out;
	/* one transaction: every file is unsealed, or none */
	for (size_t i = 0; i < sel.n && !e2v_cancel; i++) {
		blk64_t freed;

		if (!todo[i])
			continue;
		err = e2verity_unseal_inode_with(img.fs, sel.v[i].ino, owners, &freed);
		if (err) {
			e2v_error(err, "while unsealing '%s' in '%s'", e2v_name(sel.v[i].path),
				  e2v_name(c.image));
			status = E2V_EXIT_FAILURE;
			break;
		}
		if (c.verbose)
			printf("unsealed %s: %llu blocks freed\n", e2v_name(sel.v[i].path),
			       (unsigned long long)freed);
	}
	if (e2v_cancel) {
		fprintf(stderr, "%s: %s: nothing unsealed\n", e2v_prog, strsignal(e2v_cancel));
		status = 128 + e2v_cancel;
	}
	if (status == E2V_EXIT_OK)
		status = e2v_unseal_feature(&img, c.image);
out:
	e2verity_owners_free(owners);
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
	free(todo);
	e2v_write_args_free(&c);
	return status;
}
