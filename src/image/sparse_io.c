// SPDX-License-Identifier: GPL-2.0-or-later
/* sparse_io.c - a read-only io manager over an Android sparse image's chunks: nothing expanded */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/sparse_io.h"
#include "image/sparse.h"

/*
 * A channel holds the file and its checked chunk table; reads are pread()s
 * of raw chunks and fills made in the caller's buffer, with no state that
 * changes, so the hashing threads may read through one channel at once.
 */
struct cli_sparse_chan {
	int fd;
	struct cli_sparse sp;
};

static struct struct_io_manager cli_sparse_manager;

static errcode_t cli_sparse_close(io_channel c)
{
	struct cli_sparse_chan *s = c->private_data;

	if (--c->refcount > 0)
		return 0;
	if (s) {
		close(s->fd);
		cli_sparse_free(&s->sp);
		free(s);
	}
	free(c->name);
	free(c);
	return 0;
}

static errcode_t cli_sparse_open(const char *name, int flags, io_channel *channel)
{
	const size_t plen = strlen(CLI_SPARSE_IO_PREFIX);
	struct cli_sparse_chan *s = NULL;
	io_channel c = NULL;
	struct stat st;
	char why[8];
	errcode_t err;

	if (strncmp(name, CLI_SPARSE_IO_PREFIX, plen) != 0)
		return EXT2_ET_BAD_DEVICE_NAME;
	/* a write would have to grow the chunks: writing goes through an expanded copy */
	if (flags & IO_FLAG_RW)
		return EXT2_ET_RO_FILSYS;
	c = calloc(1, sizeof(*c));
	s = calloc(1, sizeof(*s));
	if (!c || !s || !(c->name = strdup(name))) {
		err = ENOMEM;
		goto fail;
	}
	s->fd = open(name + plen, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		err = errno;
		goto fail;
	}
	/* the door checked the table and said what is wrong with it; this is the channel's own */
	if (fstat(s->fd, &st) < 0)
		err = errno;
	else
		err = cli_sparse_scan(s->fd, st.st_size, &s->sp, why, sizeof(why));
	if (err) {
		close(s->fd);
		cli_sparse_free(&s->sp);
		goto fail;
	}
	c->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	c->manager = &cli_sparse_manager;
	c->block_size = 1024;
	c->refcount = 1;
	c->private_data = s;
	*channel = c;
	return 0;
fail:
	if (c)
		free(c->name);
	free(c);
	free(s);
	return err;
}

static errcode_t cli_sparse_set_blksize(io_channel c, int blksize)
{
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	c->block_size = blksize;
	return 0;
}

/* as the unix io manager: @count < 0 is a count of bytes */
static errcode_t cli_sparse_read64(io_channel c, unsigned long long block, int count, void *data)
{
	struct cli_sparse_chan *s = c->private_data;
	const int64_t n = count;
	const uint64_t len = n < 0 ? (uint64_t)(-n) : (uint64_t)n * c->block_size;

	/* a block number from a damaged image: past any sparse image (2^32 blocks of 64 MiB) */
	if (block > UINT64_MAX / 2 / c->block_size) {
		memset(data, 0, len);
		return EXT2_ET_SHORT_READ;
	}
	return cli_sparse_read(s->fd, &s->sp, block * c->block_size, data, len);
}

static errcode_t cli_sparse_read_blk(io_channel c, unsigned long block, int count, void *data)
{
	return cli_sparse_read64(c, block, count, data);
}

static errcode_t cli_sparse_write64(io_channel c, unsigned long long block, int count,
				    const void *data)
{
	(void)c;
	(void)block;
	(void)count;
	(void)data;
	return EXT2_ET_RO_FILSYS;
}

static errcode_t cli_sparse_write_blk(io_channel c, unsigned long block, int count,
				      const void *data)
{
	return cli_sparse_write64(c, block, count, data);
}

static errcode_t cli_sparse_write_byte(io_channel c, unsigned long offset, int count,
				       const void *data)
{
	(void)offset;
	return cli_sparse_write64(c, 0, count, data);
}

static errcode_t cli_sparse_flush(io_channel c)
{
	(void)c;
	return 0;
}

static errcode_t cli_sparse_set_option(io_channel c, const char *option, const char *arg)
{
	(void)c;
	(void)option;
	(void)arg;
	/* a sparse image holds one filesystem, at its start: no offset= */
	return EXT2_ET_INVALID_ARGUMENT;
}

static struct struct_io_manager cli_sparse_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e2verity Android sparse (read-only)",
	.open = cli_sparse_open,
	.close = cli_sparse_close,
	.set_blksize = cli_sparse_set_blksize,
	.read_blk = cli_sparse_read_blk,
	.write_blk = cli_sparse_write_blk,
	.flush = cli_sparse_flush,
	.write_byte = cli_sparse_write_byte,
	.set_option = cli_sparse_set_option,
	.read_blk64 = cli_sparse_read64,
	.write_blk64 = cli_sparse_write64,
};

io_manager cli_sparse_io_manager(void)
{
	return &cli_sparse_manager;
}
