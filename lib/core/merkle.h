/* SPDX-License-Identifier: GPL-2.0-or-later */
/* merkle.h - internal: the tree builder with buffers kept from one file to the next */
#ifndef E2VERITY_MERKLE_H
#define E2VERITY_MERKLE_H

#include "core.h"

/* buffers that a thread hashing many files keeps from one file to the next */
struct e2v_scratch {
	uint8_t *chunk, *digests;
	size_t size;	     /* bytes of chunk; 0 before the first use */
	size_t digests_size; /* bytes of digests */
};

/* e2verity_compute_sparse() with the data buffers of @keep (NULL: its own) */
errcode_t e2v_compute_keep(const struct e2verity_params *params, uint64_t data_size,
			   e2verity_read_fn read, e2verity_seek_data_fn seek, void *read_ctx,
			   e2verity_tree_fn tree, void *tree_ctx, struct e2verity_result *res,
			   struct e2v_scratch *keep);
void e2v_scratch_free(struct e2v_scratch *keep);

/* e2v_result_finish() but for the digest: for a caller that hashes many descriptors at once */
void e2v_result_describe(const struct e2verity_params *p, uint64_t data_size, const uint8_t *root,
			 struct e2verity_result *res);

/*
 * The descriptor and digest of @res for @data_size bytes of root hash @root
 * (validated @p; @res zeroed, its geometry set): as e2v_compute_keep() ends,
 * for a caller that hashed a one-block file's block itself
 */
errcode_t e2v_result_finish(const struct e2verity_params *p, uint64_t data_size,
			    const uint8_t *root, struct e2verity_result *res);

#endif /* E2VERITY_MERKLE_H */
