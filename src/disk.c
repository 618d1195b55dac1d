// SPDX-License-Identifier: GPL-2.0-or-later
/* disk.c - find an image's filesystem: ?offset=, a partition of a disk, an Android sparse image */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "disk.h"

#ifdef HAVE_BLKID
#include <blkid.h>
#endif
#ifdef HAVE_LIBSPARSE
#include <dlfcn.h>
#include <sparse/sparse.h>

/*
 * libsparse, opened when an image is sparse: the functions used, looked up
 * by their own names and typed by their own declarations.
 */
static struct {
	__typeof__(sparse_file_import) *import;
	__typeof__(sparse_file_block_size) *block_size;
	__typeof__(sparse_file_len) *len;
	__typeof__(sparse_file_write) *write;
	__typeof__(sparse_file_destroy) *destroy;
	__typeof__(sparse_file_new) *new_file;
	__typeof__(sparse_file_add_fill) *add_fill;
	__typeof__(sparse_file_add_fd) *add_fd;
} e2v_sp;

static int e2v_load_libsparse(void)
{
	void *h;

	if (e2v_sp.import)
		return 0;
	h = dlopen(E2V_LIBSPARSE, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&e2v_sp.block_size = dlsym(h, "sparse_file_block_size");
	*(void **)&e2v_sp.len = dlsym(h, "sparse_file_len");
	*(void **)&e2v_sp.write = dlsym(h, "sparse_file_write");
	*(void **)&e2v_sp.destroy = dlsym(h, "sparse_file_destroy");
	*(void **)&e2v_sp.new_file = dlsym(h, "sparse_file_new");
	*(void **)&e2v_sp.add_fill = dlsym(h, "sparse_file_add_fill");
	*(void **)&e2v_sp.add_fd = dlsym(h, "sparse_file_add_fd");
	if (!e2v_sp.block_size || !e2v_sp.len || !e2v_sp.write || !e2v_sp.destroy ||
	    !e2v_sp.new_file || !e2v_sp.add_fill || !e2v_sp.add_fd)
		return -1;
	*(void **)&e2v_sp.import = dlsym(h, "sparse_file_import");
	return e2v_sp.import ? 0 : -1;
}
#endif

#define E2V_SPARSE_MAGIC 0xed26ff3a
#define E2V_EXT4_MAGIC 0xef53

static void e2v_why(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void e2v_why(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

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
		e2v_why(why, ws, " (unknown io option '%s'; IMAGE?offset=BYTES is known)", opts);
		return EINVAL;
	}
	errno = 0;
	v = strtoull(opts + 7, &end, 0);
	if (errno || *end) {
		e2v_why(why, ws, " (invalid offset '%s')", opts + 7);
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
		e2v_why(why, ws, " (cannot read its partition table)");
		return errno ? errno : EIO;
	}
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	ls = blkid_probe_get_partitions(pr);
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	if (n <= 0) {
		e2v_why(why, ws, " (--partition=%s: no partition table)", want);
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
	e2v_why(why, ws,
		" (no partition %s '%s'; partitions are named by number, GPT name or UUID)",
		number >= 0 ? "number" : "named", want);
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
	e2v_why(why, ws,
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
		e2v_why(why, ws, " (%s ends at byte %llu, past the end of the image at %llu)", what,
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
		e2v_why(why, ws, " (%s is not an ext4 filesystem: %s)", what, type);
		return EXT2_ET_BAD_MAGIC;
	}
	log = e2v_le32(sb + 24);
	fs_bytes = ((uint64_t)e2v_le32(sb + 4) | (uint64_t)e2v_le32(sb + 0x150) << 32)
		   << (10 + (log & 15));
	/* writes stay inside the filesystem: it must stay inside the partition */
	if (log > 6 || fs_bytes > d->size) {
		e2v_why(why, ws,
			" (the filesystem at %s is %llu bytes, larger than the %llu there)", what,
			(unsigned long long)fs_bytes, (unsigned long long)d->size);
		return EXT2_ET_CORRUPT_SUPERBLOCK;
	}
	if (d->offset)
		snprintf(d->io_options, sizeof(d->io_options), "offset=%llu",
			 (unsigned long long)d->offset);
	return 0;
}

#ifdef HAVE_LIBSPARSE
/* Expands the sparse image into a temporary file: "don't care" chunks stay holes. */
static errcode_t e2v_sparse_expand(struct e2v_disk *d, int fd, char *why, size_t ws)
{
	const char *tmpdir = getenv("TMPDIR");
	struct sparse_file *s;
	int64_t len;
	int rawfd = -1, r;
	errcode_t err = 0;

	if (e2v_load_libsparse()) {
		e2v_why(why, ws,
			" (an Android sparse image: %s cannot be loaded, see android-libsparse)",
			E2V_LIBSPARSE);
		return EXT2_ET_UNIMPLEMENTED;
	}
	s = e2v_sp.import(fd, false, false);
	if (!s) {
		e2v_why(why, ws, " (a damaged Android sparse image)");
		return EXT2_ET_BAD_MAGIC;
	}
	d->sparse_block_size = e2v_sp.block_size(s);
	len = e2v_sp.len(s, false, false);
	if (asprintf(&d->raw, "%s/e2verity-raw-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp") < 0) {
		d->raw = NULL;
		err = ENOMEM;
		goto out;
	}
	rawfd = mkstemp(d->raw);
	if (rawfd < 0) {
		err = errno;
		free(d->raw);
		d->raw = NULL;
		e2v_why(why, ws, " (cannot make a temporary file to expand the sparse image)");
		goto out;
	}
	r = e2v_sp.write(s, rawfd, false, false, false);
	if (r < 0 || ftruncate(rawfd, len) < 0) {
		err = r < 0 ? -r : errno;
		e2v_why(why, ws, " (expanding the sparse image into '%s')", d->raw);
	}
out:
	if (rawfd >= 0 && close(rawfd) < 0 && !err)
		err = errno;
	e2v_sp.destroy(s);
	return err;
}

/* 1 if the block is one 32-bit value repeated; *@val is that value */
static int e2v_fill_value(const unsigned char *b, size_t size, uint32_t *val)
{
	*val = e2v_le32(b);
	for (size_t i = 4; i < size; i += 4)
		if (memcmp(b, b + i, 4))
			return 0;
	return 1;
}

/*
 * The chunks of the new sparse image: holes of the raw copy are "don't care",
 * runs of one repeated 32-bit value are fills, the rest is data, read from
 * the raw copy when written.
 */
static errcode_t e2v_sparse_build(struct sparse_file *s, int rawfd, uint64_t len, unsigned int bs)
{
	unsigned char *buf = malloc(bs);
	uint64_t pos = 0;
	errcode_t err = 0;

	if (!buf)
		return ENOMEM;
	while (pos < len && !err) {
		off_t data = lseek(rawfd, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (data < 0) {
			err = errno;
			break;
		}
		hole = lseek(rawfd, data, SEEK_HOLE);
		if (hole < 0) {
			err = errno;
			break;
		}
		/* chunks are whole blocks: a block with any data is data */
		pos = (uint64_t)data / bs * bs;
		hole = ((uint64_t)hole + bs - 1) / bs * bs;
		if ((uint64_t)hole > len)
			hole = len;
		while (pos < (uint64_t)hole && !err) {
			uint64_t start = pos;
			uint32_t val, v;
			int fill;

			if (pread(rawfd, buf, bs, pos) != (ssize_t)bs) {
				err = errno ? errno : EIO;
				break;
			}
			fill = e2v_fill_value(buf, bs, &val);
			pos += bs;
			/* extend the run while blocks are of the same kind */
			while (pos < (uint64_t)hole) {
				if (pread(rawfd, buf, bs, pos) != (ssize_t)bs) {
					err = errno ? errno : EIO;
					break;
				}
				if (e2v_fill_value(buf, bs, &v) ? !(fill && v == val) : fill)
					break;
				pos += bs;
			}
			if (err)
				break;
			if (fill ? e2v_sp.add_fill(s, val, pos - start, start / bs)
				 : e2v_sp.add_fd(s, rawfd, start, pos - start, start / bs))
				err = ENOMEM;
		}
	}
	free(buf);
	return err;
}
#endif

errcode_t e2v_disk_write_back(struct e2v_disk *d)
{
#ifdef HAVE_LIBSPARSE
	struct sparse_file *s = NULL;
	struct e2v_outfile out = { .fd = -1 };
	struct stat st;
	int rawfd;
	errcode_t err;

	if (!d->sparse)
		return 0;
	rawfd = open(d->raw, O_RDONLY | O_CLOEXEC);
	if (rawfd < 0)
		return errno;
	if (fstat(rawfd, &st) < 0) {
		err = errno;
		goto out;
	}
	s = e2v_sp.new_file(d->sparse_block_size, st.st_size);
	if (!s) {
		err = ENOMEM;
		goto out;
	}
	err = e2v_sparse_build(s, rawfd, st.st_size, d->sparse_block_size);
	if (!err)
		err = e2v_outfile_open(&out, d->file);
	if (!err && e2v_sp.write(s, out.fd, false, true, false) < 0)
		err = EIO;
	/* the new sparse image replaces the old one whole, or not at all */
	if (!err)
		err = e2v_outfile_commit(&out);
	e2v_outfile_abort(&out);
out:
	if (s)
		e2v_sp.destroy(s);
	close(rawfd);
	return err;
#else
	(void)d;
	return 0;
#endif
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
			e2v_why(why, ws, " (it is gzip-compressed: decompress it first)");
			err = EXT2_ET_BAD_MAGIC;
			goto out;
		}
		d->sparse = e2v_le32(magic) == E2V_SPARSE_MAGIC;
	}
	if (opts && partition) {
		e2v_why(why, ws, " (?%s and --partition exclude each other)", opts);
		err = EINVAL;
		goto out;
	}
	if (d->sparse) {
#ifdef HAVE_LIBSPARSE
		if (opts || partition) {
			e2v_why(why, ws,
				" (an Android sparse image holds one filesystem: no offset)");
			err = EINVAL;
			goto out;
		}
		err = e2v_sparse_expand(d, fd, why, ws);
		if (err)
			goto out;
		close(fd);
		fd = open(d->raw, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			err = errno;
			goto out;
		}
#else
		e2v_why(why, ws,
			" (an Android sparse image: this e2verity was built without libsparse)");
		err = EXT2_ET_UNIMPLEMENTED;
		goto out;
#endif
	}
	if (opts)
		err = e2v_parse_io_options(d, opts, why, ws);
	if (!err && partition) {
#ifdef HAVE_BLKID
		err = e2v_find_partition(d, d->file, partition, why, ws);
#else
		e2v_why(why, ws, " (--partition: this e2verity was built without libblkid)");
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
		d->open_name = strdup(d->raw ? d->raw : d->file);
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
	if (d->raw)
		unlink(d->raw);
	free(d->raw);
	free(d->file);
	free(d->open_name);
	memset(d, 0, sizeof(*d));
}
