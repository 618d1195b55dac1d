// SPDX-License-Identifier: GPL-2.0-or-later
/* extent_renew.c - internal: give an inode's extent tree fresh node blocks before it changes */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "extent_renew.h"

/* The leaf extents of @h in order, and the node blocks (index targets) of the tree. */
static errcode_t e2v_tree_collect(ext2_extent_handle_t h, struct ext2fs_extent **leaves,
				  size_t *nleaves, blk64_t **nodes, size_t *nnodes)
{
	size_t capl = 0, capn = 0;
	struct ext2fs_extent ex;
	int op = EXT2_EXTENT_ROOT;
	errcode_t err;

	*leaves = NULL;
	*nodes = NULL;
	*nleaves = *nnodes = 0;
	for (;; op = EXT2_EXTENT_NEXT) {
		err = ext2fs_extent_get(h, op, &ex);
		if (err == EXT2_ET_EXTENT_NO_NEXT)
			return 0;
		if (err)
			return err;
		/* the iteration comes back up through each index entry: count it once */
		if (ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			if (*nnodes == capn) {
				blk64_t *v;

				capn = capn ? 2 * capn : 16;
				v = realloc(*nodes, capn * sizeof(*v));
				if (!v)
					return E2VERITY_ET_NO_MEMORY;
				*nodes = v;
			}
			(*nodes)[(*nnodes)++] = ex.e_pblk;
			continue;
		}
		if (!ex.e_len)
			continue;
		if (*nleaves == capl) {
			struct ext2fs_extent *v;

			capl = capl ? 2 * capl : 64;
			v = realloc(*leaves, capl * sizeof(*v));
			if (!v)
				return E2VERITY_ET_NO_MEMORY;
			*leaves = v;
		}
		(*leaves)[(*nleaves)++] = ex;
	}
}

/**
 * e2v_extent_tree_renew() - rebuild an inode's extent tree in freshly allocated nodes
 * @fs: filesystem, block bitmap loaded
 * @ino: inode number
 * @in: its inode, updated (i_block, i_blocks) and written
 *
 * Without a journal, the inode is the one structure whose write is atomic:
 * a change to an index or leaf block that the inode on disk already points to
 * would be seen half made after a crash (blocks past EOF without the verity
 * flag, which e2fsck -p "repairs" by growing i_size over them).  So the tree
 * is rebuilt, as e2fsck's rebuild_extent_tree() does, into blocks allocated
 * now, which nothing on disk references; the old nodes are freed (the
 * transaction keeps them in use until the new inode is on disk).  The
 * changes that follow then touch only the new nodes, and the inode's write
 * switches from the old tree to the new one at once.  A tree that lives in the
 * inode alone has nothing to renew.
 *
 * Return: 0 or a libext2fs error code.
 */
errcode_t e2v_extent_tree_renew(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in)
{
	struct ext2_inode_large copy;
	struct ext2_inode *ci = EXT2_INODE(&copy);
	ext2_extent_handle_t h = NULL;
	struct ext2fs_extent *leaves = NULL;
	blk64_t *nodes = NULL;
	size_t nleaves, nnodes;
	errcode_t err;

	if (!(in->i_flags & EXT4_EXTENTS_FL))
		return 0;
	err = ext2fs_extent_open2(fs, ino, in, &h);
	if (err)
		return err;
	err = e2v_tree_collect(h, &leaves, &nleaves, &nodes, &nnodes);
	ext2fs_extent_free(h);
	h = NULL;
	if (err || !nnodes)
		goto out;
	memset(&copy, 0, sizeof(copy));
	*ci = *in;
	memset(ci->i_block, 0, sizeof(ci->i_block));
	for (size_t i = 0; i < nnodes; i++)
		ext2fs_block_alloc_stats2(fs, nodes[i], -1);
	err = ext2fs_iblk_sub_blocks(fs, ci, nnodes);
	if (err)
		goto out;
	/* on an all-zero i_block this starts an empty tree in the inode */
	err = ext2fs_extent_open2(fs, ino, ci, &h);
	if (err)
		goto out;
	for (size_t i = 0; i < nleaves && !err; i++) {
		leaves[i].e_flags &= EXT2_EXTENT_FLAGS_UNINIT;
		err = ext2fs_extent_insert(h, EXT2_EXTENT_INSERT_AFTER, &leaves[i]);
		if (!err)
			err = ext2fs_extent_fix_parents(h);
	}
	if (err)
		goto out;
	/* the handle kept the root and i_blocks in @copy, which it was given */
	*in = *ci;
	err = ext2fs_write_inode(fs, ino, in);
out:
	if (h)
		ext2fs_extent_free(h);
	free(leaves);
	free(nodes);
	return err;
}
