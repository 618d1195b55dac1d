/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256_x16.h - internal: SHA-256 of up to sixteen equal-length messages at once (AVX-512) */
#ifndef E2VERITY_SHA256_X16_H
#define E2VERITY_SHA256_X16_H

#include "core.h"
#include "sha256_x2.h"

/* messages one call hashes at most: one per 32-bit lane of a 512-bit vector */
#define E2V_SHA256_X16_LANES 16

/* 1 if this CPU has AVX-512F/BW/VL and the OS saves the ZMM registers */
int e2v_sha256_x16_usable(void);
/* the state after @first_block (64 bytes), or the initial state if it is NULL; any CPU */
void e2v_sha256_x16_init(struct e2v_sha256_mid *mid, const uint8_t *first_block);
/*
 * SHA-256 of the prefix of @mid and @len bytes (a multiple of 64) of each of
 * @data[0..n-1] (n 1..16) into @out[0..n-1] (32 bytes each), with AVX-512:
 * only where e2v_sha256_x16_usable().
 */
void e2v_sha256_x16(const struct e2v_sha256_mid *mid, const void *const data[], unsigned int n,
		    size_t len, uint8_t *const out[]);
/* the same in portable C, on any CPU: slow, for the unit test */
void e2v_sha256_x16_generic(const struct e2v_sha256_mid *mid, const void *const data[],
			    unsigned int n, size_t len, uint8_t *const out[]);

#endif /* E2VERITY_SHA256_X16_H */
