// SPDX-License-Identifier: GPL-2.0-or-later
/* unseal.c - remove a file's fs-verity metadata: free the blocks past EOF, clear the flag */
#include "config.h"

#include "ext4/extent_renew.h"
#include "ext4/inode_rules.h"
#include "ima_xattr.h"
#include "txn/orphan.h"
#include "ext4/past_eof.h"
#include "ext4/punch.h"
#include "ext4/xattr_rules.h"
#include "seal_blocks.h"
#include "seal_quota.h"
#include "txn/txn.h"

/*
 * Everything that can refuse the unseal, before anything is written.  On
 * success @f is open (unless the data is inline: nothing lies past EOF then).
 */
static errcode_t e2v_unseal_validate(ext2_filsys fs, ext2_ino_t ino,
				     const struct e2verity_owners *owners, struct e2v_ext4_file *f,
				     int *opened)
{
	struct ext2_inode inode;
	errcode_t err;

	*opened = 0;
	err = e2v_inode_in_use(fs, ino);
	if (err)
		return err;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (!(inode.i_flags & EXT4_VERITY_FL))
		return E2VERITY_ET_NOT_SEALED;
	if (!LINUX_S_ISREG(inode.i_mode))
		return E2VERITY_ET_NOT_REGULAR;
	if (inode.i_flags & EXT4_INLINE_DATA_FL)
		return 0;
	/* checks i_size and the extent tree, as the kernel does when it loads the inode */
	err = e2v_ext4_file_open_in(fs, e2v_owners_zone(owners), ino, f);
	if (err)
		return err;
	*opened = 1;
	/* punching through libext2fs must see the tree the kernel sees */
	err = e2v_ext4_file_writable(f);
	if (err)
		return err;
	/*
	 * Everything past the data block holding EOF is metadata (or, at most,
	 * zeros before the tree): without the verity flag e2fsck would call
	 * any of it a bad i_size.
	 */
	return e2v_check_past_eof(f, e2v_div_round_up(f->size, fs->blocksize), owners);
}

/*
 * Whether the attributes read as the unseal will read them (an unreadable
 * security.ima would be taken for none), and the fs-verity signature in
 * security.ima, if any, can be removed with the seal
 */
static errcode_t e2v_unseal_ima_check(ext2_filsys fs, const struct e2verity_owners *owners,
				      ext2_ino_t ino)
{
	uint64_t blocks;
	errcode_t err;

	err = e2v_inode_xattrs_sound(fs, ino, owners);
	if (err)
		return err;
	return e2v_ima_is_verity(fs, ino) ? e2v_ima_room(fs, owners, ino, 0, &blocks) : 0;
}

errcode_t e2verity_unseal_check(ext2_filsys fs, ext2_ino_t ino,
				const struct e2verity_owners *owners)
{
	struct e2v_ext4_file f;
	int opened;
	errcode_t err;

	err = e2v_unseal_validate(fs, ino, owners, &f, &opened);
	if (opened)
		e2v_ext4_file_close(&f);
	return err ? err : e2v_unseal_ima_check(fs, owners, ino);
}

errcode_t e2verity_unseal_inode(ext2_filsys fs, ext2_ino_t ino, blk64_t *freed)
{
	return e2verity_unseal_inode_with(fs, ino, NULL, freed);
}

errcode_t e2verity_unseal_inode_with(ext2_filsys fs, ext2_ino_t ino,
				     const struct e2verity_owners *owners, blk64_t *freed)
{
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	struct e2verity_owners *own = NULL;
	struct e2v_ext4_file f;
	blk64_t before, first;
	int opened = 0, punch;
	errcode_t err;

	if (freed)
		*freed = 0;
	/* one scan proves the blocks past EOF and the attribute block alike */
	if (!owners) {
		err = e2verity_owners_scan(fs, &own);
		if (err)
			return err;
		owners = own;
	}
	err = e2v_unseal_validate(fs, ino, owners, &f, &opened);
	if (!err)
		err = e2v_unseal_ima_check(fs, owners, ino);
	if (err)
		goto out;
	err = ext2fs_read_inode_full(fs, ino, in, sizeof(inode));
	if (err)
		goto out;
	first = e2v_div_round_up(EXT2_I_SIZE(in), fs->blocksize);
	punch = opened && e2v_ext4_last_extent(&f) &&
		e2v_ext4_last_extent(&f)->lblk + e2v_ext4_last_extent(&f)->len > first;
	before = ext2fs_get_stat_i_blocks(fs, in);
	/*
	 * The flag goes first: should freeing fail, the file is left unsealed
	 * with blocks past EOF (e2fsck trims them), never sealed without its
	 * metadata.  The kernel never sets immutable; seal --immutable does.
	 */
	in->i_flags &= ~(EXT4_VERITY_FL | EXT2_IMMUTABLE_FL);
	if (!punch) {
		err = ext2fs_write_inode_full(fs, ino, in, sizeof(inode));
		goto out;
	}
	if (e2v_txn_unjournaled(fs)) {
		err = e2v_extent_tree_renew(fs, ino, in);
		if (err)
			goto out;
	}
	/* an orphan while blocks past EOF go: recovery trims them, never grows i_size */
	err = e2v_orphan_add(fs, ino, in);
	if (err)
		goto out;
	err = e2v_punch_past(fs, ino, in, first);
	if (err)
		goto out;
	/* punch wrote its copy of the inode's first 128 bytes; take them all again */
	err = ext2fs_read_inode_full(fs, ino, in, sizeof(inode));
	if (!err)
		err = e2v_orphan_del(fs, ino, in);
	if (!err)
		err = ext2fs_write_inode_full(fs, ino, in, sizeof(inode));
	/* the blocks released are no longer the owner's quota */
	if (!err)
		err = e2v_quota_charge_inode(
			fs, &inode, -(int64_t)(before - ext2fs_get_stat_i_blocks(fs, in)) * 512);
	if (!err && freed)
		*freed = (before - ext2fs_get_stat_i_blocks(fs, in)) / (fs->blocksize / 512);
out:
	/* an IMA fs-verity signature would sign what the file no longer is: it goes too */
	if (!err && e2v_ima_is_verity(fs, ino))
		err = e2v_ima_store(fs, owners, ino, NULL, 0);
	if (opened)
		e2v_ext4_file_close(&f);
	e2verity_owners_free(own);
	return err;
}
