/* SPDX-License-Identifier: GPL-2.0-or-later */
/* container.h - the containers an image's filesystem can lie in: one file and one table row each */
#ifndef E2VERITY_CONTAINER_H
#define E2VERITY_CONTAINER_H

#include <sys/stat.h>

#include "image/disk.h"

/*
 * One kind of container.  cli_disk_resolve() walks cli_containers[] and
 * takes the first row whose probe claims the image; the others are not
 * asked.  Only probe and open are required.
 */
struct cli_container_ops {
	const char *name;
	/*
	 * 1 if this container holds the image: @head is its first @n bytes
	 * (fewer than 4 for a tiny file), @opts what followed '?' in its name
	 * and @partition the --partition argument, either NULL.
	 */
	int (*probe)(const unsigned char *head, size_t n, const char *opts, const char *partition);
	/*
	 * Finds the filesystem in @d->file (open at @fd, as @st says): sets
	 * @d->offset, @d->size, @d->io_options and @d->open_name, or says in
	 * @why what is wrong.  Nothing is locked yet.
	 */
	errcode_t (*open)(struct cli_disk *d, int fd, const struct stat *st, const char *opts,
			  const char *partition, char *why, size_t ws);
	/* once the file is locked: cli_disk_expand() */
	errcode_t (*expand)(struct cli_disk *d, unsigned int how, char *why, size_t ws);
	/* after a command wrote: cli_disk_write_back() */
	errcode_t (*write_back)(struct cli_disk *d);
	/* after an abandoned write: cli_disk_forget() */
	void (*forget)(struct cli_disk *d);
	/* frees @d->priv: cli_disk_free() */
	void (*close)(struct cli_disk *d);
};

/* the rows, each defined in its own file (disk_NAME.c) */
extern const struct cli_container_ops cli_container_gzip;
extern const struct cli_container_ops cli_container_sparse;
extern const struct cli_container_ops cli_container_partition;
extern const struct cli_container_ops cli_container_raw;

/* helpers the rows share (disk.c) */
uint32_t cli_disk_le32(const unsigned char *p);
/* a regular file's length, or a block device's size */
errcode_t cli_disk_fd_size(int fd, const struct stat *st, uint64_t *size);
/* a whole-file image must hold all of its filesystem */
errcode_t cli_disk_check_whole(int fd, uint64_t file_size, char *why, size_t ws);
/* the filesystem at @d->offset must be ext4 and end inside @d->size (0: the file's end) */
errcode_t cli_disk_check_place(struct cli_disk *d, int fd, uint64_t file_size, char *why,
			       size_t ws);
/*
 * libext2fs opens @d->file itself: checked whole, or with @placed at
 * @d->offset (cli_disk_check_place())
 */
errcode_t cli_disk_open_file(struct cli_disk *d, int fd, const struct stat *st, int placed,
			     char *why, size_t ws);
/* ?offset= and --partition name one place each: both at once is a mistake */
errcode_t cli_disk_one_place(const char *opts, const char *partition, char *why, size_t ws);

/* IMAGE?offset=BYTES: the only io option a file image has (disk_raw.c) */
errcode_t cli_disk_parse_offset(const char *opts, uint64_t *offset, char *why, size_t ws);
/* what blkid calls the contents of @size bytes at @start, for a message (disk_partition.c) */
void cli_disk_contents(int fd, uint64_t start, uint64_t size, char *out, size_t outsize);

#endif /* E2VERITY_CONTAINER_H */
