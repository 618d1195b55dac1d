/* SPDX-License-Identifier: GPL-2.0-or-later */
/* private.h - helpers shared by the libe2verity sources, not installed */
#ifndef E2VERITY_PRIVATE_H
#define E2VERITY_PRIVATE_H

#include <stdint.h>
#include <string.h>

#include "e2verity.h"

#define E2V_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline int e2v_is_power_of_2(uint64_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline unsigned int e2v_ilog2(uint64_t n)
{
	return 63 - __builtin_clzll(n);
}

/* never wraps, whatever @n an image claims */
static inline uint64_t e2v_div_round_up(uint64_t n, uint64_t d)
{
	return n / d + (n % d != 0);
}

/*
 * Saturates at UINT64_MAX instead of wrapping to 0: a wrapped round-up made
 * a loop read nothing forever.  Callers bound @n first (e2v_ext4_max_bytes()).
 */
static inline uint64_t e2v_round_up(uint64_t n, uint64_t align)
{
	uint64_t q = e2v_div_round_up(n, align);

	return q > UINT64_MAX / align ? UINT64_MAX : q * align;
}

/* On-disk fields are little-endian whatever the host is. */
static inline void e2v_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void e2v_put_le32(uint8_t *p, uint32_t v)
{
	e2v_put_le16(p, v);
	e2v_put_le16(p + 2, v >> 16);
}

static inline void e2v_put_le64(uint8_t *p, uint64_t v)
{
	e2v_put_le32(p, v);
	e2v_put_le32(p + 4, v >> 32);
}

static inline uint16_t e2v_get_le16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}

static inline uint32_t e2v_get_le32(const uint8_t *p)
{
	return e2v_get_le16(p) | (uint32_t)e2v_get_le16(p + 2) << 16;
}

static inline uint64_t e2v_get_le64(const uint8_t *p)
{
	return e2v_get_le32(p) | (uint64_t)e2v_get_le32(p + 4) << 32;
}

static inline int e2v_all_zero(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/*
 * layout.c: the largest i_size an extent-mapped file of @fs can have, as the
 * kernel's s_maxbytes; nothing larger comes from a sane image.
 */
uint64_t e2v_ext4_max_bytes(ext2_filsys fs);

/* sha256_x2.c: SHA-256 with the x86 SHA extensions, one or two messages at a time */
struct e2v_sha256_mid {
	uint32_t h[8];	 /* state words after the prefix */
	uint64_t prefix; /* bytes absorbed: 0 or 64 (one padded salt block) */
};

/* 1 if this CPU has the SHA extensions and SSE4.1 */
int e2v_sha256_ni_usable(void);
/* the state after @first_block (64 bytes), or the initial state if it is NULL */
void e2v_sha256_ni_init(struct e2v_sha256_mid *mid, const uint8_t *first_block);
/* SHA-256 of the prefix and @len bytes (a multiple of 64) of @data */
void e2v_sha256_ni_x1(const struct e2v_sha256_mid *mid, const void *data, size_t len,
		      uint8_t *out);
/* the same for two messages of @len bytes, interleaved */
void e2v_sha256_ni_x2(const struct e2v_sha256_mid *mid, const void *d1, const void *d2,
		      size_t len, uint8_t *out1, uint8_t *out2);

/* punch.c: ext2fs_punch() from @first to the end, the filesystem's last block included */
errcode_t e2v_punch_past(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode, blk64_t first);

/*
 * txn_io.c: the writes that follow are file data (@on = 1), which go
 * straight to disk, or metadata (0), which a transaction holds until it
 * commits.  Nothing happens outside a journaled transaction.
 */
void e2v_io_data(ext2_filsys fs, int on);

/*
 * orphan.c: puts the inode at the head of the orphan list (and writes it), as
 * the kernel's ext4_begin_enable_verity() does: recovery from a crash trims
 * the blocks past EOF instead of growing i_size over them.
 */
errcode_t e2v_orphan_add(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in);
/* Takes it off the list; the caller writes the inode after this. */
errcode_t e2v_orphan_del(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in);

/* txn.c: writes the primary superblock alone, now (or into the transaction) */
errcode_t e2v_write_super(ext2_filsys fs);

#endif /* E2VERITY_PRIVATE_H */
