// SPDX-License-Identifier: GPL-2.0-or-later
/* inode_rules.c - which inodes may carry fs-verity (fs/ext4/verity.c, fs/verity/open.c) */
#include "config.h"

#include <stdio.h>

#include "core/log.h"
#include "image.h"

#include "inode_rules.h"
#include "layout.h"

/* fs/ext4/ext4.h EXT4_DAX_FL; e2fsprogs names it FS_DAX_FL */
#define E2V_DAX_FL 0x02000000

enum {
	E2V_RULE_NOT_REGULAR,
	E2V_RULE_ENCRYPT_NO_FEATURE,
	E2V_RULE_CASEFOLD_NO_FEATURE,
	E2V_RULE_ENCRYPTED,
	E2V_RULE_DAX,
	E2V_RULE_APPEND_ONLY,
	E2V_RULE_IMMUTABLE,
	E2V_RULE_INLINE_DATA,
	E2V_RULE_NO_EXTENTS,
	E2V_RULE_SIZE_TOO_LARGE,
};

static const struct e2v_inode_rule e2v_rules[] = {
	[E2V_RULE_NOT_REGULAR] = { E2VERITY_PR_NOT_REGULAR, E2VERITY_ET_NOT_REGULAR },
	/* a flag the filesystem cannot mean would hide the file from checking */
	[E2V_RULE_ENCRYPT_NO_FEATURE] = { E2VERITY_PR_ENCRYPT_NO_FEATURE, E2VERITY_ET_ENCRYPTED },
	/* __ext4_iget() refuses it (6.1 and 6.12 as Debian builds them; older kernels only log it) */
	[E2V_RULE_CASEFOLD_NO_FEATURE] = { E2VERITY_PR_CASEFOLD_NO_FEATURE,
					   E2VERITY_ET_CASEFOLD_NO_FEATURE },
	/* the metadata is encrypted with the file's key, which we do not have */
	[E2V_RULE_ENCRYPTED] = { E2VERITY_PR_ENCRYPTED, E2VERITY_ET_ENCRYPTED },
	/* the kernel's enable refuses these; a sealed file keeps working with them */
	[E2V_RULE_DAX] = { 0, E2VERITY_ET_DAX },
	[E2V_RULE_APPEND_ONLY] = { 0, E2VERITY_ET_APPEND_ONLY },
	/*
	 * Also refused by the kernel's enable (EPERM).  Unseal clears the flag
	 * that seal --immutable set, so it would not give back one found here.
	 */
	[E2V_RULE_IMMUTABLE] = { 0, E2VERITY_ET_IMMUTABLE },
	/* seal moves inline data into a block first, as the kernel's enable does */
	[E2V_RULE_INLINE_DATA] = { E2VERITY_PR_INLINE_DATA, 0 },
	[E2V_RULE_NO_EXTENTS] = { E2VERITY_PR_NO_EXTENTS_FLAG, E2VERITY_ET_NO_EXTENTS },
	[E2V_RULE_SIZE_TOO_LARGE] = { E2VERITY_PR_SIZE_TOO_LARGE, E2VERITY_ET_SIZE_TOO_LARGE },
};

const struct e2v_inode_rule *e2v_inode_verity_rule(ext2_filsys fs, const struct ext2_inode *in,
						   enum e2v_verity_use use)
{
	const int enable = use == E2V_VERITY_ENABLE;
	const uint32_t flags = in->i_flags;

	if (!LINUX_S_ISREG(in->i_mode))
		return &e2v_rules[E2V_RULE_NOT_REGULAR];
	if ((flags & EXT4_ENCRYPT_FL) && !ext2fs_has_feature_encrypt(fs->super))
		return &e2v_rules[E2V_RULE_ENCRYPT_NO_FEATURE];
	if ((flags & EXT4_CASEFOLD_FL) && !ext2fs_has_feature_casefold(fs->super))
		return &e2v_rules[E2V_RULE_CASEFOLD_NO_FEATURE];
	if (flags & EXT4_ENCRYPT_FL)
		return &e2v_rules[E2V_RULE_ENCRYPTED];
	if (enable && (flags & E2V_DAX_FL))
		return &e2v_rules[E2V_RULE_DAX];
	if (enable && (flags & EXT2_APPEND_FL))
		return &e2v_rules[E2V_RULE_APPEND_ONLY];
	if (enable && (flags & EXT2_IMMUTABLE_FL) && !(flags & EXT4_VERITY_FL))
		return &e2v_rules[E2V_RULE_IMMUTABLE];
	if (flags & EXT4_INLINE_DATA_FL) {
		if (!enable)
			return &e2v_rules[E2V_RULE_INLINE_DATA];
	} else if (!(flags & EXT4_EXTENTS_FL)) {
		return &e2v_rules[E2V_RULE_NO_EXTENTS];
	}
	if (EXT2_I_SIZE(in) > e2v_ext4_max_bytes(fs))
		return &e2v_rules[E2V_RULE_SIZE_TOO_LARGE];
	return NULL;
}

errcode_t e2v_inode_unused_why(ext2_filsys fs, ext2_ino_t ino, char *why, size_t len)
{
	const uint32_t per_group = fs->super->s_inodes_per_group;
	uint32_t index, unused;
	dgrp_t group;
	errcode_t err;

	why[0] = '\0';
	if (ino < 1 || ino > fs->super->s_inodes_count || !per_group)
		return EXT2_ET_BAD_INODE_NUM;
	group = (ino - 1) / per_group;
	index = (ino - 1) % per_group;
	if (ext2fs_has_group_desc_csum(fs)) {
		unused = ext2fs_bg_itable_unused(fs, group);
		if (ext2fs_bg_flags_test(fs, group, EXT2_BG_INODE_UNINIT)) {
			snprintf(why, len, "its group %u is marked INODE_UNINIT", group);
			return 0;
		}
		if (unused >= per_group || index >= per_group - unused) {
			snprintf(why, len, "in group %u's unused area (bg_itable_unused %u)", group,
				 unused);
			return 0;
		}
	}
	if (!fs->inode_map) {
		err = ext2fs_read_inode_bitmap(fs);
		if (err)
			return err;
	}
	if (!ext2fs_test_inode_bitmap2(fs->inode_map, ino))
		snprintf(why, len, "free in the inode bitmap");
	return 0;
}

errcode_t e2v_inode_in_use(ext2_filsys fs, ext2_ino_t ino)
{
	char why[96], detail[128];
	errcode_t err;

	err = e2v_inode_unused_why(fs, ino, why, sizeof(why));
	if (err || !why[0])
		return err;
	snprintf(detail, sizeof(detail), "inode %u: %s", ino, why);
	e2v_log(e2v_image_log(fs), E2VERITY_ET_INODE_UNUSED, NULL, detail);
	return E2VERITY_ET_INODE_UNUSED;
}
