// SPDX-License-Identifier: GPL-2.0-or-later
/* container.c - what the table of containers and its rows share: places, sizes, checks */
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
#ifdef HAVE_BLKID
#include <blkid.h>
#endif

#include "image/container.h"
#include "output/names.h"

#define CLI_EXT4_MAGIC 0xef53

uint32_t cli_disk_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

errcode_t cli_disk_one_place(const char *opts, const char *partition, char *why, size_t ws)
{
	if (opts && partition) {
		snprintf(why, ws, " (?%s and --partition exclude each other)", opts);
		return EINVAL;
	}
	return 0;
}

/* a regular file's length, or a block device's size */
static errcode_t cli_disk_fd_size(int fd, const struct stat *st, uint64_t *size)
{
	*size = st->st_size;
#ifdef BLKGETSIZE64
	if (S_ISBLK(st->st_mode) && ioctl(fd, BLKGETSIZE64, size) < 0)
		return errno;
#endif
	return 0;
}

errcode_t cli_disk_fs_bytes(const unsigned char *sb, uint64_t *bytes)
{
	uint64_t blocks = cli_disk_le32(sb + 4);
	uint32_t log = cli_disk_le32(sb + 24);

	if ((sb[56] | sb[57] << 8) != CLI_EXT4_MAGIC)
		return EXT2_ET_BAD_MAGIC;
	if (log > 6)
		return EXT2_ET_CORRUPT_SUPERBLOCK;
	/* as ext2fs_blocks_count(): the high half counts only with the 64bit feature */
	if (cli_disk_le32(sb + 0x60) & EXT4_FEATURE_INCOMPAT_64BIT)
		blocks |= (uint64_t)cli_disk_le32(sb + 0x150) << 32;
	*bytes = blocks << (10 + log);
	return 0;
}

/*
 * One cut short reads as zeros past its end, and a write there would make
 * the file grow.  Anything that is not an ext4 superblock is left to
 * libext2fs, which says best what is wrong with it.
 */
errcode_t cli_disk_check_super(const unsigned char *sb, uint64_t file_size, const char *what,
			       char *why, size_t ws)
{
	uint64_t fs_bytes;

	if (cli_disk_fs_bytes(sb, &fs_bytes) || fs_bytes <= file_size)
		return 0;
	snprintf(why, ws, "%cis truncated: its filesystem is %llu bytes, but %s only %llu",
		 CLI_WHY_WHOLE, (unsigned long long)fs_bytes, what, (unsigned long long)file_size);
	return EXT2_ET_SHORT_READ;
}

errcode_t cli_disk_check_whole(int fd, uint64_t file_size, char *why, size_t ws)
{
	unsigned char sb[1024];

	if (pread(fd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb))
		return 0;
	return cli_disk_check_super(sb, file_size, "the file", why, ws);
}

/* what blkid calls the contents of @size bytes at @start, for a message */
#ifdef HAVE_BLKID
static void cli_disk_contents(int fd, uint64_t start, uint64_t size, char *out, size_t outsize)
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
#else
static void cli_disk_contents(int fd, uint64_t start, uint64_t size, char *out, size_t outsize)
{
	(void)fd;
	(void)start;
	(void)size;
	snprintf(out, outsize, "no ext4 superblock");
}
#endif

/* the filesystem at @d->offset must be ext4 and end inside @d->size (0: the file's end) */
static errcode_t cli_disk_check_place(struct cli_disk *d, int fd, uint64_t file_size, char *why,
				      size_t ws)
{
	unsigned char sb[1024];
	char what[64], type[32];
	uint64_t fs_bytes = 0;
	errcode_t err;

	if (d->partno)
		snprintf(what, sizeof(what), "partition %d", d->partno);
	else
		snprintf(what, sizeof(what), "offset %llu", (unsigned long long)d->offset);
	if (d->offset > file_size || d->size > file_size - d->offset) {
		snprintf(why, ws, " (%s ends at byte %llu, past the end of the image at %llu)",
			 what, (unsigned long long)(d->offset + d->size),
			 (unsigned long long)file_size);
		return EXT2_ET_SHORT_READ;
	}
	if (!d->size)
		d->size = file_size - d->offset;
	if (pread(fd, sb, sizeof(sb), d->offset + 1024) != (ssize_t)sizeof(sb))
		memset(sb, 0, sizeof(sb));
	err = cli_disk_fs_bytes(sb, &fs_bytes);
	if (err == EXT2_ET_BAD_MAGIC) {
		cli_disk_contents(fd, d->offset, d->size, type, sizeof(type));
		snprintf(why, ws, " (%s is not an ext4 filesystem: %s)", what, type);
		return EXT2_ET_BAD_MAGIC;
	}
	/* writes stay inside the filesystem: it must stay inside the partition */
	if (err || fs_bytes > d->size) {
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

errcode_t cli_disk_open_file(struct cli_disk *d, int fd, const struct stat *st, int placed,
			     char *why, size_t ws)
{
	uint64_t size;
	errcode_t err;

	err = cli_disk_fd_size(fd, st, &size);
	if (!err && placed)
		err = cli_disk_check_place(d, fd, size, why, ws);
	else if (!err)
		err = cli_disk_check_whole(fd, size, why, ws);
	if (err)
		return err;
	d->open_name = strdup(d->file);
	return d->open_name ? 0 : ENOMEM;
}

/* e2fsprogs' io option syntax: only offset= means anything to a file image */
errcode_t cli_disk_parse_offset(const char *opts, uint64_t *offset, char *why, size_t ws)
{
	char *end;
	unsigned long long v;

	if (strncmp(opts, "offset=", 7) != 0 || !opts[7] || opts[7] == '-') {
		snprintf(why, ws, " (unknown io option '%s'; IMAGE?offset=BYTES is known)",
			 cli_name(opts));
		return EINVAL;
	}
	errno = 0;
	v = strtoull(opts + 7, &end, 0);
	if (errno || *end) {
		snprintf(why, ws, " (invalid offset '%s')", cli_name(opts + 7));
		return EINVAL;
	}
	*offset = v;
	return 0;
}
