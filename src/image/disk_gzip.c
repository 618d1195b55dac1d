// SPDX-License-Identifier: GPL-2.0-or-later
/* disk_gzip.c - a gzip-compressed image: recognised, to be refused with a reason */
#include "config.h"

#include "image/container.h"

static int cli_gzip_probe(const unsigned char *head, size_t n, const char *opts,
			  const char *partition)
{
	(void)opts;
	(void)partition;
	return n >= 4 && head[0] == 0x1f && head[1] == 0x8b;
}

/* libext2fs would call it only a bad superblock: the user is told what to do instead */
static errcode_t cli_gzip_open(struct cli_disk *d, int fd, const struct stat *st, const char *opts,
			       const char *partition, char *why, size_t ws)
{
	(void)d;
	(void)fd;
	(void)st;
	(void)opts;
	(void)partition;
	snprintf(why, ws, " (it is gzip-compressed: decompress it first)");
	return EXT2_ET_BAD_MAGIC;
}

const struct cli_container_ops cli_container_gzip = {
	.name = "gzip",
	.probe = cli_gzip_probe,
	.open = cli_gzip_open,
};
