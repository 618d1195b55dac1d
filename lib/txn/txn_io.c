// SPDX-License-Identifier: GPL-2.0-or-later
/* txn_io.c - internal: an io channel over the image's own that holds metadata writes until commit
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "txn_io.h"
#include "wb_wait.h"

/*
 * Every write libext2fs makes is metadata unless the library said it is
 * data (e2v_io_data()): metadata stays here, in whole filesystem blocks,
 * until the journal commits it; reads see it as if it were on disk.  The
 * channel below always works in filesystem blocks.
 */
struct e2v_txn_io {
	io_channel inner;
	unsigned int bs;
	int data_mode;
	int dropping;
	/* open addressing, linear probing; a NULL buf marks a free slot */
	struct e2v_held *tab;
	size_t cap, n;
	/*
	 * Data written since the last flush, one run of contiguous blocks: a
	 * batch of small files gets its metadata blocks allocated one after the
	 * other, and one large write costs far less than a write for each.
	 */
	uint8_t *run;
	blk64_t run_start;
	unsigned int run_n, run_cap;
	/*
	 * The image file, to start the writeback of each run at once: the
	 * commit's fsync() then waits for less (-1: none)
	 */
	int wb_fd;
	uint64_t wb_base;
	/* and to have it written meanwhile, every E2V_WB_WAIT_BYTES of data */
	struct e2v_wb_wait wb_wait;
	uint64_t wb_since;
};

/* the largest run of data blocks kept before it is written */
#define E2V_RUN_BYTES (1u << 20)
/*
 * The data written between two background fdatasync() calls: 160,000 small
 * files sealed 1.06-1.41 s with 4 MiB against 1.45-1.82 s without (8 and 16
 * MiB were between)
 */
#define E2V_WB_WAIT_BYTES (4u << 20)

static const struct struct_io_manager e2v_txn_io_manager;

static struct e2v_txn_io *e2v_tio(io_channel c)
{
	return c->private_data;
}

/*
 * Writes the pending run of data.  A run of more than four blocks goes
 * past unix_io's cache, which may keep a clean, now stale copy of one of
 * its blocks: the cache is emptied after it.
 */
static errcode_t e2v_run_write(struct e2v_txn_io *t)
{
	unsigned int n = t->run_n;
	errcode_t err;

	if (!n)
		return 0;
	t->run_n = 0;
	err = io_channel_write_blk64(t->inner, t->run_start, n, t->run);
	if (!err && n > 4)
		err = e2v_io_drop_cache(t->inner);
	if (!err && n > 4) {
		/* a hint only: durability is the commit's fsync() */
		if (t->wb_fd >= 0)
			(void)sync_file_range(t->wb_fd, t->wb_base + t->run_start * (uint64_t)t->bs,
					      (uint64_t)n * t->bs, SYNC_FILE_RANGE_WRITE);
		t->wb_since += (uint64_t)n * t->bs;
		if (t->wb_since >= E2V_WB_WAIT_BYTES) {
			t->wb_since = 0;
			e2v_wb_wait_ask(&t->wb_wait);
		}
	}
	return err;
}

/* Whether [@blk, @blk + @n) meets the pending run. */
static int e2v_run_meets(const struct e2v_txn_io *t, blk64_t blk, uint64_t n)
{
	return t->run_n && blk < t->run_start + t->run_n && t->run_start < blk + n;
}

/* Writes the pending run first if the request touches it: the request sees it on disk. */
static errcode_t e2v_run_settle(io_channel c, unsigned long long block, int count)
{
	struct e2v_txn_io *t = e2v_tio(c);
	uint64_t pos = block * (uint64_t)c->block_size;
	uint64_t len = count < 0 ? (uint64_t) - (int64_t)count : (uint64_t)count * c->block_size;

	if (!t->run_n || !len)
		return 0;
	if (!e2v_run_meets(t, pos / t->bs, (pos % t->bs + len + t->bs - 1) / t->bs))
		return 0;
	return e2v_run_write(t);
}

/*
 * Adds whole data blocks to the run when they continue it (or start one);
 * *@taken says whether they were.  Anything else writes the run first.
 */
static errcode_t e2v_run_add(struct e2v_txn_io *t, blk64_t blk, int nblk, const void *data,
			     int *taken)
{
	errcode_t err;

	*taken = 0;
	if (!t->run_cap) {
		t->run_cap = E2V_RUN_BYTES / t->bs;
		t->run = t->run_cap ? malloc((size_t)t->run_cap * t->bs) : NULL;
		if (!t->run)
			t->run_cap = (unsigned int)-1; /* never again: written as they come */
	}
	if (t->run_cap == (unsigned int)-1 || (unsigned int)nblk >= t->run_cap)
		return e2v_run_write(t);
	if (t->run_n && (blk != t->run_start + t->run_n || t->run_n + nblk > t->run_cap)) {
		err = e2v_run_write(t);
		if (err)
			return err;
	}
	if (!t->run_n)
		t->run_start = blk;
	memcpy(t->run + (size_t)t->run_n * t->bs, data, (size_t)nblk * t->bs);
	t->run_n += nblk;
	*taken = 1;
	return 0;
}

errcode_t e2v_txn_io_settle(ext2_filsys fs)
{
	if (!e2v_txn_io_is(fs))
		return 0;
	return e2v_run_write(e2v_tio(fs->io));
}

static size_t e2v_slot(const struct e2v_txn_io *t, blk64_t blk)
{
	/* Fibonacci hashing: metadata blocks cluster, the slots should not */
	return (size_t)((blk * 0x9E3779B97F4A7C15ULL) >> 17) & (t->cap - 1);
}

static struct e2v_held *e2v_find(const struct e2v_txn_io *t, blk64_t blk)
{
	if (!t->n)
		return NULL;
	for (size_t i = e2v_slot(t, blk);; i = (i + 1) & (t->cap - 1)) {
		if (!t->tab[i].buf)
			return NULL;
		if (t->tab[i].blk == blk)
			return &t->tab[i];
	}
}

static void e2v_place(struct e2v_txn_io *t, blk64_t blk, uint8_t *buf)
{
	size_t i = e2v_slot(t, blk);

	while (t->tab[i].buf)
		i = (i + 1) & (t->cap - 1);
	t->tab[i].blk = blk;
	t->tab[i].buf = buf;
	t->n++;
}

static errcode_t e2v_grow(struct e2v_txn_io *t)
{
	struct e2v_held *old = t->tab;
	size_t old_cap = t->cap;

	t->cap = old_cap ? old_cap * 2 : 256;
	t->tab = calloc(t->cap, sizeof(*t->tab));
	if (!t->tab) {
		t->tab = old;
		t->cap = old_cap;
		return E2VERITY_ET_NO_MEMORY;
	}
	t->n = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].buf)
			e2v_place(t, old[i].blk, old[i].buf);
	free(old);
	return 0;
}

/* Removes @blk, keeping every probe chain unbroken. */
static void e2v_forget(struct e2v_txn_io *t, blk64_t blk)
{
	struct e2v_held *h = e2v_find(t, blk);
	size_t i;

	if (!h)
		return;
	free(h->buf);
	h->buf = NULL;
	t->n--;
	i = (size_t)(h - t->tab);
	for (i = (i + 1) & (t->cap - 1); t->tab[i].buf; i = (i + 1) & (t->cap - 1)) {
		struct e2v_held moved = t->tab[i];

		t->tab[i].buf = NULL;
		t->n--;
		e2v_place(t, moved.blk, moved.buf);
	}
}

/* The held copy of @blk, made from the disk's contents if there is none yet. */
static errcode_t e2v_hold(struct e2v_txn_io *t, blk64_t blk, int whole, struct e2v_held **ret)
{
	struct e2v_held *h = e2v_find(t, blk);
	uint8_t *buf;
	errcode_t err;

	if (h) {
		*ret = h;
		return 0;
	}
	if ((t->n + 1) * 2 > t->cap) {
		err = e2v_grow(t);
		if (err)
			return err;
	}
	buf = malloc(t->bs);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	if (!whole) {
		err = io_channel_read_blk64(t->inner, blk, 1, buf);
		if (err) {
			free(buf);
			return err;
		}
	}
	e2v_place(t, blk, buf);
	*ret = e2v_find(t, blk);
	return 0;
}

/* Calls @fn for each filesystem block of a request, with the part of it the request covers. */
static errcode_t e2v_each_block(io_channel c, unsigned long long block, int count,
				errcode_t (*fn)(struct e2v_txn_io *t, blk64_t blk, unsigned int off,
						unsigned int len, uint8_t *p),
				uint8_t *p)
{
	struct e2v_txn_io *t = e2v_tio(c);
	uint64_t pos = block * (uint64_t)c->block_size;
	uint64_t len = count < 0 ? (uint64_t) - (int64_t)count : (uint64_t)count * c->block_size;
	errcode_t err;

	while (len) {
		unsigned int off = pos % t->bs;
		unsigned int n = len < t->bs - off ? len : t->bs - off;

		err = fn(t, pos / t->bs, off, n, p);
		if (err)
			return err;
		pos += n;
		len -= n;
		p += n;
	}
	return 0;
}

static errcode_t e2v_read_part(struct e2v_txn_io *t, blk64_t blk, unsigned int off,
			       unsigned int len, uint8_t *p)
{
	struct e2v_held *h = e2v_find(t, blk);
	uint8_t *buf;
	errcode_t err;

	if (h) {
		memcpy(p, h->buf + off, len);
		return 0;
	}
	if (off == 0 && len == t->bs)
		return io_channel_read_blk64(t->inner, blk, 1, p);
	buf = malloc(t->bs);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = io_channel_read_blk64(t->inner, blk, 1, buf);
	if (!err)
		memcpy(p, buf + off, len);
	free(buf);
	return err;
}

static errcode_t e2v_hold_part(struct e2v_txn_io *t, blk64_t blk, unsigned int off,
			       unsigned int len, uint8_t *p)
{
	struct e2v_held *h;
	errcode_t err;

	err = e2v_hold(t, blk, off == 0 && len == t->bs, &h);
	if (!err)
		memcpy(h->buf + off, p, len);
	return err;
}

/* a data write that is not whole filesystem blocks: read, patch, write below */
static errcode_t e2v_write_part(struct e2v_txn_io *t, blk64_t blk, unsigned int off,
				unsigned int len, uint8_t *p)
{
	uint8_t *buf;
	errcode_t err;

	e2v_forget(t, blk);
	if (off == 0 && len == t->bs)
		return io_channel_write_blk64(t->inner, blk, 1, p);
	buf = malloc(t->bs);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = io_channel_read_blk64(t->inner, blk, 1, buf);
	if (!err) {
		memcpy(buf + off, p, len);
		err = io_channel_write_blk64(t->inner, blk, 1, buf);
	}
	free(buf);
	return err;
}

/*
 * Whether the request is whole filesystem blocks, none of them held; if so,
 * the first block and the count for the channel below.
 */
static int e2v_plain(io_channel c, unsigned long long block, int count, blk64_t *blk, int *nblk)
{
	const struct e2v_txn_io *t = e2v_tio(c);
	uint64_t n = count < 0 ? (uint64_t) - (int64_t)count : (uint64_t)count * c->block_size;
	uint64_t pos = block * (uint64_t)c->block_size;

	if (pos % t->bs || n % t->bs || n / t->bs > INT32_MAX)
		return 0;
	for (uint64_t b = pos / t->bs; b < (pos + n) / t->bs && t->n; b++)
		if (e2v_find(t, b))
			return 0;
	*blk = pos / t->bs;
	*nblk = n / t->bs;
	return 1;
}

static errcode_t e2v_tio_read64(io_channel c, unsigned long long block, int count, void *data)
{
	struct e2v_txn_io *t = e2v_tio(c);
	blk64_t blk;
	int nblk;
	errcode_t err;

	err = e2v_run_settle(c, block, count);
	if (err)
		return err;
	if (e2v_plain(c, block, count, &blk, &nblk))
		return io_channel_read_blk64(t->inner, blk, nblk, data);
	return e2v_each_block(c, block, count, e2v_read_part, data);
}

static errcode_t e2v_tio_write64(io_channel c, unsigned long long block, int count,
				 const void *data)
{
	struct e2v_txn_io *t = e2v_tio(c);
	blk64_t blk;
	int nblk, taken;
	errcode_t err;

	if (t->dropping)
		return 0;
	if (t->data_mode && e2v_plain(c, block, count, &blk, &nblk)) {
		err = e2v_run_add(t, blk, nblk, data, &taken);
		if (err || taken)
			return err;
		return io_channel_write_blk64(t->inner, blk, nblk, data);
	}
	/* the run reaches the disk before anything written over it */
	err = e2v_run_settle(c, block, count);
	if (err)
		return err;
	if (t->data_mode) /* data supersedes any metadata copy of the same blocks */
		return e2v_each_block(c, block, count, e2v_write_part, (uint8_t *)data);
	return e2v_each_block(c, block, count, e2v_hold_part, (uint8_t *)data);
}

static errcode_t e2v_tio_read(io_channel c, unsigned long block, int count, void *data)
{
	return e2v_tio_read64(c, block, count, data);
}

static errcode_t e2v_tio_write(io_channel c, unsigned long block, int count, const void *data)
{
	return e2v_tio_write64(c, block, count, data);
}

errcode_t e2v_io_drop_cache(io_channel io)
{
	int bs = io->block_size;
	errcode_t err;

	/* a change of block size is the one call that empties unix_io's cache */
	err = io_channel_set_blksize(io, bs == 1024 ? 2048 : 1024);
	if (!err)
		err = io_channel_set_blksize(io, bs);
	return err;
}

static errcode_t e2v_tio_set_blksize(io_channel c, int blksize)
{
	/* the channel below keeps filesystem blocks; requests are converted */
	if (blksize <= 0)
		return EINVAL;
	c->block_size = blksize;
	return 0;
}

static errcode_t e2v_tio_flush(io_channel c)
{
	/* held metadata is not the disk's until the journal commits it; data is */
	errcode_t err = e2v_run_write(e2v_tio(c));

	return err ? err : io_channel_flush(e2v_tio(c)->inner);
}

static errcode_t e2v_tio_set_option(io_channel c, const char *option, const char *arg)
{
	io_channel inner = e2v_tio(c)->inner;

	if (!inner->manager->set_option)
		return EXT2_ET_INVALID_ARGUMENT;
	return inner->manager->set_option(inner, option, arg);
}

static errcode_t e2v_tio_readahead(io_channel c, unsigned long long block, unsigned long long count)
{
	io_channel inner = e2v_tio(c)->inner;

	if (!inner->manager->cache_readahead || c->block_size != (int)e2v_tio(c)->bs)
		return EXT2_ET_OP_NOT_SUPPORTED;
	return inner->manager->cache_readahead(inner, block, count);
}

void e2v_txn_io_drop_all(io_channel c)
{
	struct e2v_txn_io *t = e2v_tio(c);

	for (size_t i = 0; i < t->cap; i++) {
		free(t->tab[i].buf);
		t->tab[i].buf = NULL;
	}
	t->n = 0;
}

static errcode_t e2v_tio_close(io_channel c)
{
	struct e2v_txn_io *t = e2v_tio(c);
	errcode_t err = 0, err2;

	if (--c->refcount > 0)
		return 0;
	/* data goes where nothing on disk points yet: writing it is harmless */
	if (!t->dropping)
		err = e2v_run_write(t);
	/* what was never committed never reaches the disk */
	e2v_txn_io_drop_all(c);
	free(t->tab);
	free(t->run);
	e2v_wb_wait_fini(&t->wb_wait);
	if (t->wb_fd >= 0)
		close(t->wb_fd);
	if (t->inner) {
		err2 = io_channel_close(t->inner);
		if (!err)
			err = err2;
	}
	free(t);
	free(c->name);
	free(c);
	return err;
}

static errcode_t e2v_tio_open(const char *name, int flags, io_channel *channel)
{
	(void)name;
	(void)flags;
	(void)channel;
	/* only e2v_txn_io_wrap() makes these channels */
	return EXT2_ET_UNIMPLEMENTED;
}

static const struct struct_io_manager e2v_txn_io_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "e2verity journal transaction",
	.open = e2v_tio_open,
	.close = e2v_tio_close,
	.set_blksize = e2v_tio_set_blksize,
	.read_blk = e2v_tio_read,
	.write_blk = e2v_tio_write,
	.flush = e2v_tio_flush,
	.set_option = e2v_tio_set_option,
	.read_blk64 = e2v_tio_read64,
	.write_blk64 = e2v_tio_write64,
	.cache_readahead = e2v_tio_readahead,
};

errcode_t e2v_txn_io_wrap(ext2_filsys fs)
{
	struct e2v_txn_io *t = NULL;
	io_channel c = NULL;

	if (fs->io != fs->image_io || fs->io->block_size != (int)fs->blocksize)
		return EXT2_ET_UNIMPLEMENTED;
	c = calloc(1, sizeof(*c));
	t = calloc(1, sizeof(*t));
	if (!c || !t)
		goto nomem;
	c->name = strdup(fs->io->name ? fs->io->name : "");
	if (!c->name)
		goto nomem;
	c->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	/* libext2fs takes a writable io_manager, and writes none of it */
	c->manager = (io_manager)&e2v_txn_io_manager;
	c->block_size = fs->blocksize;
	c->refcount = 1;
	c->align = fs->io->align;
	c->private_data = t;
	t->inner = fs->io;
	t->bs = fs->blocksize;
	t->wb_fd = -1;
	e2v_wb_wait_init(&t->wb_wait, -1);
	fs->io = fs->image_io = c;
	return 0;
nomem:
	if (c)
		free(c->name);
	free(c);
	free(t);
	return E2VERITY_ET_NO_MEMORY;
}

int e2v_txn_io_is(ext2_filsys fs)
{
	return fs->io && fs->io->manager == &e2v_txn_io_manager;
}

io_channel e2v_txn_io_inner(io_channel c)
{
	return e2v_tio(c)->inner;
}

size_t e2v_txn_io_held(io_channel c, struct e2v_held **v)
{
	struct e2v_txn_io *t = e2v_tio(c);
	size_t n = 0;

	if (v) {
		*v = malloc((t->n ? t->n : 1) * sizeof(**v));
		if (!*v)
			return (size_t)-1;
		for (size_t i = 0; i < t->cap; i++)
			if (t->tab[i].buf)
				(*v)[n++] = t->tab[i];
	}
	return t->n;
}

void e2v_txn_io_set_image_fd(io_channel c, int fd, uint64_t base)
{
	struct e2v_txn_io *t = e2v_tio(c);

	e2v_wb_wait_fini(&t->wb_wait);
	if (t->wb_fd >= 0)
		close(t->wb_fd);
	t->wb_fd = fd;
	t->wb_base = base;
	e2v_wb_wait_init(&t->wb_wait, fd);
}

void e2v_txn_io_set_dropping(io_channel c, int on)
{
	e2v_tio(c)->dropping = on;
	/* data not yet written went to blocks the last commit leaves free */
	if (on)
		e2v_tio(c)->run_n = 0;
}

void e2v_io_data(ext2_filsys fs, int on)
{
	if (e2v_txn_io_is(fs))
		e2v_tio(fs->io)->data_mode = on;
}
