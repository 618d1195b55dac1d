/* SPDX-License-Identifier: GPL-2.0-or-later */
/* container.h - the containers an image's filesystem can lie in: one file and one table row each */
#ifndef E2VERITY_CONTAINER_H
#define E2VERITY_CONTAINER_H

#include <sys/stat.h>

#include "output/outfile.h"

/*
 * A reason that says all there is to say about the failure starts with
 * CLI_WHY_WHOLE: what follows is said of the image's name ("'disk.img' has
 * no partition table"), without the error code's text, which only stood in
 * for it (ENOENT for a partition that is not there, while the file is).
 * Other reasons follow the error's text in parentheses.
 */
#define CLI_WHY_WHOLE '!'

/* What an IMAGE argument (with ?offset= or --partition) resolves to. */
struct cli_disk {
	char *file;		 /* the file named: what is locked and checked for a mount */
	char *open_name;	 /* what libext2fs opens: @file, or the copy of a sparse image */
	io_manager io;		 /* what @open_name is read through; NULL: the usual one */
	char io_options[48];	 /* "offset=N" when the filesystem does not start at byte 0 */
	uint64_t offset, size;	 /* the filesystem's place in @open_name; @size 0: to its end */
	int partno;		 /* the partition chosen, or 0 */
	int sparse;		 /* an Android sparse image: cli_disk_expand() makes its copy */
	struct cli_outfile *out; /* written to: where the sparse image goes back */
	const struct cli_container_ops *ops; /* its container: a row of the table in disk.c */
	void *priv;			     /* that container's own state */
};

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

/* helpers the table and its rows share (container.c) */
uint32_t cli_disk_le32(const unsigned char *p);
/*
 * The bytes of the ext4 filesystem whose superblock is @sb (its 1024
 * bytes): 0, EXT2_ET_BAD_MAGIC for no ext4 superblock, or
 * EXT2_ET_CORRUPT_SUPERBLOCK for a block size no filesystem has.
 */
errcode_t cli_disk_fs_bytes(const unsigned char *sb, uint64_t *bytes);
/*
 * A whole-file image must hold all of its filesystem: @sb read from @what
 * ("the file"), of @file_size bytes.
 */
errcode_t cli_disk_check_super(const unsigned char *sb, uint64_t file_size, const char *what,
			       char *why, size_t ws);
/* the same, the superblock read from @fd */
errcode_t cli_disk_check_whole(int fd, uint64_t file_size, char *why, size_t ws);
/*
 * libext2fs opens @d->file itself: checked whole, or with @placed at
 * @d->offset (cli_disk_check_place())
 */
errcode_t cli_disk_open_file(struct cli_disk *d, int fd, const struct stat *st, int placed,
			     char *why, size_t ws);
/* ?offset= and --partition name one place each: both at once is a mistake */
errcode_t cli_disk_one_place(const char *opts, const char *partition, char *why, size_t ws);

/* IMAGE?offset=BYTES: the only io option a file image has */
errcode_t cli_disk_parse_offset(const char *opts, uint64_t *offset, char *why, size_t ws);

#endif /* E2VERITY_CONTAINER_H */
