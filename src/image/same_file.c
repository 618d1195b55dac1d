// SPDX-License-Identifier: GPL-2.0-or-later
/* same_file.c - refuse a run whose outputs are the image, an input or each other, before any write */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image/same_file.h"
#include "output/names.h"
#include "output/outfile.h"

/*
 * Where a name leads.  Two names are one file when both exist with the same
 * st_dev/st_ino (a hard link, a bind mount), or when their canonical paths
 * are equal, which also holds for an output that does not exist yet (a
 * symbolic link to a file to be made, two spellings of a new name).  The
 * temporary files a run makes (a sparse image's expansion, an output's
 * content until its commit) are new by construction, O_TMPFILE or O_EXCL,
 * and so can be none of these.
 */
struct cli_resolved {
	char *name;  /* as given, the image's without "?options", an undo directory's file */
	char *canon; /* symbolic links of the last component followed, the directory absolute */
	struct stat st;
	int exists, link;
};

char *cli_undo_name(const char *undo, const char *image)
{
	struct stat st;
	char *copy, *name;

	if (stat(undo, &st) != 0 || !S_ISDIR(st.st_mode))
		return strdup(undo);
	copy = strdup(image);
	if (!copy)
		return NULL;
	if (asprintf(&name, "%s/e2verity-%s.e2undo", undo, basename(copy)) < 0)
		name = NULL;
	free(copy);
	return name;
}

/* @target's directory made absolute, links and all ("." for a bare name) */
static char *cli_canon(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir, *real, *canon;

	if (slash == target)
		return strdup(target);
	dir = slash ? strndup(target, slash - target) : strdup(".");
	if (!dir)
		return NULL;
	real = realpath(dir, NULL);
	free(dir);
	/* a directory that is not there: the name as it is, still compared */
	if (!real)
		return strdup(target);
	if (asprintf(&canon, "%s/%s", strcmp(real, "/") ? real : "", slash ? slash + 1 : target) <
	    0)
		canon = NULL;
	free(real);
	return canon;
}

static errcode_t cli_resolve(const struct cli_named *e, const char *image, struct cli_resolved *r)
{
	struct stat lst;
	char *target = NULL, *q;
	errcode_t err;

	if (e->use & CLI_NAMED_UNDO)
		r->name = cli_undo_name(e->path, image ? image : e->path);
	else
		r->name = strdup(e->path);
	if (!r->name)
		return ENOMEM;
	/* IMAGE?offset=BYTES: the file is what comes before, as cli_disk_resolve() cuts it */
	q = e->use & CLI_NAMED_IMAGE ? strchr(r->name, '?') : NULL;
	if (q)
		*q = '\0';
	r->link = lstat(r->name, &lst) == 0 && S_ISLNK(lst.st_mode);
	r->exists = stat(r->name, &r->st) == 0;
	err = cli_follow_links(r->name, &target);
	/* a loop of links opens nothing: its name is still compared */
	if (err == ELOOP)
		target = strdup(r->name);
	else if (err)
		return err;
	if (!target)
		return ENOMEM;
	r->canon = cli_canon(target);
	free(target);
	return r->canon ? 0 : ENOMEM;
}

/* A terminal, /dev/null or a pipe is written as a stream: no name of it loses anything */
static int cli_stream(const struct cli_resolved *r)
{
	return r->exists &&
	       (S_ISCHR(r->st.st_mode) || S_ISFIFO(r->st.st_mode) || S_ISSOCK(r->st.st_mode));
}

static int cli_same(const struct cli_resolved *a, const struct cli_resolved *b)
{
	if (cli_stream(a) || cli_stream(b))
		return 0;
	if (a->exists && b->exists && a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino)
		return 1;
	return strcmp(a->canon, b->canon) == 0;
}

/* How @b is @a, and the rule it breaks, after "... '<b>'" */
static void cli_why(const struct cli_named *a, const struct cli_resolved *ra,
		    const struct cli_named *b, const struct cli_resolved *rb, char *why,
		    size_t size)
{
	const int b_out = (b->use & CLI_NAMED_WRITTEN) && !(b->use & CLI_NAMED_IMAGE);
	const char *an = cli_name(ra->name), *tail;
	char rel[PATH_MAX + 128];

	if (strcmp(ra->name, rb->name) == 0)
		snprintf(rel, sizeof(rel), "it is also %s '%s'", a->what, an);
	else if (rb->link)
		snprintf(rel, sizeof(rel), "it is a symbolic link to %s '%s'", a->what, an);
	else if (ra->link)
		snprintf(rel, sizeof(rel), "%s '%s' is a symbolic link to it", a->what, an);
	else if (strcmp(ra->canon, rb->canon) == 0)
		snprintf(rel, sizeof(rel), "it is another path to %s '%s'", a->what, an);
	else if (rb->st.st_nlink > 1)
		snprintf(rel, sizeof(rel), "it is a hard link to %s '%s'", a->what, an);
	else
		snprintf(rel, sizeof(rel), "it is the same file as %s '%s'", a->what, an);
	if ((a->use | b->use) & CLI_NAMED_IMAGE)
		tail = b_out || ((a->use & CLI_NAMED_WRITTEN) && !(a->use & CLI_NAMED_IMAGE))
			       ? "; an output may not be the image"
			       : "; what the run reads may not be the image it writes";
	else if ((a->use & b->use) & CLI_NAMED_WRITTEN)
		tail = "; two outputs may not be one file";
	else
		tail = "; an output may not be a file the run reads";
	snprintf(why, size, ": %s%s", rel, tail);
}

errcode_t cli_named_clash(const struct cli_named *v, size_t n, size_t *which, char **name,
			  char *why, size_t size)
{
	struct cli_resolved *r = calloc(n ? n : 1, sizeof(*r));
	char *image = NULL, *q;
	errcode_t err = 0;
	size_t i, j;

	*name = NULL;
	why[0] = '\0';
	if (!r)
		return ENOMEM;
	/* an undo directory's file is named after the image file, as cli_image_open() names it */
	for (i = 0; i < n && !image && !err; i++) {
		if (!(v[i].use & CLI_NAMED_IMAGE) || !v[i].path)
			continue;
		image = strdup(v[i].path);
		if (!image)
			err = ENOMEM;
		else if ((q = strchr(image, '?')))
			*q = '\0';
	}
	for (i = 0; i < n && !err; i++)
		if (v[i].path && strcmp(v[i].path, "-") != 0)
			err = cli_resolve(&v[i], image, &r[i]);
	for (i = 0; i < n && !err; i++) {
		if (!r[i].canon)
			continue;
		for (j = 0; j < i; j++) {
			/* inputs may repeat: only a write loses anything */
			if (!r[j].canon || !((v[i].use | v[j].use) & CLI_NAMED_WRITTEN) ||
			    !cli_same(&r[j], &r[i]))
				continue;
			cli_why(&v[j], &r[j], &v[i], &r[i], why, size);
			*which = i;
			*name = r[i].name;
			r[i].name = NULL;
			err = E2VERITY_ET_SAME_FILE;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].canon);
	}
	free(r);
	free(image);
	return err;
}

void cli_names_add(struct cli_names *l, const char *path, const char *what, unsigned int use)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct cli_named *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->nomem = 1;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].path = path;
	l->v[l->n].what = what;
	l->v[l->n].use = use;
	l->n++;
}

int cli_names_check(const struct cli_command *cmd, struct cli_names *l)
{
	char why[2 * PATH_MAX + 256], *name = NULL;
	size_t i = 0;
	errcode_t err;
	int status = 0;

	err = l->nomem ? ENOMEM : cli_named_clash(l->v, l->n, &i, &name, why, sizeof(why));
	if (err == E2VERITY_ET_SAME_FILE) {
		cli_error(err, "while checking %s '%s'%s", l->v[i].what, cli_name(name), why);
		status = cli_status_usage(cmd);
	} else if (err) {
		cli_error(err, "while checking the files named to %s", cmd->name);
		status = cli_status_failure(cmd);
	}
	free(name);
	free(l->v);
	memset(l, 0, sizeof(*l));
	return status;
}
