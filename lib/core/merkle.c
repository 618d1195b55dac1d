// SPDX-License-Identifier: GPL-2.0-or-later
/* merkle.c - streaming, filesystem-agnostic fs-verity Merkle tree builder */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "descriptor.h"
#include "geometry.h"
#include "hash.h"
#include "merkle.h"
#include "workers.h"

/*
 * Data is read and hashed this many bytes at a time, or a block at a time for
 * the larger blocks of a host digest (up to E2VERITY_HOST_MAX_BLOCK_SIZE).
 * Both are powers of 2: a chunk is a whole number of blocks.
 */
#define E2V_CHUNK_SIZE (1u << 20)
/* below this much data per thread, starting a thread costs more than it saves */
#define E2V_MIN_BYTES_PER_THREAD (128u << 10)
/* waking a thread of a lasting pool is cheaper */
#define E2V_MIN_BYTES_PER_WAKEUP (32u << 10)

/*
 * Per level, up to E2V_HASHER_MANY tree blocks, the last partly filled: the
 * full ones are hashed together, side by side in vector lanes, not one by
 * one.  Memory is bounded by the height.
 */
struct e2v_builder {
	const struct e2verity_params *p;
	const struct e2v_geo *g;
	struct e2verity_hasher *hasher;
	unsigned int digest_size;
	e2verity_tree_fn sink;
	void *sink_ctx;
	uint8_t *level_buf[E2VERITY_HOST_MAX_LEVELS];
	unsigned int level_cap[E2VERITY_HOST_MAX_LEVELS];  /* blocks level_buf holds */
	unsigned int level_full[E2VERITY_HOST_MAX_LEVELS]; /* full blocks in it, not yet hashed */
	size_t level_fill[E2VERITY_HOST_MAX_LEVELS];	   /* bytes in the block after them */
	uint64_t level_next[E2VERITY_HOST_MAX_LEVELS]; /* the level's index of level_buf's first */
	uint8_t root[E2VERITY_MAX_DIGEST_SIZE];
	/* a tree block of one repeated hash, for the runs of all-zero blocks in holes */
	uint8_t *repeat_buf;
};

static errcode_t e2v_add_hash(struct e2v_builder *b, unsigned int level, const uint8_t *digest);

/* Hands the full blocks of @level to the sink and their hashes to the level above. */
static errcode_t e2v_emit_blocks(struct e2v_builder *b, unsigned int level)
{
	const unsigned int bs = b->p->block_size, n = b->level_full[level];
	uint8_t digests[E2V_HASHER_MANY][E2VERITY_MAX_DIGEST_SIZE], *out[E2V_HASHER_MANY] = { 0 };
	const void *blocks[E2V_HASHER_MANY] = { 0 };
	errcode_t err;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t index = b->g->level_start[level] + b->level_next[level] + i;

		blocks[i] = b->level_buf[level] + (size_t)i * bs;
		out[i] = digests[i];
		if (b->sink) {
			err = b->sink(b->sink_ctx, blocks[i], bs, index * bs);
			if (err)
				return err;
		}
	}
	b->level_next[level] += n;
	b->level_full[level] = 0;
	err = e2v_hasher_many(b->hasher, blocks, n, bs, out);
	for (unsigned int i = 0; !err && i < n; i++)
		err = e2v_add_hash(b, level + 1, digests[i]);
	return err;
}

/* Ends the partly filled block of @level, zero-padded; hashed when the buffer is full. */
static errcode_t e2v_end_block(struct e2v_builder *b, unsigned int level)
{
	const unsigned int bs = b->p->block_size;
	uint8_t *block = b->level_buf[level] + (size_t)b->level_full[level] * bs;

	memset(block + b->level_fill[level], 0, bs - b->level_fill[level]);
	b->level_fill[level] = 0;
	if (++b->level_full[level] < b->level_cap[level])
		return 0;
	return e2v_emit_blocks(b, level);
}

static errcode_t e2v_add_hash(struct e2v_builder *b, unsigned int level, const uint8_t *digest)
{
	const unsigned int bs = b->p->block_size;

	if (level == b->g->num_levels) {
		memcpy(b->root, digest, b->digest_size);
		return 0;
	}
	memcpy(b->level_buf[level] + (size_t)b->level_full[level] * bs + b->level_fill[level],
	       digest, b->digest_size);
	b->level_fill[level] += b->digest_size;
	if (b->level_fill[level] + b->digest_size > bs)
		return e2v_end_block(b, level);
	return 0;
}

/*
 * Adds @count copies of @digest at @level.  Whole tree blocks of copies are
 * alike: each is handed to the sink, but hashed once, and their hash goes up
 * as a run of its own; so a hole of any size costs a few hashes per level.
 */
static errcode_t e2v_add_repeat(struct e2v_builder *b, unsigned int level, const uint8_t *digest,
				uint64_t count)
{
	const unsigned int bs = b->p->block_size, per = bs / b->digest_size;
	uint8_t up[E2VERITY_MAX_DIGEST_SIZE];
	uint64_t full, i;
	errcode_t err;

	/* one at a time up to a block boundary, and what is left after the whole blocks */
	while (count && (level == b->g->num_levels || b->level_fill[level] || count < per)) {
		err = e2v_add_hash(b, level, digest);
		if (err)
			return err;
		count--;
	}
	if (!count)
		return 0;
	/* the blocks before the run go first: the run's place in the level follows theirs */
	if (b->level_full[level]) {
		err = e2v_emit_blocks(b, level);
		if (err)
			return err;
	}
	if (!b->repeat_buf) {
		b->repeat_buf = malloc(bs);
		if (!b->repeat_buf)
			return E2VERITY_ET_NO_MEMORY;
	}
	for (i = 0; i < per; i++)
		memcpy(b->repeat_buf + i * b->digest_size, digest, b->digest_size);
	memset(b->repeat_buf + per * b->digest_size, 0, bs - per * b->digest_size);
	/* validated parameters (e2v_compute_keep()): at least two hashes a block */
	E2V_ANALYZER_ASSUME(per);
	full = count / per;
	for (i = 0; b->sink && i < full; i++) {
		uint64_t index = b->g->level_start[level] + b->level_next[level] + i;

		err = b->sink(b->sink_ctx, b->repeat_buf, bs, index * bs);
		if (err)
			return err;
	}
	b->level_next[level] += full;
	err = e2v_hasher_block(b->hasher, b->repeat_buf, bs, up);
	if (!err)
		err = e2v_add_repeat(b, level + 1, up, full);
	if (err)
		return err;
	return e2v_add_repeat(b, level, digest, count - full * per);
}

/*
 * The data blocks from @pos that lie wholly in a hole, as @seek tells (the
 * zero-padded tail of the last block counts as zeros).
 */
static errcode_t e2v_hole_blocks(struct e2v_builder *b, e2verity_seek_data_fn seek, void *ctx,
				 uint64_t pos, uint64_t data_size, uint64_t *blocks)
{
	uint64_t next = pos;
	errcode_t err;

	*blocks = 0;
	if (!seek)
		return 0;
	err = seek(ctx, pos, &next);
	if (err)
		return err;
	if (next >= data_size)
		*blocks = e2v_div_round_up(data_size - pos, b->p->block_size);
	else if (next > pos)
		*blocks = (next - pos) / b->p->block_size;
	return 0;
}

/* The digests of the chunk the threads were hashing, once they are done, into level 0. */
static errcode_t e2v_collect(struct e2v_builder *b, struct e2verity_workers *workers,
			     const uint8_t *digests, size_t *pending)
{
	size_t n = *pending;
	errcode_t err;

	if (!n)
		return 0;
	*pending = 0;
	err = e2v_workers_finish(workers);
	for (size_t i = 0; !err && i < n; i++)
		err = e2v_add_hash(b, 0, digests + i * b->digest_size);
	return err;
}

/*
 * Hash every data block, feeding leaf digests into the level buffers.  With
 * other threads, the next chunk is read while they hash the last one.
 */
static errcode_t e2v_hash_data(struct e2v_builder *b, uint64_t data_size, e2verity_read_fn read,
			       e2verity_seek_data_fn seek, void *read_ctx, struct e2v_scratch *keep)
{
	const unsigned int bs = b->p->block_size;
	/* a block larger than E2V_CHUNK_SIZE is a chunk of its own */
	const size_t max_chunk = bs > E2V_CHUNK_SIZE ? bs : E2V_CHUNK_SIZE;
	uint64_t chunk_size = e2v_round_up(data_size, bs);
	struct e2verity_workers *workers = b->p->threads.workers, *own = NULL;
	uint8_t zero_digest[E2VERITY_MAX_DIGEST_SIZE];
	uint8_t *bufs[2] = { NULL, NULL }, *digests = NULL;
	uint64_t active, pos = 0, hole;
	size_t pending = 0; /* blocks of the chunk the threads are hashing */
	int have_zero = 0, cur = 0;
	errcode_t err;

	/* small files are common: size the buffer and the threads to the file */
	if (chunk_size > max_chunk)
		chunk_size = max_chunk;
	active = data_size / (workers ? E2V_MIN_BYTES_PER_WAKEUP : E2V_MIN_BYTES_PER_THREAD);
	/*
	 * A chunk of one huge block is hashed by one thread anyway; a second
	 * buffer to read the next into would double the memory for nothing.
	 */
	if (bs > E2V_CHUNK_SIZE)
		active = 0;
	if (!workers && active > 1 && b->p->threads.count > 1) {
		err = e2verity_workers_new(
			active < b->p->threads.count ? active : b->p->threads.count, &own);
		if (err)
			return err;
		workers = own;
	}
	if (active > e2v_workers_count(workers))
		active = e2v_workers_count(workers);
	if (keep &&
	    (keep->size < chunk_size || keep->digests_size < chunk_size / bs * b->digest_size)) {
		/* grows to the largest chunk once: no fresh pages to fault in for every file */
		free(keep->chunk);
		free(keep->digests);
		keep->chunk = malloc(max_chunk);
		keep->digests_size = max_chunk / bs * b->digest_size;
		keep->digests = malloc(keep->digests_size);
		keep->size = keep->chunk && keep->digests ? max_chunk : 0;
		if (!keep->size)
			keep->digests_size = 0;
	}
	if (keep && keep->size) {
		bufs[0] = keep->chunk;
		digests = keep->digests;
	} else {
		bufs[0] = malloc(chunk_size);
		digests = malloc((chunk_size / bs) * b->digest_size);
	}
	if (active > 1)
		bufs[1] = malloc(chunk_size);
	if (!bufs[0] || !digests || (active > 1 && !bufs[1])) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	while (pos < data_size || pending) {
		const uint8_t *src = bufs[cur];
		size_t len = 0, nblocks = 0;

		/* bufs[cur] is never the one being hashed */
		if (pos < data_size) {
			err = e2v_hole_blocks(b, seek, read_ctx, pos, data_size, &hole);
			if (err)
				goto out;
			if (hole) {
				err = e2v_collect(b, workers, digests, &pending);
				if (!err && !have_zero) {
					memset(bufs[cur], 0, bs);
					err = e2v_hasher_block(b->hasher, bufs[cur], bs,
							       zero_digest);
					have_zero = 1;
				}
				if (!err)
					err = e2v_add_repeat(b, 0, zero_digest, hole);
				if (err)
					goto out;
				pos = data_size - pos <= hole * bs ? data_size : pos + hole * bs;
				continue;
			}
			len = data_size - pos < chunk_size ? data_size - pos : chunk_size;
			nblocks = e2v_div_round_up(len, bs);
			err = read(read_ctx, bufs[cur], len, pos);
			if (err)
				goto out;
			memset(bufs[cur] + len, 0, nblocks * bs - len);
		}
		err = e2v_collect(b, workers, digests, &pending);
		if (!err && nblocks)
			err = e2v_workers_start(workers, active, b->hasher, src, nblocks, bs,
						digests);
		if (err)
			goto out;
		pending = nblocks;
		pos += len;
		if (bufs[1])
			cur ^= 1;
		else /* one buffer: done with it before the next read */
			err = e2v_collect(b, workers, digests, &pending);
		if (err)
			goto out;
	}
	err = 0;
out:
	/* the threads may still be reading a buffer */
	if (pending)
		e2v_workers_finish(workers);
	e2verity_workers_free(own);
	if (!keep || bufs[0] != keep->chunk) {
		free(bufs[0]);
		free(digests);
	}
	free(bufs[1]);
	return err;
}

errcode_t e2verity_compute(const struct e2verity_params *params, uint64_t data_size,
			   e2verity_read_fn read, void *read_ctx, e2verity_tree_fn tree,
			   void *tree_ctx, struct e2verity_result *res)
{
	return e2v_compute_keep(params, data_size, read, NULL, read_ctx, tree, tree_ctx, res, NULL);
}

errcode_t e2verity_compute_sparse(const struct e2verity_params *params, uint64_t data_size,
				  e2verity_read_fn read, e2verity_seek_data_fn seek, void *read_ctx,
				  e2verity_tree_fn tree, void *tree_ctx,
				  struct e2verity_result *res)
{
	return e2v_compute_keep(params, data_size, read, seek, read_ctx, tree, tree_ctx, res, NULL);
}

void e2v_scratch_free(struct e2v_scratch *keep)
{
	free(keep->chunk);
	free(keep->digests);
	memset(keep, 0, sizeof(*keep));
}

void e2v_result_describe(const struct e2verity_params *p, uint64_t data_size, const uint8_t *root,
			 struct e2verity_result *res)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(p->hash_alg);
	struct e2verity_descriptor *d = &res->desc;

	d->version = 1;
	d->hash_algorithm = p->hash_alg;
	d->log_blocksize = e2v_ilog2(p->block_size);
	d->salt_size = p->salt_size;
	d->data_size = data_size;
	/* an empty file has no blocks and an all-zero root hash */
	if (data_size)
		memcpy(d->root_hash, root, alg->digest_size);
	if (p->salt_size)
		memcpy(d->salt, p->salt, p->salt_size);
	res->digest_size = alg->digest_size;
}

errcode_t e2v_result_finish(const struct e2verity_params *p, uint64_t data_size,
			    const uint8_t *root, struct e2verity_result *res)
{
	e2v_result_describe(p, data_size, root, res);
	return e2verity_descriptor_digest(&res->desc, res->digest);
}

errcode_t e2v_compute_keep(const struct e2verity_params *params, uint64_t data_size,
			   e2verity_read_fn read, e2verity_seek_data_fn seek, void *read_ctx,
			   e2verity_tree_fn tree, void *tree_ctx, struct e2verity_result *res,
			   struct e2v_scratch *keep)
{
	struct e2verity_params p = *params;
	struct e2v_builder b = { 0 };
	struct e2v_geo geo;
	const struct e2verity_hash_alg *alg;
	errcode_t err;
	unsigned int i, per_level;

	memset(res, 0, sizeof(*res));
	err = e2verity_params_validate(&p);
	if (err)
		return err;
	alg = e2verity_hash_alg_by_num(p.hash_alg);
	err = e2v_geo_compute(&p, data_size, &geo);
	if (err)
		return err;
	e2v_geo_export(&geo, &res->geo);
	b.p = &p;
	b.g = &geo;
	b.digest_size = alg->digest_size;
	b.sink = tree;
	b.sink_ctx = tree_ctx;
	err = e2v_hasher_new(p.hash_alg, p.salt, p.salt_size, &b.hasher);
	if (err)
		return err;
	/*
	 * Up to E2V_HASHER_MANY blocks a level, hashed side by side, but no
	 * more than E2V_CHUNK_SIZE of them: one block of a host digest's
	 * larger ones.
	 */
	per_level = E2V_CHUNK_SIZE / p.block_size;
	if (per_level > E2V_HASHER_MANY)
		per_level = E2V_HASHER_MANY;
	if (per_level < 1)
		per_level = 1;
	for (i = 0; i < geo.num_levels; i++) {
		b.level_cap[i] = geo.level_blocks[i] < per_level ? geo.level_blocks[i] : per_level;
		b.level_buf[i] = malloc((size_t)b.level_cap[i] * p.block_size);
		if (!b.level_buf[i]) {
			err = E2VERITY_ET_NO_MEMORY;
			goto out;
		}
	}
	err = e2v_hash_data(&b, data_size, read, seek, read_ctx, keep);
	if (err)
		goto out;
	/* Flush the blocks left, lowest level first: each feeds the next. */
	for (i = 0; i < geo.num_levels; i++) {
		if (b.level_fill[i])
			err = e2v_end_block(&b, i);
		if (!err && b.level_full[i])
			err = e2v_emit_blocks(&b, i);
		if (err)
			goto out;
	}

	err = e2v_result_finish(&p, data_size, b.root, res);
out:
	for (i = 0; i < geo.num_levels; i++)
		free(b.level_buf[i]);
	free(b.repeat_buf);
	e2v_hasher_free(b.hasher);
	return err;
}
