// SPDX-License-Identifier: GPL-2.0-or-later
/* disk_sparse.c - an Android sparse image: expanded into a copy once, encoded back after writes */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "container.h"
#include "sparse.h"

/*
 * The expanded copy of a sparse image, in a file without a name in TMPDIR,
 * which no kill leaves behind.  The last one made is kept for the next open
 * of the same, unchanged file (seal opens an image for its pre-flight, its
 * writing and its manifest), and lives as long as a disk uses it.
 */
struct e2v_expanded {
	unsigned int refs;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int fd;
	char *name; /* what libext2fs opens: /proc/self/fd/N, or a named file */
	struct e2v_sparse sp;
};
static struct e2v_expanded *e2v_last;

static void e2v_exp_put(struct e2v_expanded *x)
{
	if (!x || --x->refs)
		return;
	if (x->fd >= 0)
		close(x->fd);
	if (x->name && strncmp(x->name, "/proc/", 6) != 0)
		unlink(x->name);
	free(x->name);
	e2v_sparse_free(&x->sp);
	free(x);
}

static void e2v_exp_forget_last(void)
{
	e2v_exp_put(e2v_last);
	e2v_last = NULL;
}

static int e2v_exp_is(const struct e2v_expanded *x, const struct stat *st)
{
	return x && x->dev == st->st_dev && x->ino == st->st_ino && x->size == st->st_size &&
	       x->mtime.tv_sec == st->st_mtim.tv_sec && x->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void e2v_exp_remember(struct e2v_expanded *x, const struct stat *st)
{
	x->dev = st->st_dev;
	x->ino = st->st_ino;
	x->size = st->st_size;
	x->mtime = st->st_mtim;
}

/* Checks the sparse image's chunks and the room in TMPDIR, then expands it. */
static errcode_t e2v_sparse_load(int fd, const struct stat *st, struct e2v_expanded **ret,
				 char *why, size_t ws)
{
	static int registered;
	const char *tmpdir = e2v_tmpdir();
	struct e2v_expanded *x;
	struct statvfs vfs;
	errcode_t err;

	if (!registered && atexit(e2v_exp_forget_last) == 0)
		registered = 1;
	x = calloc(1, sizeof(*x));
	if (!x)
		return ENOMEM;
	x->refs = 1;
	x->fd = -1;
	err = e2v_sparse_scan(fd, st->st_size, &x->sp, why, ws);
	if (err)
		goto out;
	x->fd = e2v_tmpfile(tmpdir, 0600, &x->name);
	if (x->fd < 0) {
		err = errno;
		snprintf(why, ws, " (no temporary file in '%s' to expand the sparse image into)",
			e2v_name(tmpdir));
		goto out;
	}
	/* what expanding writes is bounded by the chunks: the room for it is checked first */
	if (fstatvfs(x->fd, &vfs) == 0 && x->sp.data_bytes > (uint64_t)vfs.f_bavail * vfs.f_frsize) {
		snprintf(why, ws,
			" (expanding the Android sparse image takes %llu bytes in '%s', which has "
			"%llu free; TMPDIR chooses another place)",
			(unsigned long long)x->sp.data_bytes, e2v_name(tmpdir),
			(unsigned long long)vfs.f_bavail * vfs.f_frsize);
		err = ENOSPC;
		goto out;
	}
	err = e2v_sparse_expand(fd, &x->sp, x->fd);
	if (err) {
		snprintf(why, ws, " (expanding the sparse image into '%s')", e2v_name(tmpdir));
		goto out;
	}
	e2v_exp_remember(x, st);
out:
	if (err) {
		e2v_exp_put(x);
		return err;
	}
	*ret = x;
	return 0;
}

static int e2v_sparse_probe(const unsigned char *head, size_t n, const char *opts,
			    const char *partition)
{
	(void)opts;
	(void)partition;
	return n >= 4 && e2v_disk_le32(head) == E2V_SPARSE_MAGIC;
}

/* nothing is read yet: the chunks are checked and expanded once the file is locked */
static errcode_t e2v_sparse_open(struct e2v_disk *d, int fd, const struct stat *st,
				 const char *opts, const char *partition, char *why, size_t ws)
{
	errcode_t err;

	(void)fd;
	(void)st;
	d->sparse = 1;
	err = e2v_disk_one_place(opts, partition, why, ws);
	if (!err && (opts || partition)) {
		snprintf(why, ws, " (an Android sparse image holds one filesystem: no offset)");
		err = EINVAL;
	}
	return err;
}

static errcode_t e2v_sparse_disk_expand(struct e2v_disk *d, unsigned int how, char *why,
					size_t ws)
{
	struct e2v_expanded *x = NULL;
	struct stat st;
	errcode_t err = 0;
	int fd;

	if (how & E2V_DISK_WRITE) {
		/* where it goes back, and that it can, before any work is done */
		d->out = calloc(1, sizeof(*d->out));
		if (!d->out)
			return ENOMEM;
		err = e2v_outfile_open(d->out, d->file, E2V_OUT_WHOLE);
		if (err) {
			snprintf(why, ws, "%s%s", d->out->why[0] ? d->out->why : "",
				d->out->why[0] ? "" : " (the sparse image cannot be written back)");
			return err;
		}
	}
	fd = open(d->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0) {
		err = errno;
	} else if (e2v_exp_is(e2v_last, &st)) {
		x = e2v_last;
		x->refs++;
	} else {
		err = e2v_sparse_load(fd, &st, &x, why, ws);
		if (!err) {
			/* the one kept for later opens; a disk still using the last keeps it */
			e2v_exp_forget_last();
			e2v_last = x;
			x->refs++;
		}
	}
	close(fd);
	if (err)
		return err;
	d->priv = x;
	/* the filesystem must end inside what the chunks expand to */
	err = e2v_disk_check_whole(x->fd, x->sp.blocks * x->sp.block_size, why, ws);
	if (err)
		return err;
	d->open_name = strdup(x->name);
	return d->open_name ? 0 : ENOMEM;
}

static errcode_t e2v_sparse_write_back(struct e2v_disk *d)
{
	struct e2v_expanded *x = d->priv;
	struct stat st;
	errcode_t err;

	if (!d->out || !x)
		return 0;
	err = e2v_sparse_encode(x->fd, &x->sp, d->out);
	/* the new sparse image replaces the old one whole, or not at all */
	if (!err)
		err = e2v_outfile_commit(d->out);
	e2v_outfile_abort(d->out);
	/* the expanded copy is what the new file holds: later opens reuse it */
	if (!err && stat(d->file, &st) == 0)
		e2v_exp_remember(x, &st);
	else if (x == e2v_last)
		e2v_exp_forget_last();
	return err;
}

static void e2v_sparse_forget(struct e2v_disk *d)
{
	if (d->priv && d->priv == e2v_last)
		e2v_exp_forget_last();
}

static void e2v_sparse_close(struct e2v_disk *d)
{
	e2v_exp_put(d->priv);
	d->priv = NULL;
}

const struct e2v_container_ops e2v_container_sparse = {
	.name = "Android sparse",
	.probe = e2v_sparse_probe,
	.open = e2v_sparse_open,
	.expand = e2v_sparse_disk_expand,
	.write_back = e2v_sparse_write_back,
	.forget = e2v_sparse_forget,
	.close = e2v_sparse_close,
};
