// SPDX-License-Identifier: GPL-2.0-or-later
/* disk_partition.c - a partition of a disk image (GPT or MBR, read by libblkid): --partition */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef HAVE_BLKID
#include <blkid.h>

#include "image/container.h"
#include "output/names.h"

static int cli_all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/*
 * The reason a partition asked for is not there, with the partitions that
 * are: "has no partition named 'x' (its partitions: 1 'EFI', 2 'root')"
 */
static void cli_partition_list(blkid_partlist ls, int n, const char *by, const char *want,
			       char *why, size_t ws)
{
	size_t len;
	int i;

	snprintf(why, ws, "%chas no partition %s '%s' (its partitions:", CLI_WHY_WHOLE, by,
		 cli_name(want));
	for (i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		const char *name = blkid_partition_get_name(par);

		len = strlen(why);
		/* room for the closing ", ...)" */
		if (len + 8 >= ws)
			break;
		snprintf(why + len, ws - len, "%s %d%s%s%s", i ? "," : "",
			 blkid_partition_get_partno(par), name && *name ? " '" : "",
			 name && *name ? cli_name(name) : "", name && *name ? "'" : "");
	}
	len = strlen(why);
	if (i < n && len + 6 < ws)
		snprintf(why + len, ws - len, ", ...");
	len = strlen(why);
	if (len + 2 >= ws)
		len = ws - 2;
	why[len] = ')';
	why[len + 1] = '\0';
}

/* --partition=N|NAME|UUID: a GPT partition by number, name or UUID; an MBR one by number */
static errcode_t cli_find_partition(struct cli_disk *d, const char *file, const char *want,
				    char *why, size_t ws)
{
	blkid_probe pr = blkid_new_probe_from_filename(file);
	blkid_partlist ls;
	int n, number = cli_all_digits(want) ? atoi(want) : -1;
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
		snprintf(why, ws, "%chas no partition table (--partition=%s)", CLI_WHY_WHOLE,
			 cli_name(want));
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
	cli_partition_list(ls, n, number >= 0 ? "number" : "named", want, why, ws);
out:
	blkid_free_probe(pr);
	return err;
}
#else
static errcode_t cli_find_partition(struct cli_disk *d, const char *file, const char *want,
				    char *why, size_t ws)
{
	(void)d;
	(void)file;
	(void)want;
	snprintf(why, ws, " (--partition: this e2verity was built without libblkid)");
	return EXT2_ET_UNIMPLEMENTED;
}
#endif

/* chosen by the command line, not by the image's first bytes */
static int cli_partition_probe(const unsigned char *head, size_t n, const char *opts,
			       const char *partition)
{
	(void)head;
	(void)n;
	(void)opts;
	return partition != NULL;
}

static errcode_t cli_partition_open(struct cli_disk *d, int fd, const struct stat *st,
				    const char *opts, const char *partition, char *why, size_t ws)
{
	errcode_t err;

	err = cli_disk_one_place(opts, partition, why, ws);
	if (!err)
		err = cli_find_partition(d, d->file, partition, why, ws);
	return err ? err : cli_disk_open_file(d, fd, st, 1, why, ws);
}

const struct cli_container_ops cli_container_partition = {
	.name = "partition",
	.probe = cli_partition_probe,
	.open = cli_partition_open,
};
