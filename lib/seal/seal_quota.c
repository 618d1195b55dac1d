// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_quota.c - internal: charge the blocks a seal adds to the owner's quota (vfsv1 files) */
#include "config.h"

#include <string.h>

#include "seal_quota.h"

/*
 * The quota files of the quota feature are in the kernel's vfsv1 format
 * (fs/quota/quota_tree.c): a header, then 1 KiB blocks; block 1 is the root
 * of a four-level radix tree indexed by the id's bytes, most significant
 * first, whose leaves are data blocks of 72-byte entries after a 16-byte
 * header.  The entry keeps the space used in bytes.
 */
#define QT_BLOCK 1024
#define QT_TREE_ROOT 1
#define QT_DEPTH 4
#define QT_HEADER 16
#define QT_ENTRY 72
#define QT_ENTRY_ID 0
#define QT_ENTRY_CURSPACE 48
#define QT_FILE_VERSION 1

static const uint32_t e2v_quota_magic[] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };

static errcode_t e2v_qblock_io(ext2_file_t f, uint32_t blk, uint8_t *buf, int write)
{
	unsigned int got = 0;
	errcode_t err;

	err = ext2fs_file_llseek(f, (uint64_t)blk * QT_BLOCK, EXT2_SEEK_SET, NULL);
	if (err)
		return err;
	err = write ? ext2fs_file_write(f, buf, QT_BLOCK, &got)
		    : ext2fs_file_read(f, buf, QT_BLOCK, &got);
	if (!err && got != QT_BLOCK)
		err = E2VERITY_ET_SHORT_READ;
	return err;
}

/*
 * Adds @delta bytes to @id's space in quota file @qino of @type.  A file in
 * another format, or without an entry for @id, is left alone: e2fsck
 * rebuilds quota files, and there is nothing sound to add to.
 */
static errcode_t e2v_quota_charge(ext2_filsys fs, ext2_ino_t qino, unsigned int type, uint32_t id,
				  int64_t delta)
{
	uint8_t buf[QT_BLOCK];
	ext2_file_t f;
	uint32_t blk = QT_TREE_ROOT;
	errcode_t err;

	err = ext2fs_file_open(fs, qino, EXT2_FILE_WRITE, &f);
	if (err)
		return err;
	err = e2v_qblock_io(f, 0, buf, 0);
	if (err || e2v_get_le32(buf) != e2v_quota_magic[type] ||
	    e2v_get_le32(buf + 4) != QT_FILE_VERSION)
		goto out;
	for (int depth = 0; depth < QT_DEPTH; depth++) {
		err = e2v_qblock_io(f, blk, buf, 0);
		if (err)
			goto out;
		blk = e2v_get_le32(buf + 4 * ((id >> (8 * (QT_DEPTH - 1 - depth))) & 0xff));
		if (blk == 0)
			goto out;
	}
	err = e2v_qblock_io(f, blk, buf, 0);
	if (err)
		goto out;
	for (unsigned int off = QT_HEADER; off + QT_ENTRY <= QT_BLOCK; off += QT_ENTRY) {
		uint8_t *e = buf + off;

		/* an all-zero entry is free, even for id 0 (which is stored with itime 1) */
		if (e2v_get_le32(e + QT_ENTRY_ID) != id || e2v_all_zero(e, QT_ENTRY))
			continue;
		e2v_put_le64(e + QT_ENTRY_CURSPACE, e2v_get_le64(e + QT_ENTRY_CURSPACE) + delta);
		err = e2v_qblock_io(f, blk, buf, 1);
		break;
	}
out:
	if (err)
		(void)ext2fs_file_close(f);
	else
		err = ext2fs_file_close(f);
	return err;
}

errcode_t e2v_quota_charge_inode(ext2_filsys fs, const struct ext2_inode_large *inode,
				 int64_t delta)
{
	const struct ext2_inode *in = (const struct ext2_inode *)inode;
	struct ext2_super_block *sb = fs->super;
	uint32_t ids[3], qinos[3] = { sb->s_usr_quota_inum, sb->s_grp_quota_inum, 0 };
	errcode_t err;

	if (!delta || !ext2fs_has_feature_quota(sb))
		return 0;
	ids[0] = inode_uid(*in);
	ids[1] = inode_gid(*in);
	ids[2] = 0;
	if (ext2fs_has_feature_project(sb) && EXT2_INODE_SIZE(sb) > EXT2_GOOD_OLD_INODE_SIZE &&
	    inode->i_extra_isize >= offsetof(struct ext2_inode_large, i_projid) + sizeof(__u32) -
					    EXT2_GOOD_OLD_INODE_SIZE) {
		qinos[2] = sb->s_prj_quota_inum;
		ids[2] = inode->i_projid;
	}
	for (unsigned int type = 0; type < 3; type++) {
		if (!qinos[type])
			continue;
		err = e2v_quota_charge(fs, qinos[type], type, ids[type], delta);
		if (err)
			return err;
	}
	return 0;
}
