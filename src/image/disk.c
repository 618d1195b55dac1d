// SPDX-License-Identifier: GPL-2.0-or-later
/* disk.c - find an image's filesystem: the table of containers, walked once per open */
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

#include "image/container.h"

#define CLI_EXT4_MAGIC 0xef53

/*
 * In the order they are asked: those known by their first bytes, then
 * --partition, then the raw file (with or without ?offset=), which takes
 * whatever is left.
 */
static const struct cli_container_ops *const cli_containers[] = {
	&cli_container_gzip,
	&cli_container_sparse,
	&cli_container_partition,
	&cli_container_raw,
};

uint32_t cli_disk_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int cli_disk_name_valid(const char *name, char *why, size_t whysize)
{
	const char *opts = strchr(name, '?');
	uint64_t offset;

	why[0] = '\0';
	return !opts || !cli_disk_parse_offset(opts + 1, &offset, why, whysize);
}

errcode_t cli_disk_one_place(const char *opts, const char *partition, char *why, size_t ws)
{
	if (opts && partition) {
		snprintf(why, ws, " (?%s and --partition exclude each other)", opts);
		return EINVAL;
	}
	return 0;
}

errcode_t cli_disk_fd_size(int fd, const struct stat *st, uint64_t *size)
{
	*size = st->st_size;
#ifdef BLKGETSIZE64
	if (S_ISBLK(st->st_mode) && ioctl(fd, BLKGETSIZE64, size) < 0)
		return errno;
#endif
	return 0;
}

/*
 * One cut short reads as zeros past its end, and a write there would make
 * the file grow.  Anything that is not an ext4 superblock is left to
 * libext2fs, which says best what is wrong with it.
 */
errcode_t cli_disk_check_whole(int fd, uint64_t file_size, char *why, size_t ws)
{
	unsigned char sb[1024];
	uint64_t fs_bytes;
	uint32_t log;

	if (pread(fd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb) ||
	    (sb[56] | sb[57] << 8) != CLI_EXT4_MAGIC)
		return 0;
	log = cli_disk_le32(sb + 24);
	if (log > 6)
		return 0;
	fs_bytes = ((uint64_t)cli_disk_le32(sb + 4) | (uint64_t)cli_disk_le32(sb + 0x150) << 32)
		   << (10 + log);
	if (fs_bytes <= file_size)
		return 0;
	snprintf(why, ws,
		" (its filesystem is %llu bytes, but the file only %llu: the image is truncated)",
		(unsigned long long)fs_bytes, (unsigned long long)file_size);
	return EXT2_ET_SHORT_READ;
}

errcode_t cli_disk_check_place(struct cli_disk *d, int fd, uint64_t file_size, char *why,
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
	    (sb[56] | sb[57] << 8) != CLI_EXT4_MAGIC) {
		cli_disk_contents(fd, d->offset, d->size, type, sizeof(type));
		snprintf(why, ws, " (%s is not an ext4 filesystem: %s)", what, type);
		return EXT2_ET_BAD_MAGIC;
	}
	log = cli_disk_le32(sb + 24);
	fs_bytes = ((uint64_t)cli_disk_le32(sb + 4) | (uint64_t)cli_disk_le32(sb + 0x150) << 32)
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

errcode_t cli_disk_resolve(struct cli_disk *d, const char *name, const char *partition, char *why,
			   size_t ws)
{
	unsigned char head[4];
	struct stat st;
	ssize_t n;
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
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0)
		n = 0;
	/* the raw row, last, claims every image: the walk always ends on a row */
	for (size_t i = 0; i < sizeof(cli_containers) / sizeof(cli_containers[0]); i++) {
		if (cli_containers[i]->probe(head, n, opts, partition)) {
			d->ops = cli_containers[i];
			break;
		}
	}
	err = d->ops->open(d, fd, &st, opts, partition, why, ws);
	close(fd);
	return err;
}

errcode_t cli_disk_expand(struct cli_disk *d, unsigned int how, char *why, size_t ws)
{
	return d->ops && d->ops->expand ? d->ops->expand(d, how, why, ws) : 0;
}

errcode_t cli_disk_write_back(struct cli_disk *d)
{
	return d->ops && d->ops->write_back ? d->ops->write_back(d) : 0;
}

void cli_disk_forget(struct cli_disk *d)
{
	if (d->ops && d->ops->forget)
		d->ops->forget(d);
}

void cli_disk_free(struct cli_disk *d)
{
	if (d->ops && d->ops->close)
		d->ops->close(d);
	if (d->out) {
		cli_outfile_abort(d->out);
		free(d->out);
	}
	free(d->file);
	free(d->open_name);
	memset(d, 0, sizeof(*d));
}
