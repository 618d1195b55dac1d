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

/* buffers that a thread hashing many files keeps from one file to the next */
struct e2v_scratch {
	uint8_t *chunk, *digests;
	size_t size; /* bytes of chunk; 0 before the first use */
};

/* e2verity_compute() with the data buffers of @keep (NULL: its own) */
errcode_t e2v_compute_keep(const struct e2verity_params *params, uint64_t data_size,
			   e2verity_read_fn read, void *read_ctx, e2verity_tree_fn tree,
			   void *tree_ctx, struct e2verity_result *res, struct e2v_scratch *keep);
void e2v_scratch_free(struct e2v_scratch *keep);

#endif /* E2VERITY_WORKERS_H */
