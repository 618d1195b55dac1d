/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read_path.h - internal: what the kernel refuses on its way to a file's inode */
#ifndef E2VERITY_READ_PATH_H
#define E2VERITY_READ_PATH_H

#include "private.h"

#include "block_validity.h"

/* the most refusals e2v_iget_judge() reports for one inode: one per rule */
#define E2V_IGET_MAX_FAULTS 8

/* One rule of __ext4_iget() the on-disk inode breaks, with its numbers */
struct e2v_iget_fault {
	unsigned int problem; /* E2VERITY_PR_* */
	uint64_t value;
	uint64_t expected;
};

/*
 * Judges the on-disk inode @ino, read from the image itself (not libext2fs'
 * cache, not its checksum-ignoring read), as __ext4_iget() does when a
 * lookup by name loads it (EXT4_IGET_NORMAL).  The kernel stops at the first
 * refusal; here every rule that fails is put in @out (up to
 * E2V_IGET_MAX_FAULTS), in the kernel's order, *@n of them.  The rules check
 * already models elsewhere (i_size, the mode, the casefold flag, the extent
 * tree) are not repeated.  @zone is the system zone, or NULL to make it on
 * the fly.  Returns a read or memory error; a refusal is not one.
 */
errcode_t e2v_iget_judge(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
			 struct e2v_iget_fault *out, size_t *n);

/* the most directory blocks e2v_lookup_judge() reports for one path */
#define E2V_LOOKUP_MAX_FAULTS 8

/* A directory (its inode, or a block of it) on a path that the kernel's lookup refuses */
struct e2v_lookup_fault {
	unsigned int problem; /* E2VERITY_PR_DIR_BLOCK_CHECKSUM or _DIR_INODE_REFUSED */
	ext2_ino_t dir;
	blk64_t lblk; /* its logical block (DIR_BLOCK_CHECKSUM) */
};

/*
 * Judges the lookup of @path from the root as ext4_lookup() makes it: each
 * directory on the way is loaded as __ext4_iget() loads it
 * (e2v_iget_judge(): DIR_INODE_REFUSED), and with metadata_csum the blocks
 * __ext4_find_entry()
 * reads to find the next name (a linear directory: from block 0 up to the one
 * that holds the name; an htree: the root and index nodes dx_probe() follows
 * by the name's hash, then the leaf) have their checksums verified as
 * __ext4_read_dirblock() and ext4_dirblock_csum_verify() /
 * ext4_dx_csum_verify() verify them.  The first failure ends the lookup, as
 * in the kernel: @out gets it (*@n is 1), or nothing.  A name that is not
 * there ends the walk without a fault: libext2fs' lookup says so.  A
 * casefolded htree (its names hash folded) is only walked, not judged.
 */
errcode_t e2v_lookup_judge(ext2_filsys fs, const char *path, struct e2v_lookup_fault *out,
			   size_t *n);

#endif /* E2VERITY_READ_PATH_H */
