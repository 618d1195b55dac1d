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

#endif /* E2VERITY_GEOMETRY_H */
