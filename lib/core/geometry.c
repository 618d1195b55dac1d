// SPDX-License-Identifier: GPL-2.0-or-later
/* geometry.c - Merkle tree parameters and the shape of the tree for a data size */
#include "config.h"

#include <string.h>

#include "geometry.h"
#include "workers.h"

errcode_t e2verity_params_validate(struct e2verity_params *p)
{
	if (p->hash_alg == 0)
		p->hash_alg = E2VERITY_HASH_SHA256;
	if (p->block_size == 0)
		p->block_size = E2VERITY_DEFAULT_BLOCK_SIZE;
	if (!e2verity_hash_alg_by_num(p->hash_alg))
		return E2VERITY_ET_BAD_HASH_ALG;
	if (!e2v_is_power_of_2(p->block_size) || !e2v_log_blocksize_valid(e2v_ilog2(p->block_size)))
		return E2VERITY_ET_BAD_BLOCK_SIZE;
	if (p->salt_size > E2VERITY_MAX_SALT_SIZE)
		return E2VERITY_ET_SALT_TOO_LONG;
	if (p->threads.count > E2V_MAX_THREADS)
		p->threads.count = E2V_MAX_THREADS;
	if (!e2v_all_zero(p->reserved, sizeof(p->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	return 0;
}

errcode_t e2verity_geometry(const struct e2verity_params *p, uint64_t data_size,
			    struct e2verity_geometry *g)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(p->hash_alg);
	uint64_t hashes_per_block, n, start = 0;

	memset(g, 0, sizeof(*g));
	if (!alg)
		return E2VERITY_ET_BAD_HASH_ALG;
	hashes_per_block = p->block_size / alg->digest_size;
	g->data_blocks = e2v_div_round_up(data_size, p->block_size);
	for (n = g->data_blocks; n > 1;) {
		if (g->num_levels == E2VERITY_MAX_LEVELS)
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
