/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select.h - which files of an image a command works on; the command line seal and unseal share */
#ifndef E2VERITY_SELECT_H
#define E2VERITY_SELECT_H

#include "cli/cli.h"
#include "image/image.h"
#include "image/same_file.h"

struct cli_target {
	char *path; /* absolute, inside the image */
	ext2_ino_t ino;
	int walked; /* found by -a or -r, not named */
};

struct cli_selection {
	ext2_filsys fs;
	const char *image; /* its name, for messages */
	const char *verb;  /* what -r does, for messages: "seals" */
	struct cli_target *v;
	size_t n, cap;
	ext2fs_inode_bitmap seen; /* each inode once, even with several names */
	const char **excludes;	  /* globs */
	size_t nexcludes;
	int recursive;		  /* -r: a directory stands for the regular files under it */
	int all_names;		  /* every name of a hard-linked file, not the first only */
	int keep_links;		  /* without all_names: the further names go to @links */
	struct cli_target *links; /* the names of files already in @v, in the order met */
	size_t nlinks, caplinks;
	ext2fs_inode_bitmap only; /* when set: only these inodes are selected */
	int verbose;
	unsigned int errors; /* paths that could not be selected (each reported) */
	errcode_t walk_err;  /* what stopped the walk of a directory (ENOMEM) */
};

errcode_t cli_select_init(struct cli_selection *s, ext2_filsys fs, const char *image);
void cli_select_free(struct cli_selection *s);
/* The inodes of the selection, in its order, for the library's drivers (malloc()ed), or NULL. */
ext2_ino_t *cli_select_inos(const struct cli_selection *s);

/* 1 if an --exclude glob matches @path (the whole path, or its last part for globs without '/') */
int cli_select_excluded(const struct cli_selection *s, const char *path);

/*
 * Adds one named path.  A directory needs -r; anything else is added and
 * judged later by the command.  Problems are reported and counted in
 * s->errors; the return value is only for errors that stop the selection,
 * reported too except ENOMEM.
 */
errcode_t cli_select_path(struct cli_selection *s, const char *path);
/* Adds every regular file of the filesystem (-a). */
errcode_t cli_select_all(struct cli_selection *s);

/* what a command line asks for: PATHs, -r, -a, --files-from (-0), --exclude */
struct cli_select_args {
	char **paths;
	int npaths;
	const char **files_from;
	size_t nfiles_from;
	const char **excludes;
	size_t nexcludes;
	int recursive, all, null;
	int keep_links; /* not an option: the command lists every name (cli_selection) */
};

/* clang-format off */
#define CLI_SELECT_LONG_OPTIONS                                                                    \
	{ "all", no_argument, NULL, 'a' },                                                         \
	{ "files-from", required_argument, NULL, OPT_FILES_FROM },                                 \
	{ "null", no_argument, NULL, '0' },                                                        \
	{ "exclude", required_argument, NULL, OPT_EXCLUDE }
/* clang-format on */

/* the selection options that may be given more than once */
#define CLI_SELECT_REPEATABLE OPT_FILES_FROM, OPT_EXCLUDE

/*
 * What seal and unseal share on their command lines: IMAGE, the selection,
 * and how the run writes (-n, -q, -v, -z, --force).  One parser, so that the
 * two commands cannot drift apart in what these options mean.
 */
struct cli_write_args {
	const char *image;
	struct cli_select_args sel;
	const char *undo_file; /* -z */
	int dry_run, quiet, verbose, force;
};

/* the short options of cli_write_args (the selection's among them) */
#define CLI_WRITE_SHORTOPTS "ra0nqvz:"

/* clang-format off */
#define CLI_WRITE_LONG_OPTIONS                                                                     \
	{ "dry-run", no_argument, NULL, 'n' },                                                     \
	{ "quiet", no_argument, NULL, 'q' },                                                       \
	{ "verbose", no_argument, NULL, 'v' },                                                     \
	{ "force", no_argument, NULL, OPT_FORCE }
/* clang-format on */

/* 1 if @opt was one of these or a selection option (stored in @w), 0 if not, -1 out of memory */
int cli_parse_write_option(int opt, const char *arg, struct cli_write_args *w);
/*
 * After the options: cli_select_args_finish(), then the combinations refused
 * (-z with -n).  Returns 0, or the usage status after saying what is wrong.
 */
int cli_write_args_finish(const struct cli_command *cmd, int argc, char *argv[],
			  struct cli_write_args *w);
void cli_write_args_free(struct cli_write_args *w);
/*
 * The files of @w for cli_names_check(): the image (written unless a dry
 * run), each --files-from list, the undo file (-z).  The command adds its own.
 */
void cli_write_args_names(const struct cli_write_args *w, struct cli_names *l);
/*
 * Opens w->image as seal and unseal do: for writing, with the undo file (-z),
 * or with @preflight read-only, judged as for writing (a shared lock in a dry
 * run); --force and -q as given.
 */
errcode_t cli_write_image_open(struct cli_image *img, const struct cli_write_args *w,
			       int preflight);

/*
 * Resolves what @a asks for in @fs.  Paths that cannot be selected are
 * reported and counted in sel->errors, so that the command still judges the
 * others and names every offending file in one run.  @verb says what -r does
 * ("seals").  Returns CLI_EXIT_OK unless the selection cannot go on
 * (reported); sel is to be freed with cli_select_free() either way.
 */
int cli_select_run(struct cli_selection *sel, ext2_filsys fs, const char *image, const char *verb,
		   const struct cli_select_args *a, int verbose);
/*
 * With keep_links, after cli_select_run(): the further names of inode @ino,
 * sorted (*@n of them from the returned one; NULL when none).
 */
const struct cli_target *cli_select_links(const struct cli_selection *sel, ext2_ino_t ino,
					  size_t *n);

#endif /* E2VERITY_SELECT_H */
