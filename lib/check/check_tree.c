// SPDX-License-Identifier: GPL-2.0-or-later
/* check_tree.c - re-hash a sealed file and compare each stored Merkle tree block, kernel-style */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/merkle.h"
#include "check_tree.h"
#include "ext4/measure.h"
#include "core/hash.h"
#include "txn/txn_io.h"

/* Stored tree blocks are read this many bytes at a time per level. */
#define E2V_TREE_WINDOW (256u << 10)
/* from this size, opening the image for a file's reads costs little against them */
#define E2V_DIRECT_MIN (256u << 10)

/* A run of stored tree blocks of one level, read ahead in one go. */
struct e2v_window {
	uint64_t first; /* index in the stored tree of buf's first block */
	uint64_t n;	/* blocks in buf */
	uint8_t *buf;
};

/* A mismatch to report: the first one of its kind, and how many there were */
struct e2v_mismatch {
	uint64_t count;
	uint64_t block;
	uint8_t stored[E2VERITY_MAX_DIGEST_SIZE];
	uint8_t computed[E2VERITY_MAX_DIGEST_SIZE];
};

/* The data blocks of one level-0 block that do not match their entries */
struct e2v_leaf_state {
	uint32_t count;
	uint32_t first; /* entry index of the first */
};

struct e2v_tree_check {
	struct e2v_check *c;
	struct e2v_ext4_file *f;
	const struct e2verity_descriptor *d;
	const struct e2verity_geometry *geo;
	struct e2verity_hasher *hasher;
	unsigned int bs, ds;
	uint64_t hpb; /* hashes per tree block */
	uint64_t merkle_pos;
	uint64_t window_blocks;
	struct e2v_window win[E2VERITY_MAX_LEVELS];
	/*
	 * What the pass over the data found, judged at the end: a stored tree
	 * block that does not hash to its parent's entry (one bit per block of
	 * the stored tree; the top block's parent is the root hash), and the
	 * data blocks that do not match their level-0 entries.
	 */
	uint8_t *bad;
	struct e2v_leaf_state *leaves;
	uint64_t data_bad, level_bad[E2VERITY_MAX_LEVELS];
	uint64_t hashed;
};

/*
 * One block hashed with the descriptor's parameters; the hasher is made at
 * its first use: most small files have no stored tree and match.
 */
static errcode_t e2v_tree_hash(struct e2v_tree_check *tc, const uint8_t *block, size_t len,
			       uint8_t *out)
{
	errcode_t err;

	if (!tc->hasher) {
		err = e2v_hasher_new(tc->d->hash_algorithm, tc->d->salt, tc->d->salt_size,
				     &tc->hasher);
		if (err)
			return err;
	}
	return e2v_hasher_block(tc->hasher, block, len, out);
}

static int e2v_is_bad(const struct e2v_tree_check *tc, unsigned int lvl, uint64_t i)
{
	uint64_t t = tc->geo->level_start[lvl] + i;

	return tc->bad[t / 8] & (1 << (t % 8));
}

/*
 * A stored block is trusted when it and each of its ancestors hash to what
 * their parents keep, up to the root hash: the kernel verifies down from the
 * root, so that is where it would stop at a corruption, and what lies below
 * a bad block tells nothing more.
 */
static int e2v_trusted(const struct e2v_tree_check *tc, unsigned int lvl, uint64_t i)
{
	for (; lvl < tc->geo->num_levels; lvl++, i /= tc->hpb)
		if (e2v_is_bad(tc, lvl, i))
			return 0;
	return 1;
}

/* The stored block @t (index in the stored tree) of level @lvl. */
static errcode_t e2v_stored_block(struct e2v_tree_check *tc, unsigned int lvl, uint64_t t,
				  const uint8_t **out)
{
	struct e2v_window *w = &tc->win[lvl];
	uint64_t level_end = tc->geo->level_start[lvl] + tc->geo->level_blocks[lvl];
	errcode_t err;

	if (t < w->first || t >= w->first + w->n) {
		w->first = t;
		w->n = level_end - t < tc->window_blocks ? level_end - t : tc->window_blocks;
		err = e2v_ext4_file_read(tc->f, w->buf, w->n * tc->bs, tc->merkle_pos + t * tc->bs);
		if (err) {
			w->n = 0;
			return err;
		}
	}
	*out = w->buf + (t - w->first) * tc->bs;
	return 0;
}

static void e2v_note(struct e2v_mismatch *mm, uint64_t block, const uint8_t *stored,
		     const uint8_t *computed, unsigned int ds)
{
	if (mm->count++)
		return;
	mm->block = block;
	memcpy(mm->stored, stored, ds);
	memcpy(mm->computed, computed, ds);
}

/* The entry that the parent of stored block @i of level @lvl keeps for it. */
static errcode_t e2v_parent_entry(struct e2v_tree_check *tc, unsigned int lvl, uint64_t i,
				  const uint8_t **want)
{
	const struct e2verity_geometry *g = tc->geo;
	const uint8_t *parent;
	errcode_t err;

	if (lvl + 1 == g->num_levels) {
		*want = tc->d->root_hash;
		return 0;
	}
	/* bs / ds, at least 1024 / 64 (e2v_check_tree()): the callback's caller is not seen */
	E2V_ANALYZER_ASSUME(tc->hpb);
	err = e2v_stored_block(tc, lvl + 1, g->level_start[lvl + 1] + i / tc->hpb, &parent);
	if (err)
		return err;
	*want = parent + (i % tc->hpb) * tc->ds;
	return 0;
}

/* e2verity_compute() hands us each computed tree block; compare its stored twin. */
static errcode_t e2v_tree_sink(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct e2v_tree_check *tc = ctx;
	const struct e2verity_geometry *g = tc->geo;
	const uint8_t *computed = block, *stored, *want;
	uint8_t got[E2VERITY_MAX_DIGEST_SIZE];
	uint64_t t = offset / tc->bs, i;
	unsigned int lvl;
	errcode_t err;

	for (lvl = 0; lvl < g->num_levels; lvl++)
		if (t >= g->level_start[lvl] && t < g->level_start[lvl] + g->level_blocks[lvl])
			break;
	if (lvl == g->num_levels || size != tc->bs)
		return E2VERITY_ET_CORRUPT; /* cannot happen: the builder's geometry is ours */
	i = t - g->level_start[lvl];
	err = e2v_stored_block(tc, lvl, t, &stored);
	if (err)
		return err;

	/* level 0 holds the data blocks' hashes: what the kernel checks data reads against */
	if (lvl == 0 && memcmp(computed, stored, tc->bs) != 0) {
		uint64_t first = i * tc->hpb;
		uint64_t n = g->data_blocks - first < tc->hpb ? g->data_blocks - first : tc->hpb;
		struct e2v_leaf_state *ls = &tc->leaves[i];

		for (uint64_t j = 0; j < n; j++) {
			if (memcmp(computed + j * tc->ds, stored + j * tc->ds, tc->ds) == 0)
				continue;
			if (!ls->count++)
				ls->first = j;
			tc->data_bad++;
		}
	}

	/* the stored block itself must hash to what its parent keeps for it */
	err = e2v_tree_hash(tc, stored, tc->bs, got);
	if (!err)
		err = e2v_parent_entry(tc, lvl, i, &want);
	if (err)
		return err;
	if (memcmp(got, want, tc->ds) != 0) {
		tc->bad[t / 8] |= 1 << (t % 8);
		tc->level_bad[lvl]++;
	}
	return 0;
}

static errcode_t e2v_tree_read(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct e2v_tree_check *tc = ctx;
	const struct e2verity_check_opts *o = tc->c->opts;
	errcode_t err;

	err = e2v_ext4_file_read(tc->f, buf, count, offset);
	if (err)
		return err;
	tc->hashed += count;
	if (o->progress)
		o->progress(o->ctx, tc->c->progress_base + tc->hashed, tc->c->progress_total);
	return 0;
}

static errcode_t e2v_tree_seek(void *ctx, uint64_t offset, uint64_t *data)
{
	struct e2v_tree_check *tc = ctx;

	*data = e2v_ext4_next_data(tc->f, offset);
	return 0;
}

static errcode_t e2v_report_mismatch(struct e2v_tree_check *tc, unsigned int code,
				     const struct e2v_mismatch *mm, unsigned int lvl)
{
	struct e2verity_finding f = {
		.block = mm->block,
		.offset = mm->block * tc->bs,
		.count = mm->count,
		.level = lvl,
		.hash_size = tc->ds,
	};

	memcpy(f.stored, mm->stored, tc->ds);
	memcpy(f.computed, mm->computed, tc->ds);
	return e2v_report(tc->c, code, &f);
}

/* Every block mismatches: the hashes were made with other parameters (or salt). */
static int e2v_nothing_matches(const struct e2v_tree_check *tc)
{
	const struct e2verity_geometry *g = tc->geo;

	if (g->num_levels == 0 || tc->data_bad != g->data_blocks)
		return 0;
	for (unsigned int l = 0; l < g->num_levels; l++)
		if (tc->level_bad[l] != g->level_blocks[l])
			return 0;
	return 1;
}

/* The salted hash of data block @k, zero-padded past EOF as the builder pads it. */
static errcode_t e2v_hash_data_block(struct e2v_tree_check *tc, uint64_t k, uint8_t *out)
{
	uint64_t pos = k * tc->bs,
		 len = tc->d->data_size - pos < tc->bs ? tc->d->data_size - pos : tc->bs;
	uint8_t *buf = calloc(1, tc->bs);
	errcode_t err;

	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_ext4_file_read(tc->f, buf, len, pos);
	if (!err)
		err = e2v_tree_hash(tc, buf, tc->bs, out);
	free(buf);
	return err;
}

/* Data blocks that differ from their entry in a trusted level-0 block */
static errcode_t e2v_report_data(struct e2v_tree_check *tc)
{
	const struct e2verity_geometry *g = tc->geo;
	struct e2v_mismatch mm = { 0 };
	const uint8_t *stored;
	uint64_t first = 0;
	int found = 0;
	errcode_t err;

	for (uint64_t i = 0; i < g->level_blocks[0]; i++) {
		if (!tc->leaves[i].count || !e2v_trusted(tc, 0, i))
			continue;
		if (!found) {
			found = 1;
			first = i;
		}
		mm.count += tc->leaves[i].count;
	}
	if (!found)
		return 0;
	mm.block = first * tc->hpb + tc->leaves[first].first;
	err = e2v_stored_block(tc, 0, g->level_start[0] + first, &stored);
	if (err)
		return err;
	memcpy(mm.stored, stored + tc->leaves[first].first * tc->ds, tc->ds);
	err = e2v_hash_data_block(tc, mm.block, mm.computed);
	if (err)
		return err;
	return e2v_report_mismatch(tc, E2VERITY_PR_DATA_MISMATCH, &mm, 0);
}

/* Stored blocks of level @lvl that do not hash to their entry in a trusted parent */
static errcode_t e2v_report_level(struct e2v_tree_check *tc, unsigned int lvl)
{
	const struct e2verity_geometry *g = tc->geo;
	struct e2v_mismatch mm = { 0 };
	const uint8_t *stored, *want;
	errcode_t err;

	for (uint64_t i = 0; i < g->level_blocks[lvl]; i++) {
		if (!e2v_is_bad(tc, lvl, i) || !e2v_trusted(tc, lvl + 1, i / tc->hpb))
			continue;
		if (!mm.count++)
			mm.block = i;
	}
	if (!mm.count)
		return 0;
	err = e2v_stored_block(tc, lvl, g->level_start[lvl] + mm.block, &stored);
	if (!err)
		err = e2v_tree_hash(tc, stored, tc->bs, mm.computed);
	if (!err)
		err = e2v_parent_entry(tc, lvl, mm.block, &want);
	if (err)
		return err;
	memcpy(mm.stored, want, tc->ds);
	return e2v_report_mismatch(tc,
				   lvl + 1 == g->num_levels ? E2VERITY_PR_ROOT_MISMATCH
							    : E2VERITY_PR_TREE_MISMATCH,
				   &mm, lvl);
}

static errcode_t e2v_report_tree(struct e2v_tree_check *tc, const struct e2verity_result *res)
{
	const struct e2verity_geometry *g = tc->geo;
	struct e2v_mismatch mm = { 0 };
	errcode_t err = 0;

	if (e2v_nothing_matches(tc))
		return e2v_report(tc->c, E2VERITY_PR_TREE_PARAMS_MISMATCH,
				  &(struct e2verity_finding){ 0 });
	if (g->num_levels) {
		err = e2v_report_data(tc);
		for (unsigned int l = 0; !err && l < g->num_levels; l++)
			err = e2v_report_level(tc, l);
		return err;
	}
	/*
	 * No tree (one data block at most): the root hash is the data block's
	 * hash, and what differs is far likelier the block than the 32 bytes
	 * of the descriptor, which a signature would vouch for.
	 */
	if (memcmp(res->desc.root_hash, tc->d->root_hash, tc->ds) == 0)
		return 0;
	e2v_note(&mm, 0, tc->d->root_hash, res->desc.root_hash, tc->ds);
	return e2v_report_mismatch(tc, E2VERITY_PR_DATA_MISMATCH, &mm, 0);
}

errcode_t e2v_check_tree(struct e2v_check *c, struct e2v_ext4_file *f,
			 const struct e2v_verity_meta *m)
{
	const struct e2verity_descriptor *d = &m->desc;
	struct e2verity_params p = {
		.hash_alg = d->hash_algorithm,
		.block_size = 1u << d->log_blocksize,
		.salt = d->salt,
		.salt_size = d->salt_size,
		.threads = c->opts->threads,
	};
	struct e2v_tree_check tc = { .c = c, .f = f, .d = d };
	struct e2verity_geometry geo;
	struct e2verity_result res;
	unsigned int l;
	errcode_t err;

	err = e2verity_params_validate(&p);
	if (!err)
		err = e2verity_geometry(&p, d->data_size, &geo);
	if (err)
		return err;
	tc.geo = &geo;
	tc.bs = p.block_size;
	tc.ds = e2verity_hash_alg_by_num(d->hash_algorithm)->digest_size;
	tc.hpb = tc.bs / tc.ds;
	tc.merkle_pos = m->layout.merkle_pos;
	tc.window_blocks = E2V_TREE_WINDOW / tc.bs ? E2V_TREE_WINDOW / tc.bs : 1;
	tc.bad = calloc(geo.tree_blocks / 8 + 1, 1);
	tc.leaves = calloc(geo.num_levels ? geo.level_blocks[0] : 1, sizeof(*tc.leaves));
	if (!tc.bad || !tc.leaves) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	for (l = 0; l < geo.num_levels; l++) {
		tc.win[l].buf = malloc(tc.window_blocks * tc.bs);
		if (!tc.win[l].buf) {
			err = E2VERITY_ET_NO_MEMORY;
			goto out;
		}
	}
	if (e2v_ahead_matches(c->ahead, &p, d->data_size)) {
		err = e2v_ahead_replay(c->ahead, e2v_tree_sink, &tc, &res);
		if (!err && c->opts->progress)
			c->opts->progress(c->opts->ctx, c->progress_base + d->data_size,
					  c->progress_total);
	} else {
		/*
		 * A large file is read past the io manager, from the image
		 * itself, when nothing may hold writes back (a transaction)
		 */
		if (d->data_size >= E2V_DIRECT_MIN && !e2v_txn_io_is(f->fs)) {
			uint64_t base = 0;
			int fd = e2v_ahead_image_fd(c->batch, &base);

			e2v_ext4_file_read_direct(f, fd, base);
		}
		err = e2v_compute_keep(&p, d->data_size, e2v_tree_read, e2v_tree_seek, &tc,
				       e2v_tree_sink, &tc, &res, NULL);
	}
	if (err)
		goto out;
	c->stats->bytes_hashed += d->data_size;
	err = e2v_report_tree(&tc, &res);
out:
	for (l = 0; l < E2VERITY_MAX_LEVELS; l++)
		free(tc.win[l].buf);
	free(tc.bad);
	free(tc.leaves);
	e2v_hasher_free(tc.hasher);
	return err;
}
