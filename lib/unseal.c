// SPDX-License-Identifier: GPL-2.0-or-later
/* unseal.c - remove a file's fs-verity metadata: free the blocks past EOF, clear the flag */
#include "config.h"

#include "seal_blocks.h"

errcode_t e2verity_unseal_inode(ext2_filsys fs, ext2_ino_t ino, blk64_t *freed)
{
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	blk64_t before;
	uint64_t size;
	errcode_t err;

	if (freed)
		*freed = 0;
	err = ext2fs_read_inode_full(fs, ino, in, sizeof(inode));
	if (err)
		return err;
	if (!(in->i_flags & EXT4_VERITY_FL))
		return E2VERITY_ET_NOT_SEALED;
	if (!LINUX_S_ISREG(in->i_mode))
		return E2VERITY_ET_NOT_REGULAR;
	/* punching frees blocks in the bitmap: it must be loaded to be written back */
	if (!fs->block_map) {
		err = ext2fs_read_block_bitmap(fs);
		if (err)
			return err;
	}
	size = EXT2_I_SIZE(in);
	before = ext2fs_get_stat_i_blocks(fs, in);
	/* unflagged while blocks past EOF go away: an orphan, trimmed back after a crash */
	in->i_flags &= ~(EXT4_VERITY_FL | EXT2_IMMUTABLE_FL);
	err = e2v_orphan_add(fs, ino, in);
	if (err)
		return err;
	/*
	 * Everything past the data block holding EOF is metadata (or, at most,
	 * zeros before the tree): without the verity flag e2fsck would call
	 * any of it a bad i_size.  Inline data has nothing past EOF.
	 */
	if (!(in->i_flags & EXT4_INLINE_DATA_FL)) {
		err = e2v_punch_past(fs, ino, in, e2v_div_round_up(size, fs->blocksize));
		if (err)
			return err;
		/* punch wrote its copy of the inode's first 128 bytes; take them all again */
		err = ext2fs_read_inode_full(fs, ino, in, sizeof(inode));
		if (err)
			return err;
	}
	/* the kernel never sets immutable; e2verity seal --immutable does, for sealing */
	err = e2v_orphan_del(fs, ino, in);
	if (!err)
		err = ext2fs_write_inode_full(fs, ino, in, sizeof(inode));
	/* the blocks released are no longer the owner's quota */
	if (!err)
		err = e2v_quota_charge_inode(
			fs, &inode, -(int64_t)(before - ext2fs_get_stat_i_blocks(fs, in)) * 512);
	if (err)
		return err;
	if (freed)
		*freed = (before - ext2fs_get_stat_i_blocks(fs, in)) / (fs->blocksize / 512);
	return 0;
}
