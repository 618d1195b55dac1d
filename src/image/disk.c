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

#include "image/disk.h"
#include "image/container.h"
#include "output/outfile.h"

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

int cli_disk_name_valid(const char *name, char *why, size_t whysize)
{
	const char *opts = strchr(name, '?');
	uint64_t offset;

	why[0] = '\0';
	return !opts || !cli_disk_parse_offset(opts + 1, &offset, why, whysize);
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
