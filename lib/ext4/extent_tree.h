/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extent_tree.h - internal: read an inode's extent tree, judged as the kernel judges it */
#ifndef E2VERITY_EXTENT_TREE_H
#define E2VERITY_EXTENT_TREE_H

#include "private.h"

struct e2v_extent {
	blk64_t lblk;
	blk64_t pblk;
	uint32_t len;
	int uninit; /* unwritten: reads as zeros */
};

/* The extent of sorted, disjoint @v[@n] that holds @lblk, else the first one after it; NULL: none */
const struct e2v_extent *e2v_extent_find(const struct e2v_extent *v, size_t n, blk64_t lblk);

/* One thing wrong with an extent tree, with the numbers of its problem's message */
struct e2v_extent_fault {
	unsigned int problem; /* E2VERITY_PR_EXTENT_*, 0 for none */
	errcode_t err;	      /* the matching E2VERITY_ET_EXTENT_* */
	blk64_t node;	      /* block of the tree node; 0 for the root, in the inode */
	uint64_t value, expected, count;
};

/* An extent tree as the kernel's lookups see it */
struct e2v_extent_tree {
	/* the leaf extents in logical order, cut to the range their index entries give them */
	struct e2v_extent *extents;
	size_t nr;
	blk64_t node_blocks; /* index and leaf nodes outside the inode */
	/* the rightmost leaf is empty: the kernel finds no last extent */
	int last_leaf_empty;
	struct e2v_extent_fault fault; /* the first thing the kernel refuses */
	struct e2v_extent_fault warn;  /* entries it never reads (EXTENT_PAST_INDEX) */
};

/* e2v_extent_tree_read() flags */
#define E2V_TREE_NO_ZONE 0x1 /* skip the system zone test (for the journal inode itself) */

struct e2v_system_zone;

/*
 * Reads the extent tree of @inode (number @ino) and checks every node the
 * kernel can reach as __ext4_ext_check() and ext4_valid_extent_entries()
 * do, and every block it names as ext4_inode_block_valid() does, against
 * @zone (or, if NULL, the system zone made for this call).  On a refusal
 * @t->fault says which and where and the extents are freed.
 *
 * Return: 0, @t->fault.err (an E2VERITY_ET_EXTENT_* code), or an I/O or
 * memory error.
 */
errcode_t e2v_extent_tree_read(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *inode,
			       int flags, const struct e2v_system_zone *zone,
			       struct e2v_extent_tree *t);
void e2v_extent_tree_free(struct e2v_extent_tree *t);

#endif /* E2VERITY_EXTENT_TREE_H */
