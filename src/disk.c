// SPDX-License-Identifier: GPL-2.0-or-later
/* disk.c - find an image's filesystem: ?offset=, a partition of a disk, an Android sparse image */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include <sys/statvfs.h>

#include "disk.h"
#include "sparse.h"

#ifdef HAVE_BLKID
#include <blkid.h>
#endif
#define E2V_EXT4_MAGIC 0xef53

static uint32_t e2v_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* e2fsprogs' io option syntax: only offset= means anything to a file image */
static errcode_t e2v_parse_io_options(struct e2v_disk *d, const char *opts, char *why, size_t ws)
{
	char *end;
	unsigned long long v;

	if (strncmp(opts, "offset=", 7) != 0 || !opts[7] || opts[7] == '-') {
		snprintf(why, ws, " (unknown io option '%s'; IMAGE?offset=BYTES is known)",
			e2v_name(opts));
		return EINVAL;
	}
	errno = 0;
	v = strtoull(opts + 7, &end, 0);
	if (errno || *end) {
		snprintf(why, ws, " (invalid offset '%s')", e2v_name(opts + 7));
		return EINVAL;
	}
	d->offset = v;
	return 0;
}

int e2v_disk_name_valid(const char *name, char *why, size_t whysize)
{
	const char *opts = strchr(name, '?');
	struct e2v_disk d = { 0 };

	why[0] = '\0';
	return !opts || !e2v_parse_io_options(&d, opts + 1, why, whysize);
}

#ifdef HAVE_BLKID
/* What blkid calls the contents of a partition, for a message. */
static void e2v_partition_type(int fd, uint64_t start, uint64_t size, char *out, size_t outsize)
{
	blkid_probe pr = blkid_new_probe();
	const char *type = NULL;

	snprintf(out, outsize, "unknown contents");
	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, start, size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		if (blkid_do_safeprobe(pr) == 0 &&
		    blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0)
			snprintf(out, outsize, "%s", type);
	}
	blkid_free_probe(pr);
}

static int e2v_all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* --partition=N|NAME|UUID: a GPT partition by number, name or UUID; an MBR one by number */
static errcode_t e2v_find_partition(struct e2v_disk *d, const char *file, const char *want,
				    char *why, size_t ws)
{
	blkid_probe pr = blkid_new_probe_from_filename(file);
	blkid_partlist ls;
	int n, number = e2v_all_digits(want) ? atoi(want) : -1;
	errcode_t err = ENOENT;

	if (!pr) {
		snprintf(why, ws, " (cannot read its partition table)");
		return errno ? errno : EIO;
	}
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	ls = blkid_probe_get_partitions(pr);
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	if (n <= 0) {
		snprintf(why, ws, " (--partition=%s: no partition table)", want);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		const char *name = blkid_partition_get_name(par);
		const char *uuid = blkid_partition_get_uuid(par);

		if (number >= 0 ? blkid_partition_get_partno(par) != number
				: !((name && strcmp(name, want) == 0) ||
				    (uuid && strcasecmp(uuid, want) == 0)))
			continue;
		d->partno = blkid_partition_get_partno(par);
		/* libblkid counts 512-byte sectors, whatever the device's own */
		d->offset = (uint64_t)blkid_partition_get_start(par) * 512;
		d->size = (uint64_t)blkid_partition_get_size(par) * 512;
		err = 0;
		goto out;
	}
	snprintf(why, ws,
		" (no partition %s '%s'; partitions are named by number, GPT name or UUID)",
		number >= 0 ? "number" : "named", e2v_name(want));
out:
	blkid_free_probe(pr);
	return err;
}
#endif

/* The bytes @fd holds: a regular file's length, or a block device's size. */
static errcode_t e2v_fd_size(int fd, const struct stat *st, uint64_t *size)
{
	*size = st->st_size;
#ifdef BLKGETSIZE64
	if (S_ISBLK(st->st_mode) && ioctl(fd, BLKGETSIZE64, size) < 0)
		return errno;
#endif
	return 0;
}

/*
 * A whole-file image must hold all of its filesystem: one cut short reads
 * as zeros past its end, and a write there would make the file grow.
 * Anything that is not an ext4 superblock is left to libext2fs, which says
 * best what is wrong with it.
 */
static errcode_t e2v_check_whole(int fd, uint64_t file_size, char *why, size_t ws)
{
	unsigned char sb[1024];
	uint64_t fs_bytes;
	uint32_t log;

	if (pread(fd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb) ||
	    (sb[56] | sb[57] << 8) != E2V_EXT4_MAGIC)
		return 0;
	log = e2v_le32(sb + 24);
	if (log > 6)
		return 0;
	fs_bytes = ((uint64_t)e2v_le32(sb + 4) | (uint64_t)e2v_le32(sb + 0x150) << 32)
		   << (10 + log);
	if (fs_bytes <= file_size)
		return 0;
	snprintf(why, ws,
		" (its filesystem is %llu bytes, but the file only %llu: the image is truncated)",
		(unsigned long long)fs_bytes, (unsigned long long)file_size);
	return EXT2_ET_SHORT_READ;
}

/* The filesystem must start with an ext4 superblock and end inside its partition. */
static errcode_t e2v_check_place(struct e2v_disk *d, int fd, uint64_t file_size, char *why,
				 size_t ws)
{
	unsigned char sb[1024];
	char what[64], type[32];
	uint64_t fs_bytes;
	uint32_t log;

	if (d->partno)
		snprintf(what, sizeof(what), "partition %d", d->partno);
	else
		snprintf(what, sizeof(what), "offset %llu", (unsigned long long)d->offset);
	if (d->offset > file_size || d->size > file_size - d->offset) {
		snprintf(why, ws, " (%s ends at byte %llu, past the end of the image at %llu)", what,
			(unsigned long long)(d->offset + d->size), (unsigned long long)file_size);
		return EXT2_ET_SHORT_READ;
	}
	if (!d->size)
		d->size = file_size - d->offset;
	if (pread(fd, sb, sizeof(sb), d->offset + 1024) != (ssize_t)sizeof(sb) ||
	    (sb[56] | sb[57] << 8) != E2V_EXT4_MAGIC) {
#ifdef HAVE_BLKID
		e2v_partition_type(fd, d->offset, d->size, type, sizeof(type));
#else
		snprintf(type, sizeof(type), "no ext4 superblock");
#endif
		snprintf(why, ws, " (%s is not an ext4 filesystem: %s)", what, type);
		return EXT2_ET_BAD_MAGIC;
	}
	log = e2v_le32(sb + 24);
	fs_bytes = ((uint64_t)e2v_le32(sb + 4) | (uint64_t)e2v_le32(sb + 0x150) << 32)
		   << (10 + (log & 15));
	/* writes stay inside the filesystem: it must stay inside the partition */
	if (log > 6 || fs_bytes > d->size) {
		snprintf(why, ws,
			" (the filesystem at %s is %llu bytes, larger than the %llu there)", what,
			(unsigned long long)fs_bytes, (unsigned long long)d->size);
		return EXT2_ET_CORRUPT_SUPERBLOCK;
	}
	if (d->offset)
		snprintf(d->io_options, sizeof(d->io_options), "offset=%llu",
			 (unsigned long long)d->offset);
	return 0;
}

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

errcode_t e2v_disk_expand(struct e2v_disk *d, unsigned int how, char *why, size_t ws)
{
	struct e2v_expanded *x = NULL;
	struct stat st;
	errcode_t err = 0;
	int fd;

	if (!d->sparse)
		return 0;
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
	d->exp = x;
	/* the filesystem must end inside what the chunks expand to */
	err = e2v_check_whole(x->fd, x->sp.blocks * x->sp.block_size, why, ws);
	if (err)
		return err;
	d->open_name = strdup(x->name);
	return d->open_name ? 0 : ENOMEM;
}

errcode_t e2v_disk_write_back(struct e2v_disk *d)
{
	struct e2v_expanded *x = d->exp;
	struct stat st;
	errcode_t err;

	if (!d->sparse || !d->out || !x)
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

void e2v_disk_forget(struct e2v_disk *d)
{
	if (d->exp && d->exp == e2v_last)
		e2v_exp_forget_last();
}

errcode_t e2v_disk_resolve(struct e2v_disk *d, const char *name, const char *partition, char *why,
			   size_t ws)
{
	unsigned char magic[4];
	struct stat st;
	uint64_t size;
	char *opts;
	int fd = -1;
	errcode_t err;

	memset(d, 0, sizeof(*d));
	why[0] = '\0';
	d->file = strdup(name);
	if (!d->file)
		return ENOMEM;
	opts = strchr(d->file, '?');
	if (opts)
		*opts++ = '\0';
	if (stat(d->file, &st) < 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	fd = open(d->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = 0;
	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic)) {
		if (magic[0] == 0x1f && magic[1] == 0x8b) {
			snprintf(why, ws, " (it is gzip-compressed: decompress it first)");
			err = EXT2_ET_BAD_MAGIC;
			goto out;
		}
		d->sparse = e2v_le32(magic) == E2V_SPARSE_MAGIC;
	}
	if (opts && partition) {
		snprintf(why, ws, " (?%s and --partition exclude each other)", opts);
		err = EINVAL;
		goto out;
	}
	/* an Android sparse image holds one filesystem, expanded by e2v_disk_expand() */
	if (d->sparse && (opts || partition)) {
		snprintf(why, ws, " (an Android sparse image holds one filesystem: no offset)");
		err = EINVAL;
		goto out;
	}
	if (d->sparse)
		goto out;
	if (opts)
		err = e2v_parse_io_options(d, opts, why, ws);
	if (!err && partition) {
#ifdef HAVE_BLKID
		err = e2v_find_partition(d, d->file, partition, why, ws);
#else
		snprintf(why, ws, " (--partition: this e2verity was built without libblkid)");
		err = EXT2_ET_UNIMPLEMENTED;
#endif
	}
	if (!err)
		err = e2v_fd_size(fd, &st, &size);
	if (!err && (opts || partition))
		err = e2v_check_place(d, fd, size, why, ws);
	else if (!err)
		err = e2v_check_whole(fd, size, why, ws);
	if (!err) {
		d->open_name = strdup(d->file);
		if (!d->open_name)
			err = ENOMEM;
	}
out:
	if (fd >= 0)
		close(fd);
	return err;
}

void e2v_disk_free(struct e2v_disk *d)
{
	e2v_exp_put(d->exp);
	if (d->out) {
		e2v_outfile_abort(d->out);
		free(d->out);
	}
	free(d->file);
	free(d->open_name);
	memset(d, 0, sizeof(*d));
}
