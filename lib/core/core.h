/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core.h - inline helpers of the filesystem-agnostic core; includes no ext2fs header */
#ifndef E2VERITY_CORE_PRIVATE_H
#define E2VERITY_CORE_PRIVATE_H

#include <stdint.h>
#include <string.h>

#include "e2verity_core.h"

#define E2V_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * What the code guarantees and clang's analyzer (scan-build, one file at a
 * time) cannot see, said at the line it reports with the reason: the analyzer
 * drops the paths where @cond is false.  Nothing at all in a build.
 */
#ifdef __clang_analyzer__
#define E2V_ANALYZER_ASSUME(cond) ((cond) ? (void)0 : __builtin_unreachable())
#else
#define E2V_ANALYZER_ASSUME(cond) ((void)0)
#endif

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

/* the first non-zero byte of @buf, or -1 */
static inline long e2v_first_nonzero(const uint8_t *buf, size_t len)
{
	/* nearly always all zeros: let memcmp scan it at memory speed */
	if (e2v_all_zero(buf, len))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			return i;
	return -1;
}

#endif /* E2VERITY_CORE_PRIVATE_H */
