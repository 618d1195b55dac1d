// SPDX-License-Identifier: GPL-2.0-or-later
/* disk_sparse.c - an Android sparse image: read through its chunks, or expanded and written back */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli/util.h"
#include "image/container.h"
#include "image/disk.h"
#include "image/sparse.h"
#include "image/sparse_io.h"
#include "output/names.h"
#include "output/outfile.h"

/*
 * The expanded copy of a sparse image, in a file without a name in TMPDIR,
 * which no kill leaves behind.  The last one made is kept for the next open
 * of the same, unchanged file (seal opens an image for its pre-flight, its
 * writing and its manifest), and lives as long as a disk uses it.
 */
struct cli_expanded {
	unsigned int refs;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int fd;
	char *name; /* what libext2fs opens: /proc/self/fd/N, or a named file */
	struct cli_sparse sp;
};
static struct cli_expanded *cli_last;

static void cli_exp_put(struct cli_expanded *x)
{
	if (!x || --x->refs)
		return;
	if (x->fd >= 0)
		close(x->fd);
	if (x->name && strncmp(x->name, "/proc/", 6) != 0)
		unlink(x->name);
	free(x->name);
	cli_sparse_free(&x->sp);
	free(x);
}

static void cli_exp_forget_last(void)
{
	cli_exp_put(cli_last);
	cli_last = NULL;
}

static int cli_exp_is(const struct cli_expanded *x, const struct stat *st)
{
	return x && x->dev == st->st_dev && x->ino == st->st_ino && x->size == st->st_size &&
	       x->mtime.tv_sec == st->st_mtim.tv_sec && x->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void cli_exp_remember(struct cli_expanded *x, const struct stat *st)
{
	x->dev = st->st_dev;
	x->ino = st->st_ino;
	x->size = st->st_size;
	x->mtime = st->st_mtim;
}

/*
 * The ext4 filesystem the checked chunks hold, its superblock read through
 * them: its size in @fs_bytes, which must fit in what they expand to (a cut
 * copy would read as zeros past its end).  EXT2_ET_BAD_MAGIC or
 * EXT2_ET_CORRUPT_SUPERBLOCK, without a word in @why: no filesystem.
 */
static errcode_t cli_sparse_fs(int fd, const struct cli_sparse *sp, uint64_t *fs_bytes, char *why,
			       size_t ws)
{
	unsigned char sb[1024];
	errcode_t err;

	/* past the chunks' end it reads zeros: no magic */
	err = cli_sparse_read(fd, sp, 1024, sb, sizeof(sb));
	if (err && err != EXT2_ET_SHORT_READ)
		return err;
	err = cli_disk_fs_bytes(sb, fs_bytes);
	if (err)
		return err;
	return cli_disk_check_super(sb, sp->blocks * sp->block_size, "its chunks", why, ws);
}

/*
 * What writing expands is bounded before a byte is written: by the
 * filesystem the chunks hold, not by what the header claims; by the room in
 * TMPDIR; and by the largest file this process may write (ulimit -f), which
 * would otherwise kill it half way with SIGXFSZ.
 */
static errcode_t cli_sparse_bound(int fd, const struct cli_sparse *sp, const char *tmpdir,
				  char *why, size_t ws)
{
	const uint64_t bytes = sp->blocks * sp->block_size;
	uint64_t fs_bytes = 0;
	struct statvfs vfs;
	struct rlimit rl;
	errcode_t err;

	err = cli_sparse_fs(fd, sp, &fs_bytes, why, ws);
	if (err == EXT2_ET_BAD_MAGIC || err == EXT2_ET_CORRUPT_SUPERBLOCK) {
		snprintf(why, ws,
			 " (the chunks of the Android sparse image hold no ext4 filesystem%s; "
			 "nothing was expanded)",
			 err == EXT2_ET_CORRUPT_SUPERBLOCK ? ", only a superblock of an impossible "
							     "block size"
							   : "");
		return err;
	}
	if (err)
		return err;
	/* cli_sparse_fs(): @fs_bytes <= @bytes; the header rounds it up to its blocks, no further */
	if (bytes - fs_bytes >= sp->block_size) {
		snprintf(
			why, ws,
			" (the Android sparse image claims %llu bytes, more than the %llu of its "
			"ext4 filesystem; only the filesystem is expanded for writing: nothing was)",
			(unsigned long long)bytes, (unsigned long long)fs_bytes);
		return EFBIG;
	}
	if (statvfs(tmpdir, &vfs) == 0 && sp->data_bytes > (uint64_t)vfs.f_bavail * vfs.f_frsize) {
		snprintf(why, ws,
			 " (expanding the Android sparse image takes %llu bytes in '%s', which has "
			 "%llu free; TMPDIR chooses another place)",
			 (unsigned long long)sp->data_bytes, cli_name(tmpdir),
			 (unsigned long long)vfs.f_bavail * vfs.f_frsize);
		return ENOSPC;
	}
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    bytes > (uint64_t)rl.rlim_cur) {
		snprintf(why, ws,
			 " (expanding the Android sparse image makes a file of %llu bytes, larger "
			 "than the %llu this process may write (ulimit -f); nothing was expanded)",
			 (unsigned long long)bytes, (unsigned long long)rl.rlim_cur);
		return EFBIG;
	}
	return 0;
}

/* Checks the sparse image's chunks and what expanding them takes, then expands it. */
static errcode_t cli_sparse_load(int fd, const struct stat *st, struct cli_expanded **ret,
				 char *why, size_t ws)
{
	static int registered;
	const char *tmpdir = cli_tmpdir();
	struct cli_expanded *x;
	errcode_t err;

	if (!registered && atexit(cli_exp_forget_last) == 0)
		registered = 1;
	x = calloc(1, sizeof(*x));
	if (!x)
		return ENOMEM;
	x->refs = 1;
	x->fd = -1;
	err = cli_sparse_scan(fd, st->st_size, &x->sp, why, ws);
	if (!err)
		err = cli_sparse_bound(fd, &x->sp, tmpdir, why, ws);
	if (err)
		goto out;
	x->fd = cli_tmpfile(tmpdir, 0600, &x->name);
	if (x->fd < 0) {
		err = errno;
		snprintf(why, ws, " (no temporary file in '%s' to expand the sparse image into)",
			 cli_name(tmpdir));
		goto out;
	}
	err = cli_sparse_expand(fd, &x->sp, x->fd);
	if (err) {
		snprintf(why, ws, " (expanding the sparse image into '%s')", cli_name(tmpdir));
		goto out;
	}
	cli_exp_remember(x, st);
out:
	if (err) {
		cli_exp_put(x);
		return err;
	}
	*ret = x;
	return 0;
}

/*
 * For reading: the chunk table checked and the filesystem found through it,
 * then libext2fs reads the sparse file through the chunks (sparse_io.c):
 * nothing is expanded, whatever the header claims.
 */
static errcode_t cli_sparse_in_place(struct cli_disk *d, char *why, size_t ws)
{
	struct cli_sparse sp = { 0 };
	struct stat st;
	uint64_t fs_bytes;
	errcode_t err;
	int fd;

	fd = open(d->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0)
		err = errno;
	else
		err = cli_sparse_scan(fd, st.st_size, &sp, why, ws);
	/* no ext4 superblock is libext2fs' to say: it tries the backups first */
	if (!err)
		err = cli_sparse_fs(fd, &sp, &fs_bytes, why, ws);
	if (err == EXT2_ET_BAD_MAGIC || err == EXT2_ET_CORRUPT_SUPERBLOCK)
		err = 0;
	cli_sparse_free(&sp);
	close(fd);
	if (err)
		return err;
	if (asprintf(&d->open_name, "%s%s", CLI_SPARSE_IO_PREFIX, d->file) < 0) {
		d->open_name = NULL;
		return ENOMEM;
	}
	d->io = cli_sparse_io_manager();
	return 0;
}

static int cli_sparse_probe(const unsigned char *head, size_t n, const char *opts,
			    const char *partition)
{
	(void)opts;
	(void)partition;
	return n >= 4 && cli_disk_le32(head) == CLI_SPARSE_MAGIC;
}

/* nothing is read yet: the chunks are checked and expanded once the file is locked */
static errcode_t cli_sparse_open(struct cli_disk *d, int fd, const struct stat *st,
				 const char *opts, const char *partition, char *why, size_t ws)
{
	errcode_t err;

	(void)fd;
	(void)st;
	d->sparse = 1;
	err = cli_disk_one_place(opts, partition, why, ws);
	if (!err && (opts || partition)) {
		snprintf(why, ws, " (an Android sparse image holds one filesystem: no offset)");
		err = EINVAL;
	}
	return err;
}

static errcode_t cli_sparse_disk_expand(struct cli_disk *d, unsigned int how, char *why, size_t ws)
{
	struct cli_expanded *x = NULL;
	struct stat st;
	errcode_t err = 0;
	int fd;

	/* what only reads needs no copy */
	if (!(how & CLI_DISK_WRITE))
		return cli_sparse_in_place(d, why, ws);
	/* where it goes back, and that it can, before any work is done */
	d->out = calloc(1, sizeof(*d->out));
	if (!d->out)
		return ENOMEM;
	err = cli_outfile_open(d->out, d->file, CLI_OUT_WHOLE);
	if (err) {
		snprintf(why, ws, "%s%s", d->out->why[0] ? d->out->why : "",
			 d->out->why[0] ? "" : " (the sparse image cannot be written back)");
		return err;
	}
	fd = open(d->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0) {
		err = errno;
	} else if (cli_exp_is(cli_last, &st)) {
		x = cli_last;
		x->refs++;
	} else {
		err = cli_sparse_load(fd, &st, &x, why, ws);
		if (!err) {
			/* the one kept for later opens; a disk still using the last keeps it */
			cli_exp_forget_last();
			cli_last = x;
			x->refs++;
		}
	}
	close(fd);
	if (err)
		return err;
	/* err 0: x was set (a failed fstat() sets errno, which the analyzer takes for 0) */
	CLI_ANALYZER_ASSUME(x);
	d->priv = x;
	/* the filesystem must end inside what the chunks expand to */
	err = cli_disk_check_whole(x->fd, x->sp.blocks * x->sp.block_size, why, ws);
	if (err)
		return err;
	d->open_name = strdup(x->name);
	return d->open_name ? 0 : ENOMEM;
}

static errcode_t cli_sparse_write_back(struct cli_disk *d)
{
	struct cli_expanded *x = d->priv;
	struct stat st;
	errcode_t err;

	if (!d->out || !x)
		return 0;
	err = cli_sparse_encode(x->fd, &x->sp, d->out);
	/* the new sparse image replaces the old one whole, or not at all */
	if (!err)
		err = cli_outfile_commit(d->out);
	cli_outfile_abort(d->out);
	/* the expanded copy is what the new file holds: later opens reuse it */
	if (!err && stat(d->file, &st) == 0)
		cli_exp_remember(x, &st);
	else if (x == cli_last)
		cli_exp_forget_last();
	return err;
}

static void cli_sparse_forget(struct cli_disk *d)
{
	if (d->priv && d->priv == cli_last)
		cli_exp_forget_last();
}

static void cli_sparse_close(struct cli_disk *d)
{
	cli_exp_put(d->priv);
	d->priv = NULL;
}

const struct cli_container_ops cli_container_sparse = {
	.name = "Android sparse",
	.probe = cli_sparse_probe,
	.open = cli_sparse_open,
	.expand = cli_sparse_disk_expand,
	.write_back = cli_sparse_write_back,
	.forget = cli_sparse_forget,
	.close = cli_sparse_close,
};
