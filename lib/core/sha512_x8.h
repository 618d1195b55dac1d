/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha512_x8.h - internal: SHA-512 of up to eight equal-length messages at once (AVX-512) */
#ifndef E2VERITY_SHA512_X8_H
#define E2VERITY_SHA512_X8_H

#include "core.h"

/* messages one call hashes at most: one per 64-bit lane of a 512-bit vector */
#define E2V_SHA512_X8_LANES 8

/* SHA-512 state words after a prefix shared by all messages */
struct e2v_sha512_mid {
	uint64_t h[8];
	uint64_t prefix; /* bytes absorbed: 0 or 128 (one padded salt block) */
};

/* the state after @first_block (128 bytes), or the initial state if it is NULL; any CPU */
void e2v_sha512_x8_init(struct e2v_sha512_mid *mid, const uint8_t *first_block);
/*
 * SHA-512 of the prefix of @mid and @len bytes (a multiple of 128) of each of
 * @data[0..n-1] (n 1..8) into @out[0..n-1] (64 bytes each), with AVX-512F/BW:
 * only where e2v_sha256_x16_usable() says the CPU has it.
 */
void e2v_sha512_x8(const struct e2v_sha512_mid *mid, const void *const data[], unsigned int n,
		   size_t len, uint8_t *const out[]);
/* the same in portable C, on any CPU: slow, for the unit test */
void e2v_sha512_x8_generic(const struct e2v_sha512_mid *mid, const void *const data[],
			   unsigned int n, size_t len, uint8_t *const out[]);

#endif /* E2VERITY_SHA512_X8_H */
