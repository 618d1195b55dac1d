// SPDX-License-Identifier: GPL-2.0-or-later
/* read_path.c - the kernel's refusals of an inode as __ext4_iget() loads it (fs/ext4/inode.c) */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#include "read_path.h"

/* fs/ext4/ext4.h: the fields of struct ext4_inode judged here, by byte */
#define E2V_GOOD_OLD_INODE_SIZE 128
#define E2V_I_LINKS_COUNT 0x1a
#define E2V_I_FLAGS 0x20
#define E2V_I_GENERATION 0x64
#define E2V_I_FILE_ACL_LO 0x68
#define E2V_I_FILE_ACL_HIGH 0x76
#define E2V_I_CHECKSUM_LO 0x7c
#define E2V_I_EXTRA_ISIZE 0x80
#define E2V_I_CHECKSUM_HI 0x82

/* fs/ext4/xattr.h: the in-inode attribute area */
#define E2V_XATTR_MAGIC 0xEA020000u
#define E2V_XATTR_ENTRY_SIZE 16 /* struct ext4_xattr_entry, before its name */
#define E2V_XATTR_SIZE_MAX (1u << 24)
#define E2V_XATTR_ROUND(n) (((n) + 3u) & ~3u)

/*
 * The rules, in the order __ext4_iget() meets them; one row each, with the
 * kernel function that refuses.  The kernel stops at the first; check
 * reports each.  Rules check judges elsewhere, in the same order:
 * ext4_get_maxbytes() on i_size (SIZE_TOO_LARGE), ext4_ext_check_inode()
 * (EXTENT_*), the "bogus i_mode" (NOT_REGULAR) and the casefold flag without
 * the feature (CASEFOLD_NO_FEATURE).
 */
enum e2v_iget_rule {
	E2V_IGET_EXTRA_ISIZE,
	E2V_IGET_CHECKSUM,
	E2V_IGET_LINKS_ZERO,
	E2V_IGET_INDEX,
	E2V_IGET_IBODY_XATTR,
	E2V_IGET_FILE_ACL,
	E2V_IGET_EA_INODE,
};

static const unsigned int e2v_iget_rules[] = {
	/* __ext4_iget(): 128 + i_extra_isize past s_inode_size, or not a multiple of 4 */
	[E2V_IGET_EXTRA_ISIZE] = E2VERITY_PR_INODE_EXTRA_ISIZE,
	/* __ext4_iget() -> ext4_inode_csum_verify(), with metadata_csum: EFSBADCRC */
	[E2V_IGET_CHECKSUM] = E2VERITY_PR_INODE_CHECKSUM,
	/* __ext4_iget(): i_nlink 0 is a deleted inode, -ESTALE; ext4_lookup() says EFSCORRUPTED */
	[E2V_IGET_LINKS_ZERO] = E2VERITY_PR_INODE_LINKS_ZERO,
	/* __ext4_iget(): EXT4_INDEX_FL without dir_index, with metadata_csum (any mode) */
	[E2V_IGET_INDEX] = E2VERITY_PR_INODE_INDEX_FLAG,
	/* ext4_iget_extra_inode() -> xattr_check_inode() -> check_xattrs() (before 6.6:
	 * ext4_xattr_check_entries()) */
	[E2V_IGET_IBODY_XATTR] = E2VERITY_PR_INODE_XATTR_BAD,
	/* __ext4_iget() -> ext4_inode_block_valid() on i_file_acl */
	[E2V_IGET_FILE_ACL] = E2VERITY_PR_INODE_FILE_ACL,
	/* check_igot_inode(): EXT4_EA_INODE_FL on an inode not loaded as an xattr's value */
	[E2V_IGET_EA_INODE] = E2VERITY_PR_INODE_EA_INODE_FLAG,
};

static void e2v_fault(struct e2v_iget_fault *out, size_t *n, enum e2v_iget_rule rule,
		      uint64_t value, uint64_t expected)
{
	if (*n >= E2V_IGET_MAX_FAULTS)
		return;
	out[*n] = (struct e2v_iget_fault){ .problem = e2v_iget_rules[rule],
					   .value = value,
					   .expected = expected };
	(*n)++;
}

/* The on-disk bytes of inode @ino in @block (a block's buffer): *@raw points at them. */
static errcode_t e2v_raw_inode(ext2_filsys fs, ext2_ino_t ino, uint8_t *block, const uint8_t **raw)
{
	const uint32_t per_group = fs->super->s_inodes_per_group;
	const unsigned int isz = EXT2_INODE_SIZE(fs->super);
	uint64_t off;
	blk64_t blk;
	dgrp_t group;
	errcode_t err;

	if (ino < 1 || ino > fs->super->s_inodes_count || !per_group)
		return EXT2_ET_BAD_INODE_NUM;
	group = (ino - 1) / per_group;
	off = (uint64_t)((ino - 1) % per_group) * isz;
	blk = ext2fs_inode_table_loc(fs, group);
	if (!blk)
		return EXT2_ET_MISSING_INODE_TABLE;
	blk += off / fs->blocksize;
	err = io_channel_read_blk64(fs->io, blk, 1, block);
	if (err)
		return err;
	*raw = block + off % fs->blocksize;
	return 0;
}

/*
 * ext4_inode_csum() as ext4_inode_csum_verify() compares it: crc32c from the
 * inode's seed (the filesystem's, the inode number, i_generation) over the
 * whole on-disk inode with its checksum fields read as zero; only the low 16
 * bits when i_checksum_hi is not inside the inode's extra fields.  Returns 1
 * if it matches.
 */
static int e2v_inode_csum_ok(ext2_filsys fs, ext2_ino_t ino, const uint8_t *raw, unsigned int extra,
			     uint32_t *stored, uint32_t *computed)
{
	const unsigned int isz = EXT2_INODE_SIZE(fs->super);
	const int has_hi = isz > E2V_GOOD_OLD_INODE_SIZE &&
			   E2V_GOOD_OLD_INODE_SIZE + extra >= E2V_I_CHECKSUM_HI + 2;
	static const uint8_t zero[2];
	uint8_t le[4];
	uint32_t crc;

	e2v_put_le32(le, ino);
	crc = ext2fs_crc32c_le(fs->csum_seed, le, sizeof(le));
	crc = ext2fs_crc32c_le(crc, raw + E2V_I_GENERATION, 4);
	crc = ext2fs_crc32c_le(crc, raw, E2V_I_CHECKSUM_LO);
	crc = ext2fs_crc32c_le(crc, zero, 2);
	crc = ext2fs_crc32c_le(crc, raw + E2V_I_CHECKSUM_LO + 2,
			       E2V_GOOD_OLD_INODE_SIZE - E2V_I_CHECKSUM_LO - 2);
	if (isz > E2V_GOOD_OLD_INODE_SIZE) {
		unsigned int from = E2V_I_CHECKSUM_HI;

		crc = ext2fs_crc32c_le(crc, raw + E2V_GOOD_OLD_INODE_SIZE,
				       E2V_I_CHECKSUM_HI - E2V_GOOD_OLD_INODE_SIZE);
		if (has_hi) {
			crc = ext2fs_crc32c_le(crc, zero, 2);
			from += 2;
		}
		crc = ext2fs_crc32c_le(crc, raw + from, isz - from);
	}
	*stored = e2v_get_le16(raw + E2V_I_CHECKSUM_LO);
	if (has_hi)
		*stored |= (uint32_t)e2v_get_le16(raw + E2V_I_CHECKSUM_HI) << 16;
	else
		crc &= 0xffff;
	*computed = crc;
	return *stored == crc;
}

/* ext4_valid_inum() */
static int e2v_valid_inum(ext2_filsys fs, uint32_t ino)
{
	return ino == EXT2_ROOT_INO ||
	       (ino >= EXT2_FIRST_INODE(fs->super) && ino <= fs->super->s_inodes_count);
}

/*
 * check_xattrs() on the in-inode area (xattr_check_inode()), entered by
 * ext4_iget_extra_inode() when there is room for the header after
 * i_extra_isize and it holds the magic.  0 if the kernel accepts it, else 1
 * and *@where, the byte of the inode where it goes wrong.  Offsets from
 * @raw throughout: every read is inside the inode's @isz bytes.
 */
static int e2v_ibody_xattr_bad(ext2_filsys fs, const uint8_t *raw, unsigned int isz,
			       unsigned int extra, uint64_t *where)
{
	const size_t hdr = E2V_GOOD_OLD_INODE_SIZE + extra, first = hdr + 4;
	size_t e, x;

	/* EXT4_INODE_HAS_XATTR_SPACE() and the magic: else the area is not looked at */
	if (!extra || hdr + 4 > isz || e2v_get_le32(raw + hdr) != E2V_XATTR_MAGIC)
		return 0;
	*where = hdr;
	/* "in-inode xattr block too small": the header and a 4-byte end marker */
	if (isz - hdr < 8)
		return 1;
	/* the names: each entry, and the 4 bytes after it, inside the inode */
	for (e = first; e2v_get_le32(raw + e);
	     e += E2V_XATTR_ROUND(E2V_XATTR_ENTRY_SIZE + raw[e])) {
		size_t next = e + E2V_XATTR_ROUND(E2V_XATTR_ENTRY_SIZE + raw[e]);

		*where = e;
		/* "e_name out of bounds" (6.1: next >= end, which reads past it) */
		if (next + 4 > isz)
			return 1;
		/* "bad e_name length": a NUL inside the name */
		if (memchr(raw + e + E2V_XATTR_ENTRY_SIZE, 0, raw[e]))
			return 1;
	}
	/* the values: e is now the end marker, which no value may overlap */
	for (x = first; x < e; x += E2V_XATTR_ROUND(E2V_XATTR_ENTRY_SIZE + raw[x])) {
		const uint32_t size = e2v_get_le32(raw + x + 8);
		const uint32_t inum = e2v_get_le32(raw + x + 4);

		*where = x;
		if (inum && !ext2fs_has_feature_ea_inode(fs->super))
			return 1;
		if (inum && (inum == EXT2_ROOT_INO || !e2v_valid_inum(fs, inum)))
			return 1;
		if (inum && !size)
			return 1;
		if (size > E2V_XATTR_SIZE_MAX)
			return 1;
		if (size && !inum) {
			const size_t offs = e2v_get_le16(raw + x + 2);
			const size_t value = first + offs;

			/* "e_value out of bounds", "overlapping e_value" */
			if (offs > isz - first || value < e + 4 || size > isz - value ||
			    E2V_XATTR_ROUND((uint64_t)size) > isz - value)
				return 1;
		}
	}
	return 0;
}

/* ext4_inode_block_valid(): i_file_acl inside the filesystem and outside the system zone */
static errcode_t e2v_file_acl_valid(ext2_filsys fs, const struct e2v_system_zone *zone,
				    ext2_ino_t ino, blk64_t acl, int *valid)
{
	struct e2v_blockref ref = { .pblk = acl, .len = 1 }, hit;
	blk64_t block;
	int found;
	errcode_t err;

	*valid = e2v_block_range_valid(fs, acl, 1);
	if (!*valid)
		return 0;
	err = e2v_system_zone_check(fs, zone, ino, &ref, 1, &found, &hit, &block);
	if (err)
		return err;
	*valid = !found;
	return 0;
}

errcode_t e2v_iget_judge(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
			 struct e2v_iget_fault *out, size_t *n)
{
	const unsigned int isz = EXT2_INODE_SIZE(fs->super);
	unsigned int extra = 0;
	uint32_t flags, stored, computed;
	const uint8_t *raw = NULL;
	uint8_t *block;
	uint64_t where = 0;
	blk64_t acl;
	int extra_ok = 1, valid;
	errcode_t err;

	*n = 0;
	block = malloc(fs->blocksize);
	if (!block)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_raw_inode(fs, ino, block, &raw);
	if (err)
		goto out;
	flags = e2v_get_le32(raw + E2V_I_FLAGS);
	if (isz > E2V_GOOD_OLD_INODE_SIZE) {
		extra = e2v_get_le16(raw + E2V_I_EXTRA_ISIZE);
		if (E2V_GOOD_OLD_INODE_SIZE + extra > isz || (extra & 3)) {
			e2v_fault(out, n, E2V_IGET_EXTRA_ISIZE, extra,
				  isz - E2V_GOOD_OLD_INODE_SIZE);
			extra_ok = 0;
		}
	}
	/* the Hurd has no metadata_csum: ext4_inode_csum_verify() skips it */
	if (ext2fs_has_feature_metadata_csum(fs->super) &&
	    fs->super->s_creator_os != EXT2_OS_HURD &&
	    !e2v_inode_csum_ok(fs, ino, raw, extra, &stored, &computed))
		e2v_fault(out, n, E2V_IGET_CHECKSUM, stored, computed);
	if (!e2v_get_le16(raw + E2V_I_LINKS_COUNT))
		e2v_fault(out, n, E2V_IGET_LINKS_ZERO, 0, 0);
	if (!ext2fs_has_feature_dir_index(fs->super) &&
	    ext2fs_has_feature_metadata_csum(fs->super) && (flags & EXT2_INDEX_FL))
		e2v_fault(out, n, E2V_IGET_INDEX, flags, 0);
	/* with i_extra_isize 0 the kernel takes the extra space as unused, and looks no further */
	if (extra_ok && e2v_ibody_xattr_bad(fs, raw, isz, extra, &where))
		e2v_fault(out, n, E2V_IGET_IBODY_XATTR, where, isz);
	acl = e2v_get_le32(raw + E2V_I_FILE_ACL_LO);
	if (ext2fs_has_feature_64bit(fs->super))
		acl |= (blk64_t)e2v_get_le16(raw + E2V_I_FILE_ACL_HIGH) << 32;
	if (acl) {
		err = e2v_file_acl_valid(fs, zone, ino, acl, &valid);
		if (err)
			goto out;
		if (!valid)
			e2v_fault(out, n, E2V_IGET_FILE_ACL, acl, ext2fs_blocks_count(fs->super));
	}
	if (flags & EXT4_EA_INODE_FL)
		e2v_fault(out, n, E2V_IGET_EA_INODE, flags, 0);
out:
	free(block);
	return err;
}
