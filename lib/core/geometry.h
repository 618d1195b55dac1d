/* SPDX-License-Identifier: GPL-2.0-or-later */
/* geometry.h - internal: the range of Merkle tree block sizes, written once */
#ifndef E2VERITY_GEOMETRY_H
#define E2VERITY_GEOMETRY_H

#include "core.h"

/* log2 of E2VERITY_MIN_BLOCK_SIZE and E2VERITY_MAX_BLOCK_SIZE: the kernel's accepted range */
#define E2V_MIN_LOG_BLOCKSIZE 10
#define E2V_MAX_LOG_BLOCKSIZE 16

_Static_assert((1u << E2V_MIN_LOG_BLOCKSIZE) == E2VERITY_MIN_BLOCK_SIZE, "min block size");
_Static_assert((1u << E2V_MAX_LOG_BLOCKSIZE) == E2VERITY_MAX_BLOCK_SIZE, "max block size");

/* 1 if a descriptor's log_blocksize names a Merkle block size the kernel accepts */
static inline int e2v_log_blocksize_valid(unsigned int log)
{
	return log >= E2V_MIN_LOG_BLOCKSIZE && log <= E2V_MAX_LOG_BLOCKSIZE;
}

/*
 * struct e2verity_geometry with room for a host digest's levels: the public
 * one holds E2VERITY_MAX_LEVELS, but 64-byte blocks of a few MiB make 16.
 */
struct e2v_geo {
	unsigned int num_levels;
	uint64_t level_blocks[E2VERITY_HOST_MAX_LEVELS];
	uint64_t level_start[E2VERITY_HOST_MAX_LEVELS];
	uint64_t data_blocks;
	uint64_t tree_blocks;
	uint64_t tree_size;
};

/*
 * The shape of the tree of validated @p over @data_size bytes: at most
 * E2VERITY_MAX_LEVELS levels, E2VERITY_HOST_MAX_LEVELS with
 * E2VERITY_PARAMS_HOST_DIGEST (E2VERITY_ET_TOO_MANY_LEVELS beyond).
 */
errcode_t e2v_geo_compute(const struct e2verity_params *p, uint64_t data_size, struct e2v_geo *g);

/* @g as the public geometry; levels it cannot hold are left out (struct e2verity_result) */
void e2v_geo_export(const struct e2v_geo *g, struct e2verity_geometry *out);

#endif /* E2VERITY_GEOMETRY_H */
