/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ima_xattr.h - internal: security.ima in an inode, through libext2fs' extended attribute handles */
#ifndef E2VERITY_IMA_XATTR_H
#define E2VERITY_IMA_XATTR_H

#include "private.h"

#define E2V_IMA_XATTR "security.ima"

/*
 * What replacing an inode's security.ima with @len bytes (0: removing it)
 * needs: the blocks it allocates (0 or 1, its new extended attribute block),
 * or why it cannot be done.  Reads only.
 *
 * The attribute block the change lets go must be named by as many inodes as
 * its count says (@owners, e2verity_owners_scan()'s map, or NULL: a scan is
 * made here when the inode has a block).
 *
 * Return: 0, E2VERITY_ET_IMA_NO_ROOM, E2VERITY_ET_IMA_SHARED_BLOCK (without a
 * journal), E2VERITY_ET_IMA_EA_INODE, E2VERITY_ET_XATTR_REFCOUNT, or an error
 * of libext2fs.
 */
errcode_t e2v_ima_room(ext2_filsys fs, const struct e2verity_owners *owners, ext2_ino_t ino,
		       size_t len, uint64_t *blocks);

/*
 * Sets (or with a NULL @value removes) an inode's security.ima.  The inode's
 * extended attribute block, if it has one, is never written in place: the
 * attributes go to a block allocated now, and the old one is released (or
 * its reference count lowered), so that the inode's one write switches them
 * whole, in a commit without a journal too.  The quota is charged.  The
 * old block is judged as e2v_ima_room() judges it, and @owners (if not NULL)
 * then forgets that @ino names it.
 */
errcode_t e2v_ima_store(ext2_filsys fs, const struct e2verity_owners *owners, ext2_ino_t ino,
			const uint8_t *value, size_t len);

/* 1 if the inode's security.ima is an fs-verity signature (IMA_VERITY_DIGSIG), else 0 */
int e2v_ima_is_verity(ext2_filsys fs, ext2_ino_t ino);

#endif /* E2VERITY_IMA_XATTR_H */
