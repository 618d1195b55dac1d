// SPDX-License-Identifier: GPL-2.0-or-later
/* select.c - resolve the files a command works on inside an image, in a stable order */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/select.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "image/image.h"
#include "output/names.h"

errcode_t cli_select_init(struct cli_selection *s, ext2_filsys fs, const char *image)
{
	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->image = image;
	return ext2fs_allocate_inode_bitmap(fs, "selected inodes", &s->seen);
}

ext2_ino_t *cli_select_inos(const struct cli_selection *s)
{
	ext2_ino_t *inos = malloc((s->n ? s->n : 1) * sizeof(*inos));

	for (size_t i = 0; inos && i < s->n; i++)
		inos[i] = s->v[i].ino;
	return inos;
}

void cli_select_free(struct cli_selection *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	for (size_t i = 0; i < s->nlinks; i++)
		free(s->links[i].path);
	free(s->links);
	s->links = NULL;
	s->nlinks = s->caplinks = 0;
	if (s->seen)
		ext2fs_free_inode_bitmap(s->seen);
	s->v = NULL;
	s->n = s->cap = 0;
	s->seen = NULL;
}

int cli_select_excluded(const struct cli_selection *s, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < s->nexcludes; i++) {
		const char *glob = s->excludes[i];

		if (fnmatch(glob, path, 0) == 0)
			return 1;
		if (!strchr(glob, '/') && fnmatch(glob, base, 0) == 0)
			return 1;
	}
	return 0;
}

static errcode_t cli_select_add(struct cli_selection *s, const char *path, ext2_ino_t ino,
				int walked)
{
	if (s->only && !ext2fs_test_inode_bitmap2(s->only, ino))
		return 0;
	if (ext2fs_test_inode_bitmap2(s->seen, ino) && !s->all_names) {
		if (!s->keep_links)
			return 0;
		/* another name of a file selected already: kept for the listing */
		if (cli_grow((void **)&s->links, &s->caplinks, s->nlinks, sizeof(*s->links)))
			return ENOMEM;
		s->links[s->nlinks].path = strdup(path);
		if (!s->links[s->nlinks].path)
			return ENOMEM;
		s->links[s->nlinks].ino = ino;
		s->links[s->nlinks].walked = walked;
		s->nlinks++;
		return 0;
	}
	if (cli_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v)))
		return ENOMEM;
	s->v[s->n].path = strdup(path);
	if (!s->v[s->n].path)
		return ENOMEM;
	s->v[s->n].ino = ino;
	s->v[s->n].walked = walked;
	s->n++;
	ext2fs_mark_inode_bitmap2(s->seen, ino);
	return 0;
}

/*
 * A name that would make a path other than the entry's own ("a/../../x", or
 * one cut short at a NUL) is never joined: the file behind it is not
 * selected, and the selection fails, as for an unreadable directory.  The
 * bytes are shown escaped, '/' and NUL as \xHH.
 */
static void cli_dirent_refuse(struct cli_selection *s, const struct e2verity_walk_entry *e)
{
	char *shown = cli_escape_component(e->name, e->name_len);

	cli_error(EXT2_ET_DIR_CORRUPTED,
		  "while reading directory '%s': the entry '%s' (inode %u) is not a name a path "
		  "can hold (e2fsck -f repairs it); not followed",
		  cli_name(e->dir_path), shown ? shown : "?", e->ino);
	free(shown);
	s->errors++;
}

/* One entry of the library's walk (depth first, each directory by name): the regular files. */
static int cli_walk_entry(void *ctx, const struct e2verity_walk_entry *e)
{
	struct cli_selection *s = ctx;

	if (!e->path) {
		cli_dirent_refuse(s, e);
		return E2VERITY_WALK_NEXT;
	}
	if (e->err && e->type == EXT2_FT_UNKNOWN) {
		cli_error(e->err, "while reading the inode of '%s'", cli_name(e->path));
		s->errors++;
		return E2VERITY_WALK_NEXT;
	}
	/* a directory the walk could not read (the one it started from included) */
	if (e->err && !e->dir_path) {
		cli_error(e->err, "while reading directory '%s'", cli_name(e->path));
		s->errors++;
		return E2VERITY_WALK_NEXT;
	}
	if (cli_select_excluded(s, e->path)) {
		if (s->verbose)
			fprintf(stderr, "%s: excluded '%s'\n", cli_prog, cli_name(e->path));
		return E2VERITY_WALK_SKIP;
	}
	if (e->err) {
		cli_error(e->err, "while reading directory '%s'", cli_name(e->path));
		s->errors++;
	} else if (e->type == EXT2_FT_REG_FILE) {
		s->walk_err = cli_select_add(s, e->path, e->ino, 1);
		if (s->walk_err)
			return E2VERITY_WALK_STOP;
	}
	return E2VERITY_WALK_NEXT;
}

/* Adds the regular files under directory @dir, as e2verity_walk() meets them. */
static errcode_t cli_walk_from(struct cli_selection *s, const char *path, ext2_ino_t dir)
{
	errcode_t err;

	s->walk_err = 0;
	err = e2verity_walk(s->fs, dir, path, cli_walk_entry, s);
	if (err == E2VERITY_ET_NO_MEMORY)
		return ENOMEM; /* reported by the caller, as any other ENOMEM of the selection */
	if (err)
		cli_error(err, "while reading directory '%s'", cli_name(path));
	return err ? err : s->walk_err;
}

errcode_t cli_select_path(struct cli_selection *s, const char *name)
{
	struct ext2_inode inode;
	ext2_ino_t ino;
	char *path;
	errcode_t err;

	path = strdup(name);
	if (!path)
		return ENOMEM;
	if (cli_normalize_path(path)) {
		cli_error(0, CLI_MSG_RELATIVE, cli_name(name));
		s->errors++;
		goto out;
	}
	if (cli_select_excluded(s, path)) {
		if (s->verbose)
			fprintf(stderr, "%s: excluded '%s'\n", cli_prog, cli_name(path));
		goto out;
	}
	err = cli_lookup(s->fs, s->image, path, &ino);
	if (err) {
		s->errors++;
		goto out;
	}
	err = ext2fs_read_inode(s->fs, ino, &inode);
	if (err) {
		cli_error(err, "while reading the inode of '%s'", cli_name(path));
		s->errors++;
		goto out;
	}
	if (LINUX_S_ISDIR(inode.i_mode)) {
		if (s->recursive) {
			err = cli_walk_from(s, path, ino);
			free(path);
			return err;
		}
		cli_error(EISDIR, "while checking '%s' (-r %s the files under a directory)",
			  cli_name(path), s->verb ? s->verb : "selects");
		s->errors++;
		goto out;
	}
	/* anything else is the command's to judge, so that it reports why */
	err = cli_select_add(s, path, ino, 0);
	free(path);
	return err;
out:
	free(path);
	return 0;
}

errcode_t cli_select_all(struct cli_selection *s)
{
	return cli_walk_from(s, "/", EXT2_ROOT_INO);
}

/*
 * Adds the paths listed in @list ("-" is standard input): one per line,
 * escaped as e2verity prints names (cli_unescape()), or NUL-terminated and
 * as they are when @nul (-0).  A NUL byte or a stray backslash in a line
 * list is an error.
 */
static errcode_t cli_select_files_from(struct cli_selection *s, const char *list, int nul)
{
	FILE *f = strcmp(list, "-") == 0 ? stdin : fopen(list, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len, bad;
	errcode_t err = 0;

	if (!f) {
		err = errno;
		cli_error(err, "while opening the file list '%s'", cli_name(list));
		return err;
	}
	while (!err && (len = getdelim(&line, &cap, nul ? '\0' : '\n', f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == (nul ? '\0' : '\n'))
			line[--len] = '\0';
		/* a NUL in a line list would cut the name short: a wrong file, silently */
		if (!nul && memchr(line, '\0', len)) {
			err = EINVAL;
			cli_error(err,
				  "while reading the file list '%s': line %zu has a NUL byte "
				  "(-0 reads a list of NUL-terminated names, as find -print0 "
				  "writes)",
				  cli_name(list), lineno);
			break;
		}
		if (len == 0)
			continue;
		/* a line list holds names as e2verity prints them: the same escapes read back */
		bad = nul ? -1 : cli_unescape(line);
		if (bad >= 0) {
			err = EINVAL;
			cli_error(
				err,
				"while reading the file list '%s': line %zu, byte %zd: a backslash "
				"that starts none of \\\\, \\n, \\t, \\xHH (a list holds names as "
				"e2verity prints them; -0 reads them as they are)",
				cli_name(list), lineno, bad + 1);
			break;
		}
		err = cli_select_path(s, line);
	}
	if (!err && ferror(f)) {
		err = errno ? errno : EIO;
		cli_error(err, "while reading the file list '%s'", cli_name(list));
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return err;
}

static int cli_push(const char ***v, size_t *n, const char *s)
{
	const char **p = realloc(*v, (*n + 1) * sizeof(**v));

	if (!p)
		return -1;
	p[(*n)++] = s;
	*v = p;
	return 0;
}

/* 1 if @opt was a selection option (-r, -a, -0 or above), 0 if not, -1 when out of memory */
static int cli_parse_select_option(int opt, const char *arg, struct cli_select_args *a)
{
	switch (opt) {
	case 'r':
		a->recursive = 1;
		return 1;
	case 'a':
		a->all = 1;
		return 1;
	case '0':
		a->null = 1;
		return 1;
	case OPT_FILES_FROM:
		return cli_push(&a->files_from, &a->nfiles_from, arg) ? -1 : 1;
	case OPT_EXCLUDE:
		return cli_push(&a->excludes, &a->nexcludes, arg) ? -1 : 1;
	}
	return 0;
}

/*
 * After the options: IMAGE, then the PATHs (normalised).  Returns 0, or the
 * usage status after saying what is missing.
 */
static int cli_select_args_finish(const struct cli_command *cmd, int argc, char *argv[],
				  const char **image, struct cli_select_args *a)
{
	int r = cli_image_operands(cmd, argc, argv, image, &a->paths, &a->npaths);

	if (r)
		return r;
	if (!a->npaths && !a->all && !a->nfiles_from)
		return cli_usage_error(cmd, "no PATH given (or -a, --files-from)");
	return cli_image_paths(cmd, a->paths, a->npaths);
}

static void cli_select_args_free(struct cli_select_args *a)
{
	free(a->files_from);
	free(a->excludes);
	a->files_from = a->excludes = NULL;
	a->nfiles_from = a->nexcludes = 0;
}

int cli_parse_write_option(int opt, const char *arg, struct cli_write_args *w)
{
	switch (opt) {
	case 'n':
		w->dry_run = 1;
		return 1;
	case 'q':
		w->quiet = 1;
		return 1;
	case 'v':
		w->verbose = 1;
		return 1;
	case 'z':
		w->undo_file = arg;
		return 1;
	case OPT_FORCE:
		w->force = 1;
		return 1;
	}
	return cli_parse_select_option(opt, arg, &w->sel);
}

int cli_write_args_finish(const struct cli_command *cmd, int argc, char *argv[],
			  struct cli_write_args *w)
{
	int r = cli_select_args_finish(cmd, argc, argv, &w->image, &w->sel);

	if (r)
		return r;
	if (w->dry_run && w->undo_file)
		return cli_usage_error(cmd, "-z has nothing to undo in a dry run");
	return 0;
}

void cli_write_args_names(const struct cli_write_args *w, struct cli_names *l)
{
	cli_names_add(l, w->image, "the image",
		      CLI_NAMED_IMAGE | (w->dry_run ? 0 : CLI_NAMED_WRITTEN));
	for (size_t i = 0; i < w->sel.nfiles_from; i++)
		cli_names_add(l, w->sel.files_from[i], "the file list (--files-from)", 0);
	cli_names_add(l, w->undo_file, "the undo file (-z)", CLI_NAMED_UNDO | CLI_NAMED_WRITTEN);
}

void cli_write_args_free(struct cli_write_args *w)
{
	cli_select_args_free(&w->sel);
}

errcode_t cli_write_image_open(struct cli_image *img, const struct cli_write_args *w, int preflight)
{
	unsigned int flags = (w->force ? CLI_IMAGE_FORCE : 0) | (w->quiet ? CLI_IMAGE_QUIET : 0);

	if (preflight)
		return cli_image_open(img, w->image,
				      flags | CLI_IMAGE_PREFLIGHT |
					      (w->dry_run ? CLI_IMAGE_SHARED : 0),
				      w->dry_run ? NULL : w->undo_file);
	return cli_image_open(img, w->image, flags | CLI_IMAGE_WRITE, w->undo_file);
}

static int cli_link_cmp(const void *a, const void *b)
{
	const struct cli_target *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

int cli_select_run(struct cli_selection *sel, ext2_filsys fs, const char *image, const char *verb,
		   const struct cli_select_args *a, int verbose)
{
	errcode_t err;

	err = cli_select_init(sel, fs, image);
	if (err) {
		cli_error(err, "while reading '%s'", cli_name(image));
		return CLI_EXIT_FAILURE;
	}
	sel->excludes = a->excludes;
	sel->nexcludes = a->nexcludes;
	sel->recursive = a->recursive;
	sel->keep_links = a->keep_links;
	sel->verbose = verbose;
	sel->verb = verb;
	for (int i = 0; !err && i < a->npaths; i++)
		err = cli_select_path(sel, a->paths[i]);
	for (size_t i = 0; !err && i < a->nfiles_from; i++)
		err = cli_select_files_from(sel, a->files_from[i], a->null);
	if (!err && a->all)
		err = cli_select_all(sel);
	if (err) {
		/* a file list that cannot be read was reported where it failed */
		if (err == ENOMEM)
			cli_error(err, "while selecting files in '%s'", cli_name(image));
		return CLI_EXIT_FAILURE;
	}
	if (sel->nlinks)
		qsort(sel->links, sel->nlinks, sizeof(*sel->links), cli_link_cmp);
	return CLI_EXIT_OK;
}

const struct cli_target *cli_select_links(const struct cli_selection *sel, ext2_ino_t ino,
					  size_t *n)
{
	size_t lo = 0, hi = sel->nlinks, first;

	/* the first link of @ino: links are sorted by inode */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sel->links[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < sel->nlinks && sel->links[lo].ino == ino)
		lo++;
	*n = lo - first;
	return *n ? &sel->links[first] : NULL;
}
