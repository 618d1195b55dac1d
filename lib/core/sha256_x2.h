/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256_x2.h - internal: SHA-256 with the x86 SHA extensions, one or two messages at a time */
#ifndef E2VERITY_SHA256_X2_H
#define E2VERITY_SHA256_X2_H

#include "core.h"

/* SHA-256 with the x86 SHA extensions, one or two messages at a time */
struct e2v_sha256_mid {
	uint32_t h[8];	 /* state words after the prefix */
	uint64_t prefix; /* bytes absorbed: 0 or 64 (one padded salt block) */
};

/* SHA-256's initial state and round constants, for sha256_x16.c too */
extern const uint32_t e2v_sha256_iv[8];
extern const uint32_t e2v_sha256_k[64];

/* 1 if this CPU has the SHA extensions and SSE4.1 */
int e2v_sha256_ni_usable(void);
/* the state after @first_block (64 bytes), or the initial state if it is NULL */
void e2v_sha256_ni_init(struct e2v_sha256_mid *mid, const uint8_t *first_block);
/* SHA-256 of the prefix and @len bytes (a multiple of 64) of @data */
void e2v_sha256_ni_x1(const struct e2v_sha256_mid *mid, const void *data, size_t len, uint8_t *out);
/* the same for two messages of @len bytes, interleaved */
void e2v_sha256_ni_x2(const struct e2v_sha256_mid *mid, const void *d1, const void *d2, size_t len,
		      uint8_t *out1, uint8_t *out2);

#endif /* E2VERITY_SHA256_X2_H */
