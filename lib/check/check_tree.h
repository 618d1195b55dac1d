/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_tree.h - internal: the Merkle tree pass of check */
#ifndef E2VERITY_CHECK_TREE_H
#define E2VERITY_CHECK_TREE_H

#include "report.h"

/*
 * Re-hashes the data and compares every stored Merkle tree block with the
 * hash its parent keeps for it, as the kernel does on reads.
 */
errcode_t e2v_check_tree(struct e2v_check *c, struct e2v_ext4_file *f,
			 const struct e2v_verity_meta *m);

#endif /* E2VERITY_CHECK_TREE_H */
