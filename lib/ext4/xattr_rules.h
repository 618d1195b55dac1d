/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xattr_rules.h - internal: a target's extended attributes, judged before anything is written */
#ifndef E2VERITY_XATTR_RULES_H
#define E2VERITY_XATTR_RULES_H

#include "private.h"

/*
 * Whether every extended attribute of @ino reads as the writes will read it
 * and as e2fsck would keep it: the in-inode area, the attribute block (in
 * the filesystem, its checksum, magic number, h_blocks, and a count that is
 * the number of inodes naming it, from @owners or a scan made here when
 * NULL) and every EA inode an entry names (a valid number other than @ino,
 * in use, flagged EXT4_EA_INODE_FL, linked, referenced, of the value's
 * size), then libext2fs' ext2fs_xattrs_read_inode() of both places.  Reads
 * nothing more for an inode without attributes.  Writes nothing.
 *
 * Return: 0; E2VERITY_ET_XATTR_DAMAGED or E2VERITY_ET_XATTR_REFCOUNT with
 * the structure logged ("xattr block 1234: ...", "EA inode 17 for
 * user.foo: ..."); or an error reading the image.
 */
errcode_t e2v_inode_xattrs_sound(ext2_filsys fs, ext2_ino_t ino,
				 const struct e2verity_owners *owners);

#endif /* E2VERITY_XATTR_RULES_H */
