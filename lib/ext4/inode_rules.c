// SPDX-License-Identifier: GPL-2.0-or-later
/* inode_rules.c - which inodes may carry fs-verity (fs/ext4/verity.c, fs/verity/open.c) */
#include "config.h"

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
