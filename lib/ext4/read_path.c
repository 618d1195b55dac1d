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

/* fs/ext4/ext4.h: a directory block's checksum tail (struct ext4_dir_entry_tail) and dx tail */
#define E2V_DIRENT_TAIL_SIZE 12
#define E2V_FT_DIR_CSUM 0xde
#define E2V_DX_TAIL_SIZE 8
#define E2V_DX_ENTRY_SIZE 8

/* ext4_inode_info.i_csum_seed of a directory: the filesystem's seed, its number, its generation */
static uint32_t e2v_dir_seed(ext2_filsys fs, ext2_ino_t ino, uint32_t generation)
{
	uint8_t le[4];
	uint32_t crc;

	e2v_put_le32(le, ino);
	crc = ext2fs_crc32c_le(fs->csum_seed, le, sizeof(le));
	e2v_put_le32(le, generation);
	return ext2fs_crc32c_le(crc, le, sizeof(le));
}

/* ext4_rec_len_from_disk() */
static unsigned int e2v_rec_len(const uint8_t *p, unsigned int bs)
{
	unsigned int len = e2v_get_le16(p);

	if (bs < 65536)
		return len;
	if (len == 65535 || !len)
		return bs;
	return (len & 65532) | ((len & 3) << 16);
}

/*
 * ext4_dirblock_csum_verify(): the 12-byte tail at the block's end
 * (get_dirent_tail(): inode 0, rec_len 12, name_len 0, type 0xde) holds the
 * crc32c of everything before it; a block without the tail fails too.
 */
static int e2v_leaf_csum_ok(ext2_filsys fs, uint32_t seed, const uint8_t *b)
{
	const unsigned int bs = fs->blocksize;
	const uint8_t *t = b + bs - E2V_DIRENT_TAIL_SIZE;

	if (e2v_get_le32(t) || e2v_rec_len(t + 4, bs) != E2V_DIRENT_TAIL_SIZE || t[6] ||
	    t[7] != E2V_FT_DIR_CSUM)
		return 0;
	return ext2fs_crc32c_le(seed, b, bs - E2V_DIRENT_TAIL_SIZE) == e2v_get_le32(t + 8);
}

/*
 * ext4_dx_csum_verify(): get_dx_countlimit() finds the count and limit (a
 * node: one empty entry over the block; the root: "." of 12 bytes, ".."
 * over the rest, then dx_root_info of 8 bytes), the dx_tail follows the
 * limit's entries, and its checksum covers the used entries and the tail's
 * reserved word.
 */
static int e2v_dx_csum_ok(ext2_filsys fs, uint32_t seed, const uint8_t *b)
{
	const unsigned int bs = fs->blocksize;
	static const uint8_t zero[4];
	unsigned int off, count, limit;
	const uint8_t *t;
	uint32_t crc;

	if (e2v_rec_len(b + 4, bs) == bs) {
		off = 8;
	} else if (e2v_rec_len(b + 4, bs) == 12) {
		/* dx_root_info: reserved_zero, then info_length at byte 29 */
		if (e2v_rec_len(b + 12 + 4, bs) != bs - 12 || e2v_get_le32(b + 24) || b[29] != 8)
			return 0;
		off = 32;
	} else {
		return 0;
	}
	limit = e2v_get_le16(b + off);
	count = e2v_get_le16(b + off + 2);
	if (off + (uint64_t)limit * E2V_DX_ENTRY_SIZE > bs - E2V_DX_TAIL_SIZE)
		return 0;
	/* the kernel sums count entries, whatever the limit: a count past it reads on */
	if (off + (uint64_t)count * E2V_DX_ENTRY_SIZE > bs)
		return 0;
	t = b + off + limit * E2V_DX_ENTRY_SIZE;
	crc = ext2fs_crc32c_le(seed, b, off + count * E2V_DX_ENTRY_SIZE);
	crc = ext2fs_crc32c_le(crc, t, 4);
	crc = ext2fs_crc32c_le(crc, zero, 4);
	return crc == e2v_get_le32(t + 4);
}

/* Whether leaf block @b holds a live entry named @name: its inode number, or 0 */
static ext2_ino_t e2v_leaf_find(ext2_filsys fs, const uint8_t *b, const char *name, size_t len)
{
	const unsigned int bs = fs->blocksize;
	const int filetype = ext2fs_has_feature_filetype(fs->super);
	unsigned int off = 0;

	while (off + 8 <= bs) {
		unsigned int rec = e2v_rec_len(b + off + 4, bs);
		unsigned int nlen = filetype ? b[off + 6] : e2v_get_le16(b + off + 6);

		if (rec < 8 || off + rec > bs)
			break;
		if (e2v_get_le32(b + off) && nlen == len && 8 + nlen <= rec &&
		    !memcmp(b + off + 8, name, len))
			return e2v_get_le32(b + off);
		off += rec;
	}
	return 0;
}

struct e2v_dir_read {
	ext2_filsys fs;
	ext2_ino_t ino;
	struct ext2_inode inode;
	uint8_t *buf; /* one block */
};

/* Logical block @lblk of the directory into r->buf: 1, or 0 for a hole or a failed read */
static int e2v_dir_block(struct e2v_dir_read *r, blk64_t lblk)
{
	blk64_t pblk = 0;

	if (ext2fs_bmap2(r->fs, r->ino, &r->inode, NULL, 0, lblk, NULL, &pblk) || !pblk)
		return 0;
	return !io_channel_read_blk64(r->fs->io, pblk, 1, r->buf);
}

static void e2v_dir_fault(struct e2v_lookup_fault *out, size_t *n, ext2_ino_t dir, blk64_t lblk)
{
	if (*n >= E2V_LOOKUP_MAX_FAULTS)
		return;
	out[*n] = (struct e2v_lookup_fault){ .problem = E2VERITY_PR_DIR_BLOCK_CHECKSUM,
					     .dir = dir,
					     .lblk = lblk };
	(*n)++;
}

/* fs/ext4/namei.c: what dx_probe() accepts of a root before it follows the hash */
#define E2V_DX_ROOT_INFO 24 /* struct dx_root_info after "." and ".." */
#define E2V_DX_UNUSED_FLAGS_INCOMPAT 1

/*
 * dx_probe() and ext4_dx_find_entry(): the root, the index nodes the hash of
 * @name leads through, then the leaf, each verified as the kernel reads it
 * (an INDEX block by ext4_dx_csum_verify(), the leaf by
 * ext4_dirblock_csum_verify()).  The kernel's lookup ends at the first
 * failure, and so does this (*@stop, after the fault).  Returns 0 where
 * dx_probe() gives up with ERR_BAD_DX_DIR, after which the kernel searches
 * the directory linearly; else 1, with *@leaf the block it searches.
 */
static int e2v_dx_route(struct e2v_dir_read *r, uint32_t seed, const char *name, size_t len,
			struct e2v_lookup_fault *out, size_t *n, blk64_t *leaf, int *stop)
{
	ext2_filsys fs = r->fs;
	const unsigned int bs = fs->blocksize;
	const unsigned int tail =
		ext2fs_has_feature_metadata_csum(fs->super) ? E2V_DX_TAIL_SIZE : 0;
	const unsigned int max_levels = ext2fs_has_feature_largedir(fs->super) ? 3 : 2;
	blk64_t path[4] = { 0 };
	ext2_dirhash_t hash, minor;
	unsigned int version, levels, off = 32, limit;
	unsigned int level = 0;

	*stop = 0;
	if (!e2v_dir_block(r, 0))
		return 0;
	if (!e2v_dx_csum_ok(fs, seed, r->buf)) {
		e2v_dir_fault(out, n, r->ino, 0);
		*stop = 1;
		return 1;
	}
	version = r->buf[E2V_DX_ROOT_INFO + 4];
	levels = r->buf[E2V_DX_ROOT_INFO + 6];
	/* ext4_hash_in_dirent(): SipHash only for casefolded encrypted directories; not those */
	if (version != EXT2_HASH_LEGACY && version != EXT2_HASH_HALF_MD4 &&
	    version != EXT2_HASH_TEA)
		return 0;
	if ((r->buf[E2V_DX_ROOT_INFO + 7] & E2V_DX_UNUSED_FLAGS_INCOMPAT) || levels >= max_levels)
		return 0;
	if (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH)
		version += EXT2_HASH_LEGACY_UNSIGNED;
	if (ext2fs_dirhash2(version, name, len, NULL, 0, fs->super->s_hash_seed, &hash, &minor))
		return 0;
	limit = (bs - 32 - tail) / E2V_DX_ENTRY_SIZE;
	for (;;) {
		unsigned int count = e2v_get_le16(r->buf + off + 2), lo = 1, hi;
		blk64_t block;

		if (e2v_get_le16(r->buf + off) != limit || !count || count > limit)
			return 0;
		/* the last entry whose hash is not above the name's (entry 0 has none) */
		hi = count;
		while (lo < hi) {
			unsigned int m = lo + (hi - lo) / 2;

			if (e2v_get_le32(r->buf + off + m * E2V_DX_ENTRY_SIZE) > hash)
				hi = m;
			else
				lo = m + 1;
		}
		block = e2v_get_le32(r->buf + off + (lo - 1) * E2V_DX_ENTRY_SIZE + 4) & 0x0fffffff;
		for (unsigned int i = 0; i <= level; i++)
			if (path[i] == block)
				return 0;
		if (level++ == levels) {
			*leaf = block;
			return 1;
		}
		path[level] = block;
		if (!e2v_dir_block(r, block))
			return 0;
		/*
		 * __ext4_read_dirblock(INDEX): a node is one empty entry over the
		 * whole block (else EFSCORRUPTED, which fails the lookup too)
		 */
		if (e2v_rec_len(r->buf + 4, bs) != bs || !e2v_dx_csum_ok(fs, seed, r->buf)) {
			e2v_dir_fault(out, n, r->ino, block);
			*stop = 1;
			return 1;
		}
		off = 8;
		limit = (bs - 8 - tail) / E2V_DX_ENTRY_SIZE;
	}
}

/*
 * One component: the blocks of directory r->ino the kernel reads to find
 * @name, verified as it verifies them; the first failure ends the lookup, as
 * in the kernel.  *@next gets the entry's inode, or 0 where the walk ends.
 */
static errcode_t e2v_lookup_one(struct e2v_dir_read *r, const char *name, size_t len,
				ext2_ino_t *next, struct e2v_lookup_fault *out, size_t *n)
{
	ext2_filsys fs = r->fs;
	const unsigned int bs = fs->blocksize;
	const int dx =
		ext2fs_has_feature_dir_index(fs->super) && (r->inode.i_flags & EXT2_INDEX_FL);
	const uint32_t seed = e2v_dir_seed(fs, r->ino, r->inode.i_generation);
	const blk64_t nblocks = EXT2_I_SIZE(&r->inode) / bs;
	blk64_t lblk, leaf;
	int stop;

	*next = 0;
	/* a casefolded name hashes through its folding, which is not modelled: no verdict */
	if (dx && (r->inode.i_flags & EXT4_CASEFOLD_FL)) {
		for (lblk = 0; lblk < nblocks && !*next; lblk++)
			if (e2v_dir_block(r, lblk))
				*next = e2v_leaf_find(fs, r->buf, name, len);
		return 0;
	}
	/* ext4_dx_find_entry(): the leaf the hash leads to, read as DIRENT_HTREE */
	if (dx && e2v_dx_route(r, seed, name, len, out, n, &leaf, &stop)) {
		if (stop || !e2v_dir_block(r, leaf))
			return 0;
		if (leaf && e2v_rec_len(r->buf + 4, bs) != bs &&
		    !e2v_leaf_csum_ok(fs, seed, r->buf)) {
			e2v_dir_fault(out, n, r->ino, leaf);
			return 0;
		}
		*next = e2v_leaf_find(fs, r->buf, name, len);
		return 0;
	}
	/*
	 * __ext4_find_entry(), linear (or after ERR_BAD_DX_DIR): each block
	 * from the first, verified before it is searched, but for the index
	 * blocks of an htree (is_dx_internal_node()); holes are skipped.
	 */
	for (lblk = 0; lblk < nblocks && !*next; lblk++) {
		if (!e2v_dir_block(r, lblk))
			continue;
		if (dx && (!lblk || (!e2v_get_le32(r->buf) && e2v_rec_len(r->buf + 4, bs) == bs)))
			continue;
		if (!e2v_leaf_csum_ok(fs, seed, r->buf)) {
			e2v_dir_fault(out, n, r->ino, lblk);
			return 0;
		}
		*next = e2v_leaf_find(fs, r->buf, name, len);
	}
	return 0;
}

/*
 * The kernel's walk of @path, component by component: its faults into @out
 * (*@n of them); where it finds every component with none, *@found (if not
 * NULL) is the inode it ends at, else 0.
 */
static errcode_t e2v_lookup_walk(ext2_filsys fs, const char *path, struct e2v_lookup_fault *out,
				 size_t *n, ext2_ino_t *found)
{
	struct e2v_iget_fault ifaults[E2V_IGET_MAX_FAULTS];
	struct e2v_dir_read r = { .fs = fs, .ino = EXT2_ROOT_INO };
	size_t ni;
	const char *p = path;
	errcode_t err = 0;

	*n = 0;
	if (found)
		*found = 0;
	r.buf = malloc(fs->blocksize);
	if (!r.buf)
		return E2VERITY_ET_NO_MEMORY;
	for (;;) {
		size_t len;
		ext2_ino_t next;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len) {
			if (found && !*n)
				*found = r.ino;
			break;
		}
		/* an inode that cannot be read, or no directory: the lookup fails for other reasons */
		if (ext2fs_read_inode(fs, r.ino, &r.inode) || !LINUX_S_ISDIR(r.inode.i_mode) ||
		    (r.inode.i_flags & EXT4_INLINE_DATA_FL))
			break;
		/* ext4_lookup() loaded the directory by __ext4_iget() first: its rules hold for it */
		err = e2v_iget_judge(fs, NULL, r.ino, ifaults, &ni);
		if (err)
			break;
		if (ni) {
			out[(*n)++] = (struct e2v_lookup_fault){ E2VERITY_PR_DIR_INODE_REFUSED,
								 r.ino, 0 };
			break;
		}
		if (len == 1 && p[0] == '.') {
			next = r.ino;
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			/* the VFS follows ".." from the dentry it has, not through a block */
			break;
		} else if (!ext2fs_has_feature_metadata_csum(fs->super)) {
			/* no block checksums to verify: libext2fs finds the entry */
			if (ext2fs_lookup(fs, r.ino, p, (int)len, NULL, &next))
				break;
		} else {
			err = e2v_lookup_one(&r, p, len, &next, out, n);
			if (err || !next)
				break;
		}
		r.ino = next;
		p += len;
	}
	free(r.buf);
	return err;
}

errcode_t e2v_lookup_judge(ext2_filsys fs, const char *path, struct e2v_lookup_fault *out,
			   size_t *n)
{
	return e2v_lookup_walk(fs, path, out, n, NULL);
}

errcode_t e2verity_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino, ext2_ino_t *dir)
{
	struct e2v_lookup_fault faults[E2V_LOOKUP_MAX_FAULTS];
	errcode_t err;
	size_t n;

	if (!fs || !path || path[0] != '/' || !ino)
		return EXT2_ET_INVALID_ARGUMENT;
	err = e2v_lookup_walk(fs, path, faults, &n, ino);
	if (err)
		return err;
	if (*ino)
		return 0;
	if (!n)
		return EXT2_ET_FILE_NOT_FOUND;
	/* the walk ends at its first fault, as the kernel's */
	if (dir)
		*dir = faults[0].dir;
	return faults[0].problem == E2VERITY_PR_DIR_INODE_REFUSED ? EXT2_ET_INODE_CORRUPTED
								  : EXT2_ET_DIR_CSUM_INVALID;
}
