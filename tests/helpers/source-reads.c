// SPDX-License-Identifier: GPL-2.0-or-later
/* source-reads.c - check an image opened through an io manager of its own, with or without an image source */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2verity.h"

/*
 * An io manager that passes everything to unix_io and counts the bytes read
 * through it.  The name it is opened by ("count:PATH") is no file: the
 * library cannot find the image by fs->device_name, only by the source
 * e2verity_set_image_source() names.
 */
static unsigned long long bytes_read;

static io_channel real_of(io_channel io)
{
	return io->private_data;
}

static errcode_t count_close(io_channel io)
{
	errcode_t err = io_channel_close(real_of(io));

	free(io->name);
	free(io);
	return err;
}

static errcode_t count_set_blksize(io_channel io, int blksize)
{
	io->block_size = blksize;
	return io_channel_set_blksize(real_of(io), blksize);
}

static void count_bytes(io_channel io, int count)
{
	bytes_read +=
		count < 0 ? (unsigned long long)-count : (unsigned long long)count * io->block_size;
}

static errcode_t count_read_blk64(io_channel io, unsigned long long block, int count, void *data)
{
	count_bytes(io, count);
	return io_channel_read_blk64(real_of(io), block, count, data);
}

static errcode_t count_read_blk(io_channel io, unsigned long block, int count, void *data)
{
	return count_read_blk64(io, block, count, data);
}

static errcode_t count_write_blk64(io_channel io, unsigned long long block, int count,
				   const void *data)
{
	return io_channel_write_blk64(real_of(io), block, count, data);
}

static errcode_t count_write_blk(io_channel io, unsigned long block, int count, const void *data)
{
	return count_write_blk64(io, block, count, data);
}

static errcode_t count_flush(io_channel io)
{
	return io_channel_flush(real_of(io));
}

static errcode_t count_write_byte(io_channel io, unsigned long offset, int count, const void *data)
{
	return io_channel_write_byte(real_of(io), offset, count, data);
}

static errcode_t count_set_option(io_channel io, const char *option, const char *arg)
{
	io_channel real = real_of(io);

	return real->manager->set_option ? real->manager->set_option(real, option, arg)
					 : EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t count_open(const char *name, int flags, io_channel *channel);

static struct struct_io_manager count_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "counting I/O manager",
	.open = count_open,
	.close = count_close,
	.set_blksize = count_set_blksize,
	.read_blk = count_read_blk,
	.write_blk = count_write_blk,
	.flush = count_flush,
	.write_byte = count_write_byte,
	.set_option = count_set_option,
	.read_blk64 = count_read_blk64,
	.write_blk64 = count_write_blk64,
};

static errcode_t count_open(const char *name, int flags, io_channel *channel)
{
	io_channel io, real;
	errcode_t err;

	if (strncmp(name, "count:", 6) != 0)
		return EXT2_ET_BAD_DEVICE_NAME;
	err = unix_io_manager->open(name + 6, flags, &real);
	if (err)
		return err;
	io = calloc(1, sizeof(*io));
	if (!io || !(io->name = strdup(name))) {
		free(io);
		io_channel_close(real);
		return EXT2_ET_NO_MEMORY;
	}
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &count_manager;
	io->block_size = real->block_size;
	io->refcount = 1;
	io->private_data = real;
	*channel = io;
	return 0;
}

static errcode_t file_done(void *ctx, const struct e2verity_check_file *f)
{
	unsigned int *n = ctx;

	(void)f;
	(*n)++;
	return 0;
}

int main(int argc, char *argv[])
{
	unsigned int files = 0;
	struct e2verity_check_opts opts = { .threads.count = 2,
					    .file_done = file_done,
					    .ctx = &files };
	struct e2verity_check_stats st = { 0 };
	char name[4096];
	struct e2verity_image *img = NULL;
	ext2_filsys fs;
	errcode_t err;
	int fd = -1;

	if (argc != 3 || (strcmp(argv[2], "source") && strcmp(argv[2], "none"))) {
		fprintf(stderr, "usage: %s IMAGE source|none\n", argv[0]);
		return 2;
	}
	e2verity_init();
	snprintf(name, sizeof(name), "count:%s", argv[1]);
	err = ext2fs_open(name, EXT2_FLAG_64BITS, 0, 0, &count_manager, &fs);
	if (err)
		goto out;
	err = e2verity_image_attach(fs, &img);
	if (err)
		goto out;
	if (!strcmp(argv[2], "source")) {
		fd = open(argv[1], O_RDONLY);
		err = fd < 0 ? (errcode_t)errno : e2verity_set_image_source(fs, fd, 0);
		if (err)
			goto out;
	}
	bytes_read = 0;
	err = e2verity_check_image(fs, &opts, &st);
	printf("files %u failed %llu through-the-io-manager %llu\n", files,
	       (unsigned long long)st.failed, bytes_read);
	e2verity_image_detach(img);
	ext2fs_close_free(&fs);
out:
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "%s: %s\n", argv[1], error_message(err));
	return err ? 1 : 0;
}
