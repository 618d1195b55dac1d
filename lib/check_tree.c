// SPDX-License-Identifier: GPL-2.0-or-later
/* check_tree.c - re-hash a sealed file and compare each stored Merkle tree block, kernel-style */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_private.h"

/* Stored tree blocks are read this many bytes at a time per level. */
#define E2V_TREE_WINDOW (256u << 10)

/* A run of stored tree blocks of one level, read ahead in one go. */
struct e2v_window {
	uint64_t first; /* index in the stored tree of buf's first block */
	uint64_t n;	/* blocks in buf */
	uint8_t *buf;
};

/* The first mismatch seen in one place, and how many there were */
struct e2v_mismatch {
	uint64_t count;
	uint64_t block;
	uint8_t stored[E2VERITY_MAX_DIGEST_SIZE];
	uint8_t computed[E2VERITY_MAX_DIGEST_SIZE];
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
	/* data blocks against level 0 */
	struct e2v_mismatch data;
	/* stored tree blocks against their parent; the top level's parent is the root hash */
	struct e2v_mismatch level[E2VERITY_MAX_LEVELS];
	uint64_t hashed;
};

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

/* e2verity_compute() hands us each computed tree block; compare its stored twin. */
static errcode_t e2v_tree_sink(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct e2v_tree_check *tc = ctx;
	const struct e2verity_geometry *g = tc->geo;
	const uint8_t *computed = block, *stored, *parent, *want;
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

		for (uint64_t j = 0; j < n; j++) {
			const uint8_t *c = computed + j * tc->ds, *s = stored + j * tc->ds;

			if (memcmp(c, s, tc->ds) != 0)
				e2v_note(&tc->data, first + j, s, c, tc->ds);
		}
	}

	/* the stored block itself must hash to what its parent keeps for it */
	err = e2verity_hasher_block(tc->hasher, stored, tc->bs, got);
	if (err)
		return err;
	if (lvl + 1 < g->num_levels) {
		err = e2v_stored_block(tc, lvl + 1, g->level_start[lvl + 1] + i / tc->hpb, &parent);
		if (err)
			return err;
		want = parent + (i % tc->hpb) * tc->ds;
	} else {
		want = tc->d->root_hash;
	}
	if (memcmp(got, want, tc->ds) != 0)
		e2v_note(&tc->level[lvl], i, want, got, tc->ds);
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

	if (g->num_levels == 0 || tc->data.count != g->data_blocks)
		return 0;
	for (unsigned int l = 0; l < g->num_levels; l++)
		if (tc->level[l].count != g->level_blocks[l])
			return 0;
	return 1;
}

static errcode_t e2v_report_tree(struct e2v_tree_check *tc, const struct e2verity_result *res)
{
	const struct e2verity_geometry *g = tc->geo;
	unsigned int top = g->num_levels ? g->num_levels - 1 : 0;
	errcode_t err = 0;

	if (e2v_nothing_matches(tc))
		return e2v_report(tc->c, E2VERITY_PR_TREE_PARAMS_MISMATCH,
				  &(struct e2verity_finding){ 0 });
	if (tc->data.count)
		err = e2v_report_mismatch(tc, E2VERITY_PR_DATA_MISMATCH, &tc->data, 0);
	for (unsigned int l = 0; !err && l < top; l++)
		if (tc->level[l].count)
			err = e2v_report_mismatch(tc, E2VERITY_PR_TREE_MISMATCH, &tc->level[l], l);
	if (err)
		return err;
	if (g->num_levels && tc->level[top].count)
		return e2v_report_mismatch(tc, E2VERITY_PR_ROOT_MISMATCH, &tc->level[top], top);
	/*
	 * No tree (one data block at most): the root is the data block's hash.
	 * With a tree, a root that differs while every block matched its parent
	 * cannot happen; report it all the same rather than trust that.
	 */
	if (memcmp(res->desc.root_hash, tc->d->root_hash, tc->ds) != 0 &&
	    (g->num_levels == 0 || (!tc->data.count && !tc->level[top].count))) {
		struct e2v_mismatch mm = { 0 };

		e2v_note(&mm, 0, tc->d->root_hash, res->desc.root_hash, tc->ds);
		return e2v_report_mismatch(tc, E2VERITY_PR_ROOT_MISMATCH, &mm, top);
	}
	return 0;
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
	err = e2verity_hasher_new(p.hash_alg, p.salt, p.salt_size, &tc.hasher);
	if (err)
		return err;
	for (l = 0; l < geo.num_levels; l++) {
		tc.win[l].buf = malloc(tc.window_blocks * tc.bs);
		if (!tc.win[l].buf) {
			err = E2VERITY_ET_NO_MEMORY;
			goto out;
		}
	}
	err = e2verity_compute(&p, d->data_size, e2v_tree_read, &tc, e2v_tree_sink, &tc, &res);
	if (err)
		goto out;
	c->stats->bytes_hashed += d->data_size;
	err = e2v_report_tree(&tc, &res);
out:
	for (l = 0; l < E2VERITY_MAX_LEVELS; l++)
		free(tc.win[l].buf);
	e2verity_hasher_free(tc.hasher);
	return err;
}
