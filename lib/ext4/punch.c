// SPDX-License-Identifier: GPL-2.0-or-later
/* punch.c - internal: free an inode's blocks past a logical block, the filesystem's last one too */
#include "config.h"

#include "punch.h"

/* The logical block, at or after @first, that maps the filesystem's last block. */
static errcode_t e2v_find_fs_end(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
				 blk64_t first, blk64_t *lblk, int *found)
{
	const blk64_t last = ext2fs_blocks_count(fs->super) - 1;
	ext2_extent_handle_t h;
	struct ext2fs_extent ext;
	int op = EXT2_EXTENT_ROOT;
	errcode_t err;

	*found = 0;
	err = ext2fs_extent_open2(fs, ino, inode, &h);
	if (err)
		return err;
	for (;; op = EXT2_EXTENT_NEXT) {
		err = ext2fs_extent_get(h, op, &ext);
		if (err == EXT2_ET_EXTENT_NO_NEXT) {
			err = 0;
			break;
		}
		if (err)
			break;
		if (!(ext.e_flags & EXT2_EXTENT_FLAGS_LEAF) || !ext.e_len)
			continue;
		if (ext.e_pblk <= last && last - ext.e_pblk < ext.e_len) {
			*lblk = ext.e_lblk + (last - ext.e_pblk);
			*found = *lblk >= first;
			break;
		}
	}
	ext2fs_extent_free(h);
	return err;
}

/**
 * e2v_punch_past() - free every block of an extent-mapped inode from @first on
 * @fs: filesystem, block bitmap loaded
 * @ino: inode number
 * @inode: its inode, updated and written
 * @first: first logical block to free
 *
 * ext2fs_punch(@first, ~0) but for one case: libext2fs before 1.47.3 refuses
 * to free a run of blocks that ends at the filesystem's last block
 * (EXT2_ET_BAD_BLOCK_NUM, an off-by-one fixed by e2fsprogs commit 509da989),
 * and only after it has taken the extent out of the tree, leaving the tree,
 * i_blocks and the bitmap in disagreement.  That block is unmapped and freed
 * here, and the rest is punched after it.
 *
 * Return: 0 or a libext2fs error code.
 */
errcode_t e2v_punch_past(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode, blk64_t first)
{
	ext2_extent_handle_t h;
	blk64_t lblk = 0;
	int found;
	errcode_t err;

	err = e2v_find_fs_end(fs, ino, inode, first, &lblk, &found);
	if (err || !found)
		return err ? err : ext2fs_punch(fs, ino, inode, NULL, first, ~0ULL);
	/* lblk ends its extent (nothing lies past the last block): later blocks are elsewhere */
	err = ext2fs_punch(fs, ino, inode, NULL, lblk + 1, ~0ULL);
	if (err)
		return err;
	err = ext2fs_extent_open2(fs, ino, inode, &h);
	if (err)
		return err;
	/* shortens (or deletes) the extent; writes the inode when the change reaches it */
	err = ext2fs_extent_set_bmap(h, lblk, 0, 0);
	ext2fs_extent_free(h);
	if (err)
		return err;
	ext2fs_block_alloc_stats2(fs, ext2fs_blocks_count(fs->super) - 1, -1);
	err = ext2fs_iblk_sub_blocks(fs, inode, 1);
	if (!err)
		err = ext2fs_write_inode(fs, ino, inode);
	if (err || lblk == first)
		return err;
	return ext2fs_punch(fs, ino, inode, NULL, first, ~0ULL);
}
