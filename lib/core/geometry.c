// SPDX-License-Identifier: GPL-2.0-or-later
/* geometry.c - Merkle tree parameters and the shape of the tree for a data size */
#include "config.h"

#include <string.h>

#include "geometry.h"
#include "workers.h"

errcode_t e2verity_params_validate(struct e2verity_params *p)
{
	const struct e2verity_hash_alg *alg;

	if (p->hash_alg == 0)
		p->hash_alg = E2VERITY_HASH_SHA256;
	if (p->block_size == 0)
		p->block_size = E2VERITY_DEFAULT_BLOCK_SIZE;
	alg = e2verity_hash_alg_by_num(p->hash_alg);
	if (!alg)
		return E2VERITY_ET_BAD_HASH_ALG;
	if (p->flags & ~(uint64_t)E2VERITY_PARAMS_HOST_DIGEST)
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	if (!e2v_is_power_of_2(p->block_size))
		return E2VERITY_ET_BAD_BLOCK_SIZE;
	if (p->flags & E2VERITY_PARAMS_HOST_DIGEST) {
		/* libfsverity's bounds: a tree block must hold two hashes, or no level shrinks */
		if (p->block_size < 2 * alg->digest_size ||
		    p->block_size > E2VERITY_HOST_MAX_BLOCK_SIZE)
			return E2VERITY_ET_BAD_BLOCK_SIZE;
	} else if (!e2v_log_blocksize_valid(e2v_ilog2(p->block_size))) {
		return E2VERITY_ET_BAD_BLOCK_SIZE;
	}
	if (p->salt_size > E2VERITY_MAX_SALT_SIZE)
		return E2VERITY_ET_SALT_TOO_LONG;
	if (p->threads.count > E2V_MAX_THREADS)
		p->threads.count = E2V_MAX_THREADS;
	if (!e2v_all_zero(p->reserved, sizeof(p->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	return 0;
}

errcode_t e2v_geo_compute(const struct e2verity_params *p, uint64_t data_size, struct e2v_geo *g)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(p->hash_alg);
	const unsigned int max_levels = p->flags & E2VERITY_PARAMS_HOST_DIGEST
						? E2VERITY_HOST_MAX_LEVELS
						: E2VERITY_MAX_LEVELS;
	uint64_t hashes_per_block, n, start = 0;

	memset(g, 0, sizeof(*g));
	if (!alg)
		return E2VERITY_ET_BAD_HASH_ALG;
	hashes_per_block = p->block_size / alg->digest_size;
	g->data_blocks = e2v_div_round_up(data_size, p->block_size);
	for (n = g->data_blocks; n > 1;) {
		if (g->num_levels == max_levels)
			return E2VERITY_ET_TOO_MANY_LEVELS;
		n = e2v_div_round_up(n, hashes_per_block);
		g->level_blocks[g->num_levels++] = n;
	}
	/* The root level is stored first, the leaf level last. */
	for (int i = g->num_levels - 1; i >= 0; i--) {
		g->level_start[i] = start;
		start += g->level_blocks[i];
	}
	g->tree_blocks = start;
	g->tree_size = start * p->block_size;
	return 0;
}

void e2v_geo_export(const struct e2v_geo *g, struct e2verity_geometry *out)
{
	memset(out, 0, sizeof(*out));
	if (g->num_levels <= E2VERITY_MAX_LEVELS) {
		out->num_levels = g->num_levels;
		memcpy(out->level_blocks, g->level_blocks, sizeof(out->level_blocks));
		memcpy(out->level_start, g->level_start, sizeof(out->level_start));
	}
	out->data_blocks = g->data_blocks;
	out->tree_blocks = g->tree_blocks;
	out->tree_size = g->tree_size;
}

errcode_t e2verity_geometry(const struct e2verity_params *p, uint64_t data_size,
			    struct e2verity_geometry *g)
{
	struct e2v_geo geo;
	errcode_t err = e2v_geo_compute(p, data_size, &geo);

	memset(g, 0, sizeof(*g));
	if (!err && geo.num_levels > E2VERITY_MAX_LEVELS)
		err = E2VERITY_ET_TOO_MANY_LEVELS;
	if (!err)
		e2v_geo_export(&geo, g);
	return err;
}
