/* SPDX-License-Identifier: GPL-2.0-or-later */
/* merkle.h - internal: the tree builder with buffers kept from one file to the next */
#ifndef E2VERITY_MERKLE_H
#define E2VERITY_MERKLE_H

#include "core.h"

/* buffers that a thread hashing many files keeps from one file to the next */
struct e2v_scratch {
	uint8_t *chunk, *digests;
	size_t size; /* bytes of chunk; 0 before the first use */
};

/* e2verity_compute_sparse() with the data buffers of @keep (NULL: its own) */
errcode_t e2v_compute_keep(const struct e2verity_params *params, uint64_t data_size,
			   e2verity_read_fn read, e2verity_seek_data_fn seek, void *read_ctx,
			   e2verity_tree_fn tree, void *tree_ctx, struct e2verity_result *res,
			   struct e2v_scratch *keep);
void e2v_scratch_free(struct e2v_scratch *keep);

/*
 * The @count bytes of data at @offset in place, or NULL: then they are read.
 * Hashing from the page cache in place saves the copy a read makes.  @count
 * is whole blocks, except at the end of the data: then the bytes after it to
 * the end of its block must be in place too, and zeros (else NULL).  The
 * bytes must stay in place until the call after next: the builder hashes
 * one chunk while it asks for the next, never more.
 */
typedef const void *(*e2v_map_fn)(void *ctx, size_t count, uint64_t offset);

/* e2v_compute_keep() that takes the data in place through @map where it can */
errcode_t e2v_compute_mapped(const struct e2verity_params *params, uint64_t data_size,
			     e2verity_read_fn read, e2verity_seek_data_fn seek, e2v_map_fn map,
			     void *read_ctx, e2verity_tree_fn tree, void *tree_ctx,
			     struct e2verity_result *res, struct e2v_scratch *keep);

/* e2v_result_finish() but for the digest: for a caller that hashes many descriptors at once */
void e2v_result_describe(const struct e2verity_params *p, uint64_t data_size,
			 const uint8_t *root, struct e2verity_result *res);

/*
 * The descriptor and digest of @res for @data_size bytes of root hash @root
 * (validated @p; @res zeroed, its geometry set): as e2v_compute_mapped() ends,
 * for a caller that hashed a one-block file's block itself
 */
errcode_t e2v_result_finish(const struct e2verity_params *p, uint64_t data_size,
			    const uint8_t *root, struct e2verity_result *res);

#endif /* E2VERITY_MERKLE_H */
