// SPDX-License-Identifier: GPL-2.0-or-later
/* orphan.c - internal: keep an inode on the orphan list while blocks past its EOF change */
#include "config.h"

#include "orphan.h"
#include "txn.h"

/*
 * As the kernel's ext4_begin_enable_verity(): while blocks past EOF are being
 * added, the inode sits on the orphan list, so that recovery from a crash
 * trims them back to i_size instead of growing i_size over them.  Without a
 * journal the superblock that lists it reaches the disk first.
 */
errcode_t e2v_orphan_add(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in)
{
	errcode_t err;

	in->i_dtime = fs->super->s_last_orphan;
	fs->super->s_last_orphan = ino;
	ext2fs_mark_super_dirty(fs);
	err = e2v_write_super(fs);
	if (!err)
		err = ext2fs_write_inode(fs, ino, in);
	return err;
}

/* Off the list again; the caller writes the inode (with its flag) after this. */
errcode_t e2v_orphan_del(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in)
{
	/* nothing else joins the list while e2verity holds the image: it is the head */
	if (fs->super->s_last_orphan == ino) {
		fs->super->s_last_orphan = in->i_dtime;
		ext2fs_mark_super_dirty(fs);
	}
	in->i_dtime = 0;
	return e2v_write_super(fs);
}
