// SPDX-License-Identifier: GPL-2.0-or-later
/* undo_io.c - -z: an io manager that saves what each write overwrites, in e2undo's format */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/undo_io.h"
#include "cli/cli.h"
#include "cli/util.h"

/*
 * The undo file is e2undo's (e2fsprogs misc/e2undo.c, format "E2UNDO02"),
 * laid out in 1 KiB blocks: the header in block 0, the superblock of the
 * filesystem in block 1, then a key block and the data its keys describe,
 * the next key block, its data, and so on.  Keys count 1 KiB units of the
 * filesystem.
 *
 * Writes ahead, in batches.  A write saves the old contents of what it
 * overwrites at the end of the undo file and is held here; a batch of held
 * writes (up to a flush of the image, CLI_UNDO_BATCH_BYTES of them, or a
 * read of what they cover) reaches the image only after the key block, the
 * header that counts the keys and the data they describe are durable: one
 * fdatasync() a batch, not one a block.  So whatever stops the process, and
 * whatever the host loses of writes not yet synced, the undo file e2undo
 * finds covers every block the image may hold changed, and its header's
 * copy of the superblock is the image's.
 *
 * The one exception: a write over the superblock goes straight to the
 * image, and the header's copy follows it at once (the next system call);
 * a kill between the two leaves an undo file that e2undo applies only with
 * -f.  A key that a durable header counts never grows afterwards: a power
 * cut cannot leave it longer than the data behind it.
 *
 * A write to the undo file that fails stops the run: what the batch held is
 * dropped (the image never sees it), and if earlier batches reached the
 * image, their old contents are read back from the undo file and written
 * back, so that the image is as it was and the undo file, with nothing left
 * to undo, is removed.  Either way the message names the undo file.
 *
 * The file takes its name only once its header is on disk (and the name
 * too): a process killed before that leaves no undo file, and the image
 * untouched.
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
/*
 * The most data held for one batch: the Merkle tree of a 1 GiB file
 * (8 MiB) is one or two batches, and the memory stays small
 */
#define CLI_UNDO_BATCH_BYTES (8u << 20)
/* and the most writes: each read looks them up */
#define CLI_UNDO_BATCH_WRITES 4096

#ifdef CLI_FAULT_IO
/* the test build: tests/helpers/fault_io.c cuts the undo file's writes too */
errcode_t cli_test_undo_fault(const char *what);
#define CLI_UNDO_FAULT(what) cli_test_undo_fault(what)
#else
#define CLI_UNDO_FAULT(what) ((void)(what), 0)
#endif

struct cli_undo_range {
	uint64_t start, end; /* 1 KiB units of the filesystem */
};

/* sorted, disjoint ranges */
struct cli_undo_set {
	struct cli_undo_range *r;
	size_t n, cap;
};

/* a key as written: where its units go and where their old contents are */
struct cli_undo_key {
	uint64_t unit, fileblk;
	uint32_t size;
};

/* a write held until the undo file covers it on disk */
struct cli_undo_held {
	uint64_t pos, len; /* bytes of the filesystem */
	unsigned char *data;
};

struct cli_undo {
	io_channel real;
	int fd;
	char *tmp;		   /* the file's name until its header is written, then NULL */
	uint64_t offset;	   /* of the filesystem in the device: io option offset= */
	int started;		   /* the header is on disk */
	errcode_t werr;		   /* a write to the undo file failed with it */
	errcode_t broken;	   /* the undo file failed: nothing more is written */
	int applied;		   /* some write reached the image */
	int dirty;		   /* written to the undo file since its last fdatasync() */
	struct cli_undo_set saved; /* units whose old contents the file has */
	struct cli_undo_set held;  /* units the held writes cover */
	struct cli_undo_held *q;
	size_t nq, qcap;
	uint64_t qbytes;
	struct cli_undo_key *keys;
	size_t keycap;
	uint64_t synced_keys; /* counted by a durable header: they never grow */
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

/* The first range of @s that ends after @k (or at @k, if @touching). */
static size_t cli_set_find(const struct cli_undo_set *s, uint64_t k, int touching)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->r[mid].end < k || (!touching && s->r[mid].end == k))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds units [@a, @b) to @s, joining the ranges they meet or touch. */
static errcode_t cli_set_add(struct cli_undo_set *s, uint64_t a, uint64_t b)
{
	size_t i = cli_set_find(s, a, 1), j = i;

	while (j < s->n && s->r[j].start <= b) {
		if (s->r[j].start < a)
			a = s->r[j].start;
		if (s->r[j].end > b)
			b = s->r[j].end;
		j++;
	}
	if (j > i) {
		s->r[i].start = a;
		s->r[i].end = b;
		memmove(s->r + i + 1, s->r + j, (s->n - j) * sizeof(*s->r));
		s->n -= j - i - 1;
		return 0;
	}
	if (cli_grow((void **)&s->r, &s->cap, s->n, sizeof(*s->r)))
		return ENOMEM;
	memmove(s->r + i + 1, s->r + i, (s->n - i) * sizeof(*s->r));
	s->r[i].start = a;
	s->r[i].end = b;
	s->n++;
	return 0;
}

static int cli_set_meets(const struct cli_undo_set *s, uint64_t a, uint64_t b)
{
	size_t i = cli_set_find(s, a, 0);

	return i < s->n && s->r[i].start < b;
}

/* The 1 KiB units bytes [@pos, @pos + @len) of the filesystem lie in. */
static void cli_units(uint64_t pos, uint64_t len, uint64_t *a, uint64_t *b)
{
	*a = pos / CLI_UNDO_BLOCK;
	*b = (pos + len + CLI_UNDO_BLOCK - 1) / CLI_UNDO_BLOCK;
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

/* The undo file's writes, each one a point where the tests cut. */
static errcode_t cli_undo_pwrite(struct cli_undo *u, const char *what, const void *buf, size_t len,
				 uint64_t off)
{
	errcode_t err = CLI_UNDO_FAULT(what);

	if (!err)
		err = cli_write_all(u->fd, buf, len, off);
	if (err)
		u->werr = err;
	else
		u->dirty = 1;
	return err;
}

static errcode_t cli_undo_fdatasync(struct cli_undo *u)
{
	errcode_t err = CLI_UNDO_FAULT("fdatasync");

	if (!err && fdatasync(u->fd) < 0)
		err = errno;
	if (err)
		u->werr = err;
	else
		u->dirty = 0;
	return err;
}

/* The header and the superblock copy, in one write (blocks 0 and 1). */
static errcode_t cli_undo_write_head(struct cli_undo *u, const char *what)
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
	return cli_undo_pwrite(u, what, b, sizeof(b), 0);
}

static errcode_t cli_undo_write_keys(struct cli_undo *u)
{
	unsigned char b[CLI_UNDO_BLOCK];

	memcpy(b, u->keyb, sizeof(b));
	cli_le(b, CLI_UNDO_KEY_MAGIC, 4);
	cli_le(b + 4, 0, 4);
	cli_le(b + 4, ext2fs_crc32c_le(~0, b, sizeof(b)), 4);
	return cli_undo_pwrite(u, "keys", b, sizeof(b), u->key_blk * CLI_UNDO_BLOCK);
}

/* The name reaches the disk too: a power cut must not take it back once the image changes. */
static errcode_t cli_undo_sync_dir(void)
{
	char *copy = strdup(cli_undo_path);
	errcode_t err = CLI_UNDO_FAULT("directory");
	int fd = -1;

	if (!copy)
		return ENOMEM;
	if (err)
		goto out;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* a directory that cannot be opened or synced (not every filesystem can) costs nothing */
	if (fd >= 0 && fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		err = errno;
out:
	if (fd >= 0)
		close(fd);
	free(copy);
	return err;
}

/* Drops the held writes: the image never sees them. */
static void cli_undo_drop(struct cli_undo *u)
{
	for (size_t i = 0; i < u->nq; i++)
		free(u->q[i].data);
	u->nq = 0;
	u->qbytes = 0;
	u->held.n = 0;
}

/*
 * Writes back, straight to the image, the old contents of every key a
 * durable header counts: all that any write reaching the image changed.
 */
static errcode_t cli_undo_write_back(struct cli_undo *u, uint64_t *kib)
{
	const int bs = u->real->block_size;
	unsigned char *buf = malloc(CLI_UNDO_KEY_MAX);
	errcode_t err = 0, err2;

	*kib = 0;
	if (!buf)
		return ENOMEM;
	/* in 1 KiB blocks, as the keys count; unix_io writes out its cache first */
	err = io_channel_set_blksize(u->real, CLI_UNDO_BLOCK);
	for (uint64_t i = 0; !err && i < u->synced_keys; i++) {
		const struct cli_undo_key *k = &u->keys[i];
		ssize_t n = pread(u->fd, buf, k->size, k->fileblk * CLI_UNDO_BLOCK);

		if (n != (ssize_t)k->size) {
			err = n < 0 ? errno : EIO;
			break;
		}
		err = io_channel_write_blk64(u->real, k->unit, -(int)k->size, buf);
		*kib += k->size / CLI_UNDO_BLOCK;
	}
	err2 = io_channel_set_blksize(u->real, bs);
	if (!err)
		err = err2;
	if (!err)
		err = io_channel_flush(u->real);
	free(buf);
	return err;
}

/*
 * A write to the undo file failed with @err: nothing more is written; the
 * image is left, or put back, as it was, and the undo file removed (it has
 * nothing to undo).  Says which.
 */
static errcode_t cli_undo_fail(struct cli_undo *u, const char *image, errcode_t err)
{
	const char *path = u->tmp ? u->tmp : cli_undo_path;
	uint64_t kib = 0;
	errcode_t err2;

	if (u->broken)
		return u->broken;
	u->broken = err;
	cli_undo_drop(u);
	if (!u->applied) {
		unlink(path);
		cli_error(err, "while writing the undo file '%s'; nothing was written to '%s'",
			  cli_undo_path, image);
		return err;
	}
	err2 = cli_undo_write_back(u, &kib);
	if (err2) {
		cli_error(err,
			  "while writing the undo file '%s', and %s while writing '%s' back as it "
			  "was: 'e2undo -f %s %s' restores it",
			  cli_undo_path, error_message(err2), image, cli_undo_path, image);
		return err;
	}
	unlink(path);
	cli_error(err,
		  "while writing the undo file '%s'; the %llu KiB written to '%s' were written "
		  "back: it is as it was, and the undo file is removed",
		  cli_undo_path, (unsigned long long)kib, image);
	return err;
}

/* @err, or the failure of the undo file's write that caused it */
static errcode_t cli_undo_failed(struct cli_undo *u, const char *image, errcode_t err)
{
	return u->werr ? cli_undo_fail(u, image, u->werr) : err;
}

static errcode_t cli_undo_start(struct cli_undo *u)
{
	errcode_t err;

	if (u->started || u->broken)
		return u->broken;
	err = cli_undo_read(u, CLI_SUPER_POS, CLI_SUPER_SIZE, u->super);
	if (err)
		return err;
	err = cli_undo_write_head(u, "header");
	/*
	 * Only a file e2undo takes gets the name: a kill before this leaves no
	 * undo file (and the image untouched), never an empty one e2undo
	 * refuses ("short read").
	 */
	if (!err)
		err = cli_undo_fdatasync(u);
	if (!err) {
		err = CLI_UNDO_FAULT("rename");
		if (!err && rename(u->tmp, cli_undo_path) < 0)
			err = errno;
		if (err)
			u->werr = err;
	}
	if (err)
		return err;
	free(u->tmp);
	u->tmp = NULL;
	err = cli_undo_sync_dir();
	if (err)
		return u->werr = err;
	u->key_blk = 2;
	u->next_blk = 3;
	u->started = 1;
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
		struct cli_undo_key *k = u->num_keys ? &u->keys[u->num_keys - 1] : NULL;

		/*
		 * The last key grows while the units follow on, in the file too,
		 * unless a durable header counts it already.
		 */
		if (k && u->num_keys > u->synced_keys && u->keys_in_block &&
		    k->unit + k->size / CLI_UNDO_BLOCK == a && k->size < CLI_UNDO_KEY_MAX) {
			if (n > (CLI_UNDO_KEY_MAX - k->size) / CLI_UNDO_BLOCK)
				n = (CLI_UNDO_KEY_MAX - k->size) / CLI_UNDO_BLOCK;
		} else {
			if (u->keys_in_block == CLI_UNDO_KEYS_PER_BLOCK) {
				/* the full block is final; the next goes right after its data */
				err = cli_undo_write_keys(u);
				if (err)
					break;
				memset(u->keyb, 0, sizeof(u->keyb));
				u->keys_in_block = 0;
				u->key_blk = u->next_blk++;
			}
			if (cli_grow((void **)&u->keys, &u->keycap, u->num_keys,
				     sizeof(*u->keys))) {
				err = ENOMEM;
				break;
			}
			k = &u->keys[u->num_keys++];
			k->unit = a;
			k->fileblk = u->next_blk;
			k->size = 0;
			u->keys_in_block++;
			if (n > CLI_UNDO_KEY_MAX / CLI_UNDO_BLOCK)
				n = CLI_UNDO_KEY_MAX / CLI_UNDO_BLOCK;
		}
		err = cli_undo_read(u, a * CLI_UNDO_BLOCK, n * CLI_UNDO_BLOCK, buf);
		if (!err)
			err = cli_undo_pwrite(u, "data", buf, n * CLI_UNDO_BLOCK,
					      u->next_blk * CLI_UNDO_BLOCK);
		if (err)
			break;
		/* the crc32c of a key runs on over the data added to it */
		{
			unsigned char *key = u->keyb + 16 * u->keys_in_block;
			uint32_t crc = k->size ? cli_get_le(key + 8, 4) : ~0u;

			cli_le(key, k->unit, 8);
			cli_le(key + 8, ext2fs_crc32c_le(crc, buf, n * CLI_UNDO_BLOCK), 4);
			k->size += n * CLI_UNDO_BLOCK;
			cli_le(key + 12, k->size, 4);
		}
		u->next_blk += n;
		err = cli_set_add(&u->saved, a, a + n);
		a += n;
	}
	free(buf);
	return err;
}

/* Saves (not yet durably) what bytes [@pos, @pos + @len) of the filesystem hold. */
static errcode_t cli_undo_save(struct cli_undo *u, uint64_t pos, uint64_t len)
{
	uint64_t a, b;
	errcode_t err = cli_undo_start(u);

	cli_units(pos, len, &a, &b);
	while (!err && a < b) {
		size_t i = cli_set_find(&u->saved, a, 0);
		uint64_t next = b;

		if (i < u->saved.n && u->saved.r[i].start <= a) {
			a = u->saved.r[i].end; /* saved before: the oldest bytes are kept */
			continue;
		}
		if (i < u->saved.n && u->saved.r[i].start < b)
			next = u->saved.r[i].start;
		err = cli_undo_append(u, a, next);
		a = next;
	}
	return err;
}

/* What was saved reaches the disk: the data, its keys, then the header that counts them. */
static errcode_t cli_undo_sync(struct cli_undo *u)
{
	errcode_t err = 0;

	if (!u->dirty)
		return 0;
	if (u->keys_in_block)
		err = cli_undo_write_keys(u);
	if (!err)
		err = cli_undo_write_head(u, "header");
	if (!err)
		err = cli_undo_fdatasync(u);
	if (!err)
		u->synced_keys = u->num_keys;
	return err;
}

static int cli_touches_super(uint64_t pos, uint64_t len)
{
	return pos < CLI_SUPER_POS + CLI_SUPER_SIZE && pos + len > CLI_SUPER_POS;
}

/* One held write, to the image. */
static errcode_t cli_undo_apply(struct cli_undo *u, const struct cli_undo_held *w)
{
	const int bs = u->real->block_size;
	int tmp_bs = w->pos % bs || w->len % bs ? CLI_UNDO_BLOCK : bs;
	errcode_t err = 0, err2;

	u->applied = 1;
	if (!cli_touches_super(w->pos, w->len) && tmp_bs == bs)
		return io_channel_write_blk64(u->real, w->pos / bs, w->len / bs, w->data);
	/*
	 * Straight to the file, not into unix_io's cache: the header says what
	 * the disk has.  Any write holds whole 1 KiB units (the smallest block).
	 */
	if (tmp_bs != bs)
		err = io_channel_set_blksize(u->real, tmp_bs);
	if (!err)
		err = io_channel_write_blk64(u->real, w->pos / tmp_bs, -(int)w->len, w->data);
	if (tmp_bs != bs) {
		err2 = io_channel_set_blksize(u->real, bs);
		if (!err)
			err = err2;
	}
	return err;
}

/* After a write over the superblock: the copy in the header follows the disk, at once. */
static errcode_t cli_undo_super_written(struct cli_undo *u, uint64_t pos, uint64_t len,
					const unsigned char *data)
{
	uint64_t a = pos > CLI_SUPER_POS ? pos : CLI_SUPER_POS;
	uint64_t b = pos + len < CLI_SUPER_POS + CLI_SUPER_SIZE ? pos + len
								: CLI_SUPER_POS + CLI_SUPER_SIZE;

	if (a >= b)
		return 0;
	memcpy(u->super + (a - CLI_SUPER_POS), data + (a - pos), b - a);
	return cli_undo_write_head(u, "header after the superblock");
}

/*
 * The held writes reach the image, once the undo file holds, on disk, the
 * old contents of all they cover.
 */
static errcode_t cli_undo_commit(struct cli_undo *u, const char *image)
{
	errcode_t err = 0;
	size_t i;

	if (u->broken)
		return u->broken;
	if (!u->nq)
		return 0;
	err = cli_undo_sync(u);
	if (err)
		return cli_undo_failed(u, image, err);
	for (i = 0; i < u->nq && !err; i++) {
		const struct cli_undo_held *w = &u->q[i];

		err = cli_undo_apply(u, w);
		if (err || !cli_touches_super(w->pos, w->len))
			continue;
		err = cli_undo_super_written(u, w->pos, w->len, w->data);
		/* the one undo write after an image write: the image goes back */
		if (err)
			return cli_undo_failed(u, image, err);
	}
	/* an image write that failed: the txn layer judges what the disk holds */
	cli_undo_drop(u);
	return err;
}

/* Holds a write of bytes [@pos, @pos + @len) until its batch is committed. */
static errcode_t cli_undo_hold(struct cli_undo *u, uint64_t pos, uint64_t len, const void *data)
{
	struct cli_undo_held *w;
	uint64_t a, b;

	if (len > INT32_MAX)
		return EFBIG;
	if (cli_grow((void **)&u->q, &u->qcap, u->nq, sizeof(*u->q)))
		return ENOMEM;
	w = &u->q[u->nq];
	w->data = malloc(len ? len : 1);
	if (!w->data)
		return ENOMEM;
	memcpy(w->data, data, len);
	w->pos = pos;
	w->len = len;
	cli_units(pos, len, &a, &b);
	if (cli_set_add(&u->held, a, b)) {
		free(w->data);
		return ENOMEM;
	}
	u->nq++;
	u->qbytes += len;
	return 0;
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
	if (!len)
		return 0;
	err = cli_undo_save(u, pos, len);
	if (err)
		return cli_undo_failed(u, c->name, err);
	err = cli_undo_hold(u, pos, len, data);
	if (!err && (u->qbytes >= CLI_UNDO_BATCH_BYTES || u->nq >= CLI_UNDO_BATCH_WRITES))
		err = cli_undo_commit(u, c->name);
	return err;
}

static errcode_t cli_undo_write(io_channel c, unsigned long block, int count, const void *data)
{
	return cli_undo_write64(c, block, count, data);
}

static errcode_t cli_undo_zeroout(io_channel c, unsigned long long block, unsigned long long count)
{
	struct cli_undo *u = cli_undo_of(c);
	const uint64_t pos = block * c->block_size, len = count * c->block_size;
	unsigned char *sb = NULL;
	errcode_t err;

	if (!u->real->manager->zeroout)
		return EXT2_ET_UNIMPLEMENTED;
	/* the held writes first: a zeroout is not held, its old contents are synced at once */
	err = cli_undo_commit(u, c->name);
	if (err)
		return err;
	err = cli_undo_save(u, pos, len);
	if (!err)
		err = cli_undo_sync(u);
	if (err)
		return cli_undo_failed(u, c->name, err);
	u->applied = 1;
	err = io_channel_zeroout(u->real, block, count);
	if (err || !cli_touches_super(pos, len))
		return err;
	sb = calloc(1, CLI_SUPER_SIZE);
	if (!sb)
		return ENOMEM;
	err = io_channel_flush(u->real);
	if (!err)
		err = cli_undo_super_written(u, CLI_SUPER_POS, CLI_SUPER_SIZE, sb);
	free(sb);
	return cli_undo_failed(u, c->name, err);
}

static errcode_t cli_undo_read64(io_channel c, unsigned long long block, int count, void *data)
{
	struct cli_undo *u = cli_undo_of(c);
	uint64_t len = count < 0 ? (uint64_t) - (int64_t)count : (uint64_t)count * c->block_size;
	uint64_t a, b;
	errcode_t err;

	/*
	 * The first read comes after the io options (offset=): from then on the
	 * undo file is one e2undo takes, with nothing in it yet.
	 */
	if (!u->started && !u->broken) {
		err = cli_undo_start(u);
		if (err)
			return cli_undo_failed(u, c->name, err);
	}
	/* a read sees the held writes on disk */
	cli_units(block * (uint64_t)c->block_size, len, &a, &b);
	if (u->held.n && cli_set_meets(&u->held, a, b)) {
		err = cli_undo_commit(u, c->name);
		if (err)
			return err;
	}
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

/*
 * A flush is the caller's barrier: the held writes reach the image, then the
 * disk; a header that followed a superblock write reaches it too.
 */
static errcode_t cli_undo_flush(io_channel c)
{
	struct cli_undo *u = cli_undo_of(c);
	errcode_t err = cli_undo_commit(u, c->name);

	if (!err)
		err = io_channel_flush(u->real);
	if (!err && u->dirty) {
		err = cli_undo_fdatasync(u);
		if (err)
			err = cli_undo_failed(u, c->name, err);
	}
	return err;
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
	struct cli_undo *u = cli_undo_of(c);
	uint64_t a, b;

	if (!u->real->manager->cache_readahead)
		return EXT2_ET_OP_NOT_SUPPORTED;
	/* only a hint: none over held writes, which the read itself sees */
	cli_units(block * (uint64_t)c->block_size, count * (uint64_t)c->block_size, &a, &b);
	if (u->held.n && cli_set_meets(&u->held, a, b))
		return 0;
	return u->real->manager->cache_readahead(u->real, block, count);
}

static errcode_t cli_undo_close(io_channel c)
{
	struct cli_undo *u = cli_undo_of(c);
	errcode_t err = 0, err2;

	if (--c->refcount > 0)
		return 0;
	if (u) {
		/* the last writes, and the undo file whole on disk, while the image can go back */
		err = cli_undo_commit(u, c->name);
		if (!err && u->dirty) {
			err = cli_undo_fdatasync(u);
			if (err)
				err = cli_undo_failed(u, c->name, err);
		}
		err2 = io_channel_close(u->real);
		if (!err)
			err = err2;
		if (close(u->fd) < 0 && !err)
			err = errno;
		err2 = u->broken;
		if (!err)
			err = err2;
		/* never started, or failed before its header: nothing to undo */
		if (u->tmp)
			unlink(u->tmp);
		cli_undo_drop(u);
		free(u->tmp);
		free(u->saved.r);
		free(u->held.r);
		free(u->q);
		free(u->keys);
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
