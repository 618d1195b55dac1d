// SPDX-License-Identifier: GPL-2.0-or-later
/* sparse.c - Android sparse images: the chunk table checked, read through, expanded, encoded */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/sparse.h"
#include "cli/util.h"
#include "output/outfile.h"

/*
 * The format, as AOSP's libsparse (sparse_format.h) writes it, all fields
 * little-endian: a file header, then chunks, each a header and its payload.
 */
#define CLI_SPARSE_HDR 28
#define CLI_CHUNK_HDR 12
#define CLI_CHUNK_RAW 0xcac1
#define CLI_CHUNK_FILL 0xcac2
#define CLI_CHUNK_DONT_CARE 0xcac3
#define CLI_CHUNK_CRC32 0xcac4

/* what is read or written at once */
#define CLI_SPARSE_WINDOW (1u << 20)
/* a raw chunk's size must fit its 32-bit total_sz */
#define CLI_RAW_CHUNK_MAX (64u << 20)

struct cli_chunk {
	unsigned int type;
	uint32_t blocks;
	uint64_t block;	   /* the first block it covers */
	uint64_t data_pos; /* where a raw chunk's data is in the file */
	uint32_t fill;
};

struct cli_walk {
	int fd;
	uint64_t file_size, pos, block;
	unsigned int file_hdr, chunk_hdr, index, chunks;
	uint32_t block_size, blocks;
};

static uint16_t cli_le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t cli_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void cli_put16(unsigned char *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void cli_put32(unsigned char *p, uint32_t v)
{
	cli_put16(p, v);
	cli_put16(p + 2, v >> 16);
}

static errcode_t cli_read_at(int fd, void *buf, size_t len, uint64_t pos)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EXT2_ET_SHORT_READ;
		p += n;
		len -= n;
		pos += n;
	}
	return 0;
}

static errcode_t cli_write_at(int fd, const void *buf, size_t len, uint64_t pos)
{
	return cli_write_all(fd, buf, len, pos);
}

static errcode_t cli_walk_start(struct cli_walk *w, int fd, uint64_t file_size, char *why,
				size_t ws)
{
	unsigned char h[CLI_SPARSE_HDR];
	errcode_t err;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->file_size = file_size;
	if (file_size < CLI_SPARSE_HDR) {
		snprintf(why, ws, " (an Android sparse image cut short at %llu bytes)",
			 (unsigned long long)file_size);
		return EXT2_ET_SHORT_READ;
	}
	err = cli_read_at(fd, h, sizeof(h), 0);
	if (err)
		return err;
	w->file_hdr = cli_le16(h + 8);
	w->chunk_hdr = cli_le16(h + 10);
	w->block_size = cli_le32(h + 12);
	w->blocks = cli_le32(h + 16);
	w->chunks = cli_le32(h + 20);
	w->pos = w->file_hdr;
	if (cli_le32(h) != CLI_SPARSE_MAGIC || cli_le16(h + 4) != 1) {
		snprintf(why, ws, " (an Android sparse image of version %u.%u; 1.x is known)",
			 cli_le16(h + 4), cli_le16(h + 6));
		return EXT2_ET_UNIMPLEMENTED;
	}
	if (w->file_hdr < CLI_SPARSE_HDR || w->file_hdr > 4096 || w->chunk_hdr < CLI_CHUNK_HDR ||
	    w->chunk_hdr > 4096 || w->block_size < 4 || w->block_size % 4 ||
	    w->block_size > (64u << 20)) {
		snprintf(
			why, ws,
			" (a damaged Android sparse image: header of %u bytes, chunk headers of %u, "
			"blocks of %u)",
			w->file_hdr, w->chunk_hdr, w->block_size);
		return EINVAL;
	}
	/* every chunk takes at least its header: the count is bounded by the file */
	if ((uint64_t)w->chunks * w->chunk_hdr > file_size - CLI_SPARSE_HDR ||
	    w->file_hdr > file_size) {
		snprintf(why, ws,
			 " (a damaged Android sparse image: its header claims %u chunks, more than "
			 "its %llu bytes can hold)",
			 w->chunks, (unsigned long long)file_size);
		return EXT2_ET_SHORT_READ;
	}
	return 0;
}

/* The next chunk, checked; call while w->index < w->chunks. */
static errcode_t cli_walk_next(struct cli_walk *w, struct cli_chunk *c, char *why, size_t ws)
{
	unsigned char h[CLI_CHUNK_HDR + 4];
	uint64_t total, want;
	unsigned int n = w->index + 1;
	errcode_t err;

	if (w->pos + w->chunk_hdr > w->file_size) {
		snprintf(why, ws,
			 " (a damaged Android sparse image: chunk %u of %u starts past its end at "
			 "byte %llu)",
			 n, w->chunks, (unsigned long long)w->file_size);
		return EXT2_ET_SHORT_READ;
	}
	err = cli_read_at(w->fd, h, CLI_CHUNK_HDR, w->pos);
	if (err)
		return err;
	memset(c, 0, sizeof(*c));
	c->type = cli_le16(h);
	c->blocks = cli_le32(h + 4);
	c->block = w->block;
	total = cli_le32(h + 8);
	c->data_pos = w->pos + w->chunk_hdr;
	switch (c->type) {
	case CLI_CHUNK_RAW:
		want = w->chunk_hdr + (uint64_t)c->blocks * w->block_size;
		break;
	case CLI_CHUNK_FILL:
	case CLI_CHUNK_CRC32:
		want = w->chunk_hdr + 4;
		break;
	case CLI_CHUNK_DONT_CARE:
		want = w->chunk_hdr;
		break;
	default:
		snprintf(why, ws,
			 " (a damaged Android sparse image: chunk %u is of unknown type 0x%04x)", n,
			 c->type);
		return EINVAL;
	}
	if (total != want) {
		snprintf(why, ws,
			 " (a damaged Android sparse image: chunk %u is %llu bytes, its %u blocks "
			 "make %llu)",
			 n, (unsigned long long)total, c->blocks, (unsigned long long)want);
		return EINVAL;
	}
	if (total > w->file_size - w->pos) {
		snprintf(
			why, ws,
			" (a damaged Android sparse image: chunk %u claims %llu bytes, past its end "
			"at byte %llu)",
			n, (unsigned long long)total, (unsigned long long)w->file_size);
		return EXT2_ET_SHORT_READ;
	}
	if (c->type == CLI_CHUNK_FILL) {
		err = cli_read_at(w->fd, h + CLI_CHUNK_HDR, 4, c->data_pos);
		if (err)
			return err;
		c->fill = cli_le32(h + CLI_CHUNK_HDR);
	}
	/* a checksum chunk covers no block */
	if (c->type == CLI_CHUNK_CRC32)
		c->blocks = 0;
	/* chunks follow each other: one that runs past the header's blocks overlaps nothing real */
	if (c->blocks > w->blocks - w->block) {
		snprintf(why, ws,
			 " (a damaged Android sparse image: chunk %u of %u covers blocks %llu to "
			 "%llu, past the %u blocks of its header)",
			 n, w->chunks, (unsigned long long)c->block,
			 (unsigned long long)c->block + c->blocks - 1, w->blocks);
		return EINVAL;
	}
	w->block += c->blocks;
	w->pos += total;
	w->index++;
	if (w->index == w->chunks && w->block != w->blocks) {
		snprintf(
			why, ws,
			" (a damaged Android sparse image: its chunks hold %llu blocks, its header "
			"%u)",
			(unsigned long long)w->block, w->blocks);
		return EINVAL;
	}
	return 0;
}

errcode_t cli_sparse_scan(int fd, uint64_t file_size, struct cli_sparse *sp, char *why, size_t ws)
{
	struct cli_walk w;
	struct cli_chunk c;
	size_t cap = 0, ccap = 0;
	errcode_t err;

	memset(sp, 0, sizeof(*sp));
	err = cli_walk_start(&w, fd, file_size, why, ws);
	if (err)
		return err;
	sp->block_size = w.block_size;
	sp->blocks = w.blocks;
	while (w.index < w.chunks) {
		err = cli_walk_next(&w, &c, why, ws);
		if (err)
			return err;
		if ((c.type == CLI_CHUNK_RAW || (c.type == CLI_CHUNK_FILL && c.fill)) && c.blocks) {
			sp->data_bytes += (uint64_t)c.blocks * w.block_size;
			if (cli_grow((void **)&sp->chunks, &ccap, sp->nchunks, sizeof(*sp->chunks)))
				return ENOMEM;
			sp->chunks[sp->nchunks++] = (struct cli_sparse_chunk){
				.block = c.block,
				.pos = c.data_pos,
				.blocks = c.blocks,
				.fill = c.fill,
				.raw = c.type == CLI_CHUNK_RAW,
			};
			continue;
		}
		if (c.type != CLI_CHUNK_DONT_CARE || !c.blocks)
			continue;
		if (sp->ndontcare &&
		    sp->dontcare[sp->ndontcare - 1].start + sp->dontcare[sp->ndontcare - 1].count ==
			    c.block) {
			sp->dontcare[sp->ndontcare - 1].count += c.blocks;
			continue;
		}
		if (cli_grow((void **)&sp->dontcare, &cap, sp->ndontcare, sizeof(*sp->dontcare)))
			return ENOMEM;
		sp->dontcare[sp->ndontcare].start = c.block;
		sp->dontcare[sp->ndontcare++].count = c.blocks;
	}
	return 0;
}

errcode_t cli_sparse_read(int fd, const struct cli_sparse *sp, uint64_t pos, void *buf, size_t len)
{
	const uint64_t bs = sp->block_size, end = sp->blocks * bs;
	unsigned char *p = buf;
	const size_t got = pos >= end ? 0 : end - pos < len ? end - pos : len;
	size_t lo = 0, hi = sp->nchunks, want = got;
	errcode_t err = 0;

	memset(p + got, 0, len - got);
	/* the first chunk that ends after @pos */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((sp->chunks[mid].block + sp->chunks[mid].blocks) * bs <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (!err && want) {
		const struct cli_sparse_chunk *c = lo < sp->nchunks ? &sp->chunks[lo] : NULL;
		const uint64_t start = c ? c->block * bs : end;
		const uint64_t stop = c ? start + c->blocks * bs : end;
		size_t n;

		if (!c || pos < start) {
			/* between data chunks or after them: "don't care", a fill of zeros */
			n = start - pos < want ? start - pos : want;
			memset(p, 0, n);
		} else {
			n = stop - pos < want ? stop - pos : want;
			if (c->raw) {
				err = cli_read_at(fd, p, n, c->pos + (pos - start));
			} else {
				/* a chunk starts on a block, a multiple of 4 bytes: the phase is @pos's */
				for (size_t i = 0; i < n; i++)
					p[i] = c->fill >> 8 * ((pos + i) % 4);
			}
			lo++;
		}
		p += n;
		pos += n;
		want -= n;
	}
	if (!err && got < len)
		err = EXT2_ET_SHORT_READ;
	return err;
}

static int cli_is_zero(const unsigned char *b, size_t len)
{
	return !b[0] && !memcmp(b, b + 1, len - 1);
}

/* Writes the blocks of @buf that are not all zeros, runs at once. */
static errcode_t cli_write_nonzero(int rawfd, const unsigned char *buf, size_t len, unsigned int bs,
				   uint64_t pos)
{
	size_t i = 0;
	errcode_t err;

	while (i < len) {
		size_t j;

		if (cli_is_zero(buf + i, bs)) {
			i += bs;
			continue;
		}
		for (j = i + bs; j < len && !cli_is_zero(buf + j, bs); j += bs)
			;
		err = cli_write_at(rawfd, buf + i, j - i, pos + i);
		if (err)
			return err;
		i = j;
	}
	return 0;
}

static size_t cli_window(unsigned int bs)
{
	return bs >= CLI_SPARSE_WINDOW ? bs : CLI_SPARSE_WINDOW / bs * bs;
}

errcode_t cli_sparse_expand(int fd, const struct cli_sparse *sp, int rawfd)
{
	const unsigned int bs = sp->block_size;
	const size_t win = cli_window(bs);
	unsigned char *buf = malloc(win);
	char why[8];
	struct cli_walk w;
	struct cli_chunk c;
	struct stat st;
	errcode_t err;

	if (!buf)
		return ENOMEM;
	if (fstat(fd, &st)) {
		err = errno;
		free(buf);
		return err;
	}
	err = cli_walk_start(&w, fd, st.st_size, why, sizeof(why));
	while (!err && w.index < w.chunks) {
		uint64_t len, done = 0;

		err = cli_walk_next(&w, &c, why, sizeof(why));
		if (err || !(c.type == CLI_CHUNK_RAW || (c.type == CLI_CHUNK_FILL && c.fill)))
			continue;
		len = (uint64_t)c.blocks * bs;
		if (c.type == CLI_CHUNK_FILL)
			for (size_t i = 0; i < win; i += 4)
				cli_put32(buf + i, c.fill);
		while (!err && done < len) {
			size_t n = len - done < win ? len - done : win;

			if (c.type == CLI_CHUNK_RAW) {
				err = cli_read_at(fd, buf, n, c.data_pos + done);
				if (!err)
					err = cli_write_nonzero(rawfd, buf, n, bs,
								c.block * bs + done);
			} else {
				err = cli_write_at(rawfd, buf, n, c.block * bs + done);
			}
			done += n;
		}
	}
	if (!err && ftruncate(rawfd, sp->blocks * bs) < 0)
		err = errno;
	free(buf);
	return err;
}

/* ---- encoding ---------------------------------------------------------------------- */

enum cli_run_kind { CLI_RUN_NONE, CLI_RUN_RAW, CLI_RUN_FILL, CLI_RUN_DONT_CARE };

struct cli_encoder {
	int rawfd;
	unsigned int bs;
	struct cli_outfile *o;
	unsigned char *buf; /* a window */
	size_t win;
	uint32_t chunks;
	/* the run of blocks that makes the next chunk */
	enum cli_run_kind kind;
	uint32_t value;
	uint64_t start, count;
};

static errcode_t cli_emit(struct cli_encoder *e)
{
	unsigned char h[CLI_CHUNK_HDR + 4];
	static const uint16_t types[] = {
		[CLI_RUN_RAW] = CLI_CHUNK_RAW,
		[CLI_RUN_FILL] = CLI_CHUNK_FILL,
		[CLI_RUN_DONT_CARE] = CLI_CHUNK_DONT_CARE,
	};
	size_t hlen = CLI_CHUNK_HDR + (e->kind == CLI_RUN_FILL ? 4 : 0);
	uint64_t total = hlen + (e->kind == CLI_RUN_RAW ? e->count * e->bs : 0);
	errcode_t err;

	if (e->kind == CLI_RUN_NONE || !e->count)
		return 0;
	cli_put16(h, types[e->kind]);
	cli_put16(h + 2, 0);
	cli_put32(h + 4, e->count);
	cli_put32(h + 8, total);
	cli_put32(h + 12, e->value);
	err = cli_outfile_write(e->o, h, hlen);
	for (uint64_t done = 0; !err && e->kind == CLI_RUN_RAW && done < e->count * e->bs;) {
		size_t n = e->count * e->bs - done < e->win ? e->count * e->bs - done : e->win;

		err = cli_read_at(e->rawfd, e->buf, n, e->start * e->bs + done);
		if (!err)
			err = cli_outfile_write(e->o, e->buf, n);
		done += n;
	}
	e->chunks++;
	e->kind = CLI_RUN_NONE;
	e->count = 0;
	return err;
}

/* Adds @n blocks from @start of one kind (and fill value) to the runs. */
static errcode_t cli_add(struct cli_encoder *e, enum cli_run_kind kind, uint32_t value,
			 uint64_t start, uint64_t n)
{
	const uint64_t cap = kind == CLI_RUN_RAW ? CLI_RAW_CHUNK_MAX / e->bs : UINT32_MAX;
	errcode_t err;

	while (n) {
		uint64_t take;

		if (e->kind != kind || (kind == CLI_RUN_FILL && e->value != value) ||
		    e->start + e->count != start || e->count == cap) {
			err = cli_emit(e);
			if (err)
				return err;
			e->kind = kind;
			e->value = value;
			e->start = start;
		}
		take = cap - e->count < n ? cap - e->count : n;
		if (!take)
			take = 1;
		e->count += take;
		start += take;
		n -= take;
	}
	return 0;
}

/* Blocks [@a, @b) that are holes: "don't care" where they were, zeros elsewhere. */
static errcode_t cli_add_hole(struct cli_encoder *e, const struct cli_sparse *sp, uint64_t a,
			      uint64_t b)
{
	size_t lo = 0, hi = sp->ndontcare;
	errcode_t err;

	/* the first "don't care" range that ends after @a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->dontcare[mid].start + sp->dontcare[mid].count <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; a < b; i++) {
		uint64_t dc_start = i < sp->ndontcare ? sp->dontcare[i].start : b;
		uint64_t dc_end = i < sp->ndontcare ? dc_start + sp->dontcare[i].count : b;

		if (dc_start > b)
			dc_start = b;
		if (dc_end > b)
			dc_end = b;
		if (a < dc_start) {
			err = cli_add(e, CLI_RUN_FILL, 0, a, dc_start - a);
			if (err)
				return err;
			a = dc_start;
		}
		if (a < dc_end) {
			err = cli_add(e, CLI_RUN_DONT_CARE, 0, a, dc_end - a);
			if (err)
				return err;
			a = dc_end;
		}
	}
	return 0;
}

/* Blocks [@a, @b) that hold data: fills where a block is one repeated 32-bit value. */
static errcode_t cli_add_data(struct cli_encoder *e, uint64_t a, uint64_t b)
{
	errcode_t err = 0;

	while (!err && a < b) {
		uint64_t n = (b - a) * e->bs < e->win ? b - a : e->win / e->bs;

		/* up to 2^32 blocks of 4 bytes to 64 MiB (cli_walk_start()): n * bs is never 0 */
		CLI_ANALYZER_ASSUME(n * e->bs);
		err = cli_read_at(e->rawfd, e->buf, n * e->bs, a * e->bs);
		for (uint64_t i = 0; !err && i < n; i++) {
			const unsigned char *blk = e->buf + i * e->bs;
			uint32_t v = cli_le32(blk);
			int fill = 1;

			for (unsigned int k = 4; k < e->bs && fill; k += 4)
				fill = !memcmp(blk, blk + k, 4);
			err = cli_add(e, fill ? CLI_RUN_FILL : CLI_RUN_RAW, fill ? v : 0, a + i, 1);
		}
		a += n;
	}
	return err;
}

errcode_t cli_sparse_encode(int rawfd, const struct cli_sparse *sp, struct cli_outfile *o)
{
	struct cli_encoder e = {
		.rawfd = rawfd,
		.bs = sp->block_size,
		.o = o,
		.win = cli_window(sp->block_size),
	};
	unsigned char h[CLI_SPARSE_HDR] = { 0 };
	const uint64_t end = sp->blocks;
	uint64_t blk = 0;
	errcode_t err;

	e.buf = malloc(e.win);
	if (!e.buf)
		return ENOMEM;
	/* the header, whose chunk count is known at the end */
	err = cli_outfile_write(o, h, sizeof(h));
	while (!err && blk < end) {
		off_t data = lseek(rawfd, blk * e.bs, SEEK_DATA), hole;
		uint64_t d, hb;

		if (data < 0 && errno == ENXIO) {
			err = cli_add_hole(&e, sp, blk, end);
			break;
		}
		if (data < 0) {
			/* no SEEK_DATA here: every block is read */
			err = cli_add_data(&e, blk, end);
			break;
		}
		hole = lseek(rawfd, data, SEEK_HOLE);
		if (hole < 0) {
			err = errno;
			break;
		}
		/* chunks are whole blocks: a block with any data is data */
		d = (uint64_t)data / e.bs;
		hb = ((uint64_t)hole + e.bs - 1) / e.bs;
		if (d < blk)
			d = blk;
		if (d > end)
			d = end;
		if (hb > end)
			hb = end;
		err = cli_add_hole(&e, sp, blk, d);
		if (!err)
			err = cli_add_data(&e, d, hb);
		blk = hb > d ? hb : d + 1;
	}
	if (!err)
		err = cli_emit(&e);
	if (!err) {
		cli_put32(h, CLI_SPARSE_MAGIC);
		cli_put16(h + 4, 1);
		cli_put16(h + 6, 0);
		cli_put16(h + 8, CLI_SPARSE_HDR);
		cli_put16(h + 10, CLI_CHUNK_HDR);
		cli_put32(h + 12, e.bs);
		cli_put32(h + 16, sp->blocks);
		cli_put32(h + 20, e.chunks);
		err = cli_write_at(o->fd, h, sizeof(h), 0);
	}
	free(e.buf);
	return err;
}

void cli_sparse_free(struct cli_sparse *sp)
{
	free(sp->dontcare);
	free(sp->chunks);
	memset(sp, 0, sizeof(*sp));
}
