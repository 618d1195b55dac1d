/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workers.h - internal: hash the data blocks of one chunk on several threads */
#ifndef E2VERITY_WORKERS_H
#define E2VERITY_WORKERS_H

#include "private.h"

/*
 * Hashes @nblocks blocks of @block_size bytes at @data into @digests, with
 * the salt and algorithm of @tmpl, on at most @active threads of @w (the
 * calling thread is one of them).  @w may be NULL: then the caller hashes
 * alone.  All-zero blocks reuse one hash.
 */
errcode_t e2v_workers_hash(struct e2verity_workers *w, unsigned int active,
			   struct e2verity_hasher *tmpl, const uint8_t *data, size_t nblocks,
			   unsigned int block_size, uint8_t *digests);

/* threads of @w, counting the caller's */
unsigned int e2v_workers_count(const struct e2verity_workers *w);

/* 1 if @a and @b hash alike (same algorithm and salt) */
int e2v_hasher_same(const struct e2verity_hasher *a, const struct e2verity_hasher *b);
unsigned int e2v_hasher_digest_size(const struct e2verity_hasher *h);
/*
 * e2verity_hasher_block() of two blocks of @len bytes, faster than two calls
 * where the two-lane SHA-256 can do them together.
 */
errcode_t e2v_hasher_pair(struct e2verity_hasher *h, const void *a, const void *b, size_t len,
			  uint8_t *out_a, uint8_t *out_b);

#endif /* E2VERITY_WORKERS_H */
