/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hash.h - internal: what the hashing threads need of a hasher beyond the public calls */
#ifndef E2VERITY_HASH_H
#define E2VERITY_HASH_H

#include "private.h"

/* 1 if @a and @b hash alike (same algorithm and salt) */
int e2v_hasher_same(const struct e2verity_hasher *a, const struct e2verity_hasher *b);
unsigned int e2v_hasher_digest_size(const struct e2verity_hasher *h);
/*
 * e2verity_hasher_block() of two blocks of @len bytes, faster than two calls
 * where the two-lane SHA-256 can do them together.
 */
errcode_t e2v_hasher_pair(struct e2verity_hasher *h, const void *a, const void *b, size_t len,
			  uint8_t *out_a, uint8_t *out_b);

#endif /* E2VERITY_HASH_H */
