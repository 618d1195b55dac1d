/* SPDX-License-Identifier: GPL-2.0-or-later */
/* inode_rules.h - internal: which inodes may carry fs-verity, for seal's refusals and check's */
#ifndef E2VERITY_INODE_RULES_H
#define E2VERITY_INODE_RULES_H

#include "private.h"

/* What is asked of the inode */
enum e2v_verity_use {
	E2V_VERITY_CARRY,  /* it has the flag: would the kernel open it as a verity file */
	E2V_VERITY_ENABLE, /* seal is to set the flag (inline data is converted first) */
};

/* A rule the inode breaks: the problem check reports, the error seal returns */
struct e2v_inode_rule {
	unsigned int problem; /* E2VERITY_PR_*, or 0 where check has nothing to say */
	errcode_t err;	      /* E2VERITY_ET_*, or 0 where seal mends it */
};

/*
 * The first rule @in breaks for @use, or NULL.  One list serves both, in
 * one order: the mode, encryption, DAX and append-only, the data's mapping,
 * the size.
 */
const struct e2v_inode_rule *e2v_inode_verity_rule(ext2_filsys fs, const struct ext2_inode *in,
						   enum e2v_verity_use use);

/*
 * 0 if @ino is in use: set in the inode bitmap (read here if it is not
 * loaded) and, with uninit_bg or metadata_csum, neither in an INODE_UNINIT
 * group nor in its group's unused area (bg_itable_unused), which e2fsck
 * treats as free.  Else E2VERITY_ET_INODE_UNUSED, with the reason logged.
 */
errcode_t e2v_inode_in_use(ext2_filsys fs, ext2_ino_t ino);

/*
 * The same test without a log: @why (of @len bytes) gets the reason @ino is
 * not in use, or "" if it is.  An error only when the test cannot be made.
 */
errcode_t e2v_inode_unused_why(ext2_filsys fs, ext2_ino_t ino, char *why, size_t len);

#endif /* E2VERITY_INODE_RULES_H */
