// SPDX-License-Identifier: GPL-2.0-or-later
/* disk_raw.c - a raw image: the filesystem at byte 0, or at IMAGE?offset=BYTES */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "image/container.h"

/* last in the table: whatever no other row claimed */
static int cli_raw_probe(const unsigned char *head, size_t n, const char *opts,
			 const char *partition)
{
	(void)head;
	(void)n;
	(void)opts;
	(void)partition;
	return 1;
}

static errcode_t cli_raw_open(struct cli_disk *d, int fd, const struct stat *st, const char *opts,
			      const char *partition, char *why, size_t ws)
{
	errcode_t err;

	err = cli_disk_one_place(opts, partition, why, ws);
	if (!err && opts)
		err = cli_disk_parse_offset(opts, &d->offset, why, ws);
	return err ? err : cli_disk_open_file(d, fd, st, opts != NULL, why, ws);
}

const struct cli_container_ops cli_container_raw = {
	.name = "raw",
	.probe = cli_raw_probe,
	.open = cli_raw_open,
};
