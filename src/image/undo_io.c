// SPDX-License-Identifier: GPL-2.0-or-later
/* undo_io.c - -z: an io manager that saves what each write overwrites, in e2undo's format */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/undo_io.h"
#include "cli/util.h"

/*
 * The undo file is e2undo's (e2fsprogs misc/e2undo.c, format "E2UNDO02"),
 * laid out in 1 KiB blocks: the header in block 0, the superblock of the
 * filesystem in block 1, then a key block and the data its keys describe,
 * the next key block, its data, and so on.  Keys count 1 KiB units of the
 * filesystem.
 *
 * libext2fs' undo manager writes its index and its copy of the superblock
 * only now and then (e2undo then finds "the superblock doesn't match the
 * undo file" after a kill, or an "incomplete undo record" that makes it mark
 * the filesystem for a check).  Here the file is whole after every write:
 * what a write overwrites is saved, then the key block, then the header with
 * the superblock as the disk has it, and only then is the write made; a
 * write that changes the superblock is made straight to the file, and the
 * header follows at once.  The file takes its name only once its header is
 * on disk.  A process killed at any point leaves no undo file (the image not
 * yet written) or one that plain e2undo applies, giving back the image byte
 * for byte; only a kill between a superblock's write and the header's (two
 * system calls apart) leaves one that e2undo applies with -f.
 */
#define CLI_UNDO_MAGIC "E2UNDO02"
#define CLI_UNDO_BLOCK 1024
#define CLI_UNDO_FINISHED 0x1
#define CLI_UNDO_FS_OFFSET 0x1
#define CLI_UNDO_KEY_MAGIC 0xcadecade
/* e2undo's E2UNDO_MAX_EXTENT_BLOCKS: the most one key may cover */
#define CLI_UNDO_KEY_MAX (512u * CLI_UNDO_BLOCK)
#define CLI_UNDO_KEYS_PER_BLOCK (CLI_UNDO_BLOCK / 16 - 1)
#define CLI_SUPER_POS 1024
#define CLI_SUPER_SIZE 1024

struct cli_undo_range {
	uint64_t start, end; /* 1 KiB units of the filesystem, saved already */
};

struct cli_undo {
	io_channel real;
	int fd;
	char *tmp;	  /* the file's name until its header is written, then NULL */
	uint64_t offset;  /* of the filesystem in the device: io option offset= */
	int started;	  /* the header is on disk */
	errcode_t broken; /* the undo file failed: nothing more is written */
	struct cli_undo_range *saved;
	size_t nsaved, cap;
	unsigned char keyb[CLI_UNDO_BLOCK];
	unsigned int keys_in_block;
	uint64_t key_blk, next_blk, num_keys;
	unsigned char super[CLI_SUPER_SIZE]; /* as the disk has it */
};

static io_manager cli_undo_backing;
static char *cli_undo_path;
static struct struct_io_manager cli_undo_manager;

static void cli_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

static uint64_t cli_get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static struct cli_undo *cli_undo_of(io_channel c)
{
	return c->private_data;
}

/* Bytes of the filesystem, read through the channel below (whose cache is the truth). */
static errcode_t cli_undo_read(struct cli_undo *u, uint64_t pos, size_t len, unsigned char *out)
{
	const unsigned int bs = u->real->block_size;
	uint64_t first = pos / bs, last = (pos + len - 1) / bs;
	unsigned char *buf;
	errcode_t err;

	if (last - first + 1 > INT32_MAX / bs)
		return EFBIG;
	buf = malloc((last - first + 1) * bs);
	if (!buf)
		return ENOMEM;
	err = io_channel_read_blk64(u->real, first, last - first + 1, buf);
	if (!err)
		memcpy(out, buf + (pos - first * bs), len);
	free(buf);
	return err;
}

/* The header and the superblock copy, in one write (blocks 0 and 1). */
static errcode_t cli_undo_write_head(struct cli_undo *u)
{
	unsigned char b[2 * CLI_UNDO_BLOCK] = { 0 }, *h = b, *sb = b + CLI_UNDO_BLOCK;
	uint16_t magic;

	memcpy(h, CLI_UNDO_MAGIC, 8);
	cli_le(h + 8, u->num_keys, 8);
	cli_le(h + 16, 1, 8); /* the superblock copy's block */
	cli_le(h + 24, 2, 8); /* the first key block */
	cli_le(h + 32, CLI_UNDO_BLOCK, 4);
	cli_le(h + 36, CLI_UNDO_BLOCK, 4); /* keys count 1 KiB units */
	cli_le(h + 40, ext2fs_crc32c_le(~0, u->super, CLI_SUPER_SIZE), 4);
	/* complete after every write: e2undo need not ask for a check */
	cli_le(h + 44, CLI_UNDO_FINISHED, 4);
	cli_le(h + 48, u->offset ? CLI_UNDO_FS_OFFSET : 0, 4);
	cli_le(h + 64, u->offset, 8);
	cli_le(h + 508, ext2fs_crc32c_le(~0, h, 508), 4);
	/* the copy's magic is inverted, so that nothing takes the undo file for a filesystem */
	memcpy(sb, u->super, CLI_SUPER_SIZE);
	magic = ~(uint16_t)cli_get_le(sb + 56, 2);
	cli_le(sb + 56, magic, 2);
	return cli_write_all(u->fd, b, sizeof(b), 0);
}

static errcode_t cli_undo_start(struct cli_undo *u)
{
	errcode_t err;

	if (u->started || u->broken)
		return u->broken;
	err = cli_undo_read(u, CLI_SUPER_POS, CLI_SUPER_SIZE, u->super);
	if (!err)
		err = cli_undo_write_head(u);
	/*
	 * Only a file e2undo takes gets the name: a kill before this leaves no
	 * undo file (and the image untouched), never an empty one e2undo
	 * refuses ("short read").
	 */
	if (!err && fsync(u->fd) < 0)
		err = errno;
	if (!err && rename(u->tmp, cli_undo_path) < 0)
		err = errno;
	if (err)
		return u->broken = err;
	free(u->tmp);
	u->tmp = NULL;
	u->key_blk = 2;
	u->next_blk = 3;
	u->started = 1;
	return 0;
}

/* The first saved range that ends after @k. */
static size_t cli_undo_find(const struct cli_undo *u, uint64_t k)
{
	size_t lo = 0, hi = u->nsaved;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->saved[mid].end <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static errcode_t cli_undo_mark(struct cli_undo *u, uint64_t a, uint64_t b)
{
	size_t i = cli_undo_find(u, a);

	/* joins the range before it, or after it, or goes between */
	if (i > 0 && u->saved[i - 1].end == a) {
		u->saved[i - 1].end = b;
		if (i < u->nsaved && u->saved[i].start == b) {
			u->saved[i - 1].end = u->saved[i].end;
			memmove(u->saved + i, u->saved + i + 1,
				(u->nsaved - i - 1) * sizeof(*u->saved));
			u->nsaved--;
		}
		return 0;
	}
	if (i < u->nsaved && u->saved[i].start == b) {
		u->saved[i].start = a;
		return 0;
	}
	if (cli_grow((void **)&u->saved, &u->cap, u->nsaved, sizeof(*u->saved)))
		return ENOMEM;
	memmove(u->saved + i + 1, u->saved + i, (u->nsaved - i) * sizeof(*u->saved));
	u->saved[i].start = a;
	u->saved[i].end = b;
	u->nsaved++;
	return 0;
}

/* Appends the old bytes of units [@a, @b) to the undo file, under one key or more. */
static errcode_t cli_undo_append(struct cli_undo *u, uint64_t a, uint64_t b)
{
	unsigned char *buf = malloc(CLI_UNDO_KEY_MAX);
	errcode_t err = 0;

	if (!buf)
		return ENOMEM;
	while (!err && a < b) {
		uint64_t n = b - a;
		unsigned char *key = NULL;
		uint32_t size = 0;

		if (u->keys_in_block) {
			key = u->keyb + 16 * u->keys_in_block;
			size = cli_get_le(key + 12, 4);
		}
		/* the last key grows while the units follow on, in the file too */
		if (key && cli_get_le(key, 8) + size / CLI_UNDO_BLOCK == a &&
		    size < CLI_UNDO_KEY_MAX) {
			if (n > (CLI_UNDO_KEY_MAX - size) / CLI_UNDO_BLOCK)
				n = (CLI_UNDO_KEY_MAX - size) / CLI_UNDO_BLOCK;
		} else {
			if (u->keys_in_block == CLI_UNDO_KEYS_PER_BLOCK) {
				/* the next key block goes right after the data of this one */
				memset(u->keyb, 0, sizeof(u->keyb));
				u->keys_in_block = 0;
				u->key_blk = u->next_blk++;
			}
			key = u->keyb + 16 * ++u->keys_in_block;
			size = 0;
			cli_le(key, a, 8);
			cli_le(key + 8, ~0u, 4);
			u->num_keys++;
			if (n > CLI_UNDO_KEY_MAX / CLI_UNDO_BLOCK)
				n = CLI_UNDO_KEY_MAX / CLI_UNDO_BLOCK;
		}
		err = cli_undo_read(u, a * CLI_UNDO_BLOCK, n * CLI_UNDO_BLOCK, buf);
		if (!err)
			err = cli_write_all(u->fd, buf, n * CLI_UNDO_BLOCK,
					    u->next_blk * CLI_UNDO_BLOCK);
		if (err)
			break;
		/* the crc32c of a key runs on over the data added to it */
		cli_le(key + 8, ext2fs_crc32c_le(cli_get_le(key + 8, 4), buf, n * CLI_UNDO_BLOCK),
		       4);
		cli_le(key + 12, size + n * CLI_UNDO_BLOCK, 4);
		u->next_blk += n;
		err = cli_undo_mark(u, a, a + n);
		a += n;
	}
	free(buf);
	return err;
}

static errcode_t cli_undo_write_keys(struct cli_undo *u)
{
	unsigned char b[CLI_UNDO_BLOCK];

	memcpy(b, u->keyb, sizeof(b));
	cli_le(b, CLI_UNDO_KEY_MAGIC, 4);
	cli_le(b + 4, 0, 4);
	cli_le(b + 4, ext2fs_crc32c_le(~0, b, sizeof(b)), 4);
	return cli_write_all(u->fd, b, sizeof(b), u->key_blk * CLI_UNDO_BLOCK);
}

/* Saves what bytes [@pos, @pos + @len) of the filesystem hold, before they are written. */
static errcode_t cli_undo_save(struct cli_undo *u, uint64_t pos, uint64_t len)
{
	uint64_t a = pos / CLI_UNDO_BLOCK, b = (pos + len + CLI_UNDO_BLOCK - 1) / CLI_UNDO_BLOCK;
	uint64_t before = u->num_keys, blocks = u->next_blk;
	errcode_t err = cli_undo_start(u);

	while (!err && a < b) {
		size_t i = cli_undo_find(u, a);
		uint64_t next = b;

		if (i < u->nsaved && u->saved[i].start <= a) {
			a = u->saved[i].end; /* saved before: the oldest bytes are kept */
			continue;
		}
		if (i < u->nsaved && u->saved[i].start < b)
			next = u->saved[i].start;
		err = cli_undo_append(u, a, next);
		a = next;
	}
	/* the data first, then its keys, then the header that counts them */
	if (!err && (u->num_keys != before || u->next_blk != blocks))
		err = cli_undo_write_keys(u);
	if (!err && u->num_keys != before)
		err = cli_undo_write_head(u);
	if (err && !u->broken)
		u->broken = err;
	return err;
}

/* After a write over the superblock: the copy in the header follows the disk. */
static errcode_t cli_undo_super_written(struct cli_undo *u, uint64_t pos, uint64_t len,
					const unsigned char *data)
{
	uint64_t a = pos > CLI_SUPER_POS ? pos : CLI_SUPER_POS;
	uint64_t b = pos + len < CLI_SUPER_POS + CLI_SUPER_SIZE ? pos + len
								: CLI_SUPER_POS + CLI_SUPER_SIZE;
	errcode_t err;

	if (a >= b)
		return 0;
	if (data)
		memcpy(u->super + (a - CLI_SUPER_POS), data + (a - pos), b - a);
	else if ((err = cli_undo_read(u, CLI_SUPER_POS, CLI_SUPER_SIZE, u->super)))
		return u->broken = err;
	err = cli_undo_write_head(u);
	if (err)
		u->broken = err;
	return err;
}

static int cli_touches_super(uint64_t pos, uint64_t len)
{
	return pos < CLI_SUPER_POS + CLI_SUPER_SIZE && pos + len > CLI_SUPER_POS;
}

static errcode_t cli_undo_write64(io_channel c, unsigned long long block, int count,
				  const void *data)
{
	struct cli_undo *u = cli_undo_of(c);
	uint64_t len = count < 0 ? (uint64_t) - (int64_t)count : (uint64_t)count * c->block_size;
	uint64_t pos = block * (uint64_t)c->block_size;
	errcode_t err;

	if (u->broken)
		return u->broken;
	err = cli_undo_save(u, pos, len);
	if (err)
		return err;
	if (!cli_touches_super(pos, len))
		return io_channel_write_blk64(u->real, block, count, data);
	/* straight to the file, not into unix_io's cache: the header says what the disk has */
	err = io_channel_write_blk64(u->real, block, -(int)len, data);
	if (!err)
		err = cli_undo_super_written(u, pos, len, data);
	return err;
}

static errcode_t cli_undo_write(io_channel c, unsigned long block, int count, const void *data)
{
	return cli_undo_write64(c, block, count, data);
}

static errcode_t cli_undo_zeroout(io_channel c, unsigned long long block, unsigned long long count)
{
	struct cli_undo *u = cli_undo_of(c);
	errcode_t err;

	if (!u->real->manager->zeroout)
		return EXT2_ET_UNIMPLEMENTED;
	err = u->broken ? u->broken
			: cli_undo_save(u, block * c->block_size, count * c->block_size);
	if (!err)
		err = io_channel_zeroout(u->real, block, count);
	if (!err && cli_touches_super(block * c->block_size, count * c->block_size))
		err = io_channel_flush(u->real)
			      ?: cli_undo_super_written(u, CLI_SUPER_POS, CLI_SUPER_SIZE, NULL);
	return err;
}

static errcode_t cli_undo_read64(io_channel c, unsigned long long block, int count, void *data)
{
	struct cli_undo *u = cli_undo_of(c);

	/*
	 * The first read comes after the io options (offset=): from then on the
	 * undo file is one e2undo takes, with nothing in it yet.
	 */
	if (!u->started && !u->broken)
		cli_undo_start(u);
	return io_channel_read_blk64(u->real, block, count, data);
}

static errcode_t cli_undo_read_blk(io_channel c, unsigned long block, int count, void *data)
{
	return cli_undo_read64(c, block, count, data);
}

static errcode_t cli_undo_set_blksize(io_channel c, int blksize)
{
	errcode_t err = io_channel_set_blksize(cli_undo_of(c)->real, blksize);

	if (!err)
		c->block_size = blksize;
	return err;
}

/* The undo file reaches the disk before what it undoes is flushed there. */
static errcode_t cli_undo_flush(io_channel c)
{
	struct cli_undo *u = cli_undo_of(c);

	if (u->started && fsync(u->fd) < 0)
		return errno;
	return io_channel_flush(u->real);
}

static errcode_t cli_undo_set_option(io_channel c, const char *option, const char *arg)
{
	struct cli_undo *u = cli_undo_of(c);
	errcode_t err;
	char *end;

	if (!u->real->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	err = u->real->manager->set_option(u->real, option, arg);
	if (!err && strcmp(option, "offset") == 0 && arg) {
		u->offset = strtoull(arg, &end, 0);
		if (*end)
			err = EXT2_ET_INVALID_ARGUMENT;
	}
	return err;
}

static errcode_t cli_undo_get_stats(io_channel c, io_stats *stats)
{
	io_channel real = cli_undo_of(c)->real;

	if (!real->manager->get_stats)
		return EXT2_ET_UNIMPLEMENTED;
	return real->manager->get_stats(real, stats);
}

static errcode_t cli_undo_readahead(io_channel c, unsigned long long block,
				    unsigned long long count)
{
	io_channel real = cli_undo_of(c)->real;

	if (!real->manager->cache_readahead)
		return EXT2_ET_OP_NOT_SUPPORTED;
	return real->manager->cache_readahead(real, block, count);
}

static errcode_t cli_undo_close(io_channel c)
{
	struct cli_undo *u = cli_undo_of(c);
	errcode_t err = 0, err2;

	if (--c->refcount > 0)
		return 0;
	if (u) {
		err = io_channel_close(u->real);
		if (u->started && fsync(u->fd) < 0 && !err)
			err = errno;
		if (close(u->fd) < 0 && !err)
			err = errno;
		err2 = u->broken;
		if (!err)
			err = err2;
		/* never started, or failed before its header: nothing to undo */
		if (u->tmp)
			unlink(u->tmp);
		free(u->tmp);
		free(u->saved);
		free(u);
	}
	free(c->name);
	free(c);
	return err;
}

static errcode_t cli_undo_open(const char *name, int flags, io_channel *channel)
{
	struct cli_undo *u = NULL;
	io_channel c = NULL;
	errcode_t err;

	if (!cli_undo_backing || !cli_undo_path)
		return EXT2_ET_INVALID_ARGUMENT;
	c = calloc(1, sizeof(*c));
	u = calloc(1, sizeof(*u));
	if (!c || !u || !(c->name = strdup(name))) {
		err = ENOMEM;
		goto fail;
	}
	/* made under a name of its own, in the same directory, 0600 */
	if (asprintf(&u->tmp, "%s.XXXXXX", cli_undo_path) < 0) {
		u->tmp = NULL;
		err = ENOMEM;
		goto fail;
	}
	u->fd = mkostemp(u->tmp, O_CLOEXEC);
	if (u->fd < 0) {
		err = errno;
		goto fail;
	}
	/* one thread writes: the saving is in order with the writes */
	err = cli_undo_backing->open(name, flags & ~IO_FLAG_THREADS, &u->real);
	if (err) {
		close(u->fd);
		unlink(u->tmp);
		goto fail;
	}
	c->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	c->manager = &cli_undo_manager;
	c->block_size = u->real->block_size;
	c->refcount = 1;
	c->flags = u->real->flags;
	c->align = u->real->align;
	c->private_data = u;
	*channel = c;
	return 0;
fail:
	if (c)
		free(c->name);
	free(c);
	if (u)
		free(u->tmp);
	free(u);
	return err;
}

static struct struct_io_manager cli_undo_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e2verity undo",
	.open = cli_undo_open,
	.close = cli_undo_close,
	.set_blksize = cli_undo_set_blksize,
	.read_blk = cli_undo_read_blk,
	.write_blk = cli_undo_write,
	.flush = cli_undo_flush,
	/* no write_byte: the superblock is written whole */
	.set_option = cli_undo_set_option,
	.get_stats = cli_undo_get_stats,
	.read_blk64 = cli_undo_read64,
	.write_blk64 = cli_undo_write64,
	.cache_readahead = cli_undo_readahead,
	.zeroout = cli_undo_zeroout,
};

errcode_t cli_undo_io_manager(io_manager backing, const char *path, io_manager *io)
{
	char *p = strdup(path);

	if (!p)
		return ENOMEM;
	free(cli_undo_path);
	cli_undo_path = p;
	cli_undo_backing = backing;
	*io = &cli_undo_manager;
	return 0;
}
