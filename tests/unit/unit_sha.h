/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit_sha.h - what the SHA unit tests share: OpenSSL as the reference, and the test of many lanes
 */
#ifndef E2VERITY_UNIT_SHA_H
#define E2VERITY_UNIT_SHA_H

#include <openssl/evp.h>
#include <stdio.h>

#include "unit.h"
#include "core/core.h"

/* the most lanes and the largest digest of the hashes tested */
#define UNIT_SHA_LANES 16
#define UNIT_SHA_DIGEST 64

/* @len bytes of a pseudo-random sequence that @seed picks */
static inline void unit_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

/* OpenSSL's @md of the zero-padded salt block (if any, @block_size bytes) and @len bytes of @data
 */
static inline void unit_ref_digest(const EVP_MD *md, const uint8_t *salt_block,
				   unsigned int block_size, const uint8_t *data, size_t len,
				   uint8_t *out)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(EVP_DigestInit_ex(c, md, NULL), 1);
	if (salt_block)
		ck_assert_int_eq(EVP_DigestUpdate(c, salt_block, block_size), 1);
	ck_assert_int_eq(EVP_DigestUpdate(c, data, len), 1);
	ck_assert_int_eq(EVP_DigestFinal_ex(c, out, NULL), 1);
	EVP_MD_CTX_free(c);
}

/* A hash of many messages at once, one a vector lane (sha256_x16.c, sha512_x8.c). */
struct unit_lanes {
	const char *name; /* the test program's */
	unsigned int lanes, digest_size, block_size;
	const EVP_MD *(*md)(void);
	/* 1 if the AVX-512 build can run here */
	int (*usable)(void);
	/*
	 * The digests of @n messages of @len bytes (a multiple of block_size)
	 * after the salt block @salt_block (NULL: none), by the AVX-512 build
	 * or the portable one
	 */
	void (*hash)(int avx512, const uint8_t *salt_block, const void *const data[],
		     unsigned int n, size_t len, uint8_t *const out[]);
};

/* 0 if the AVX-512 build cannot run here, as the test's output says */
static inline int unit_lanes_runnable(const struct unit_lanes *t, int avx512)
{
	if (!avx512 || t->usable())
		return 1;
	printf("%s: no AVX-512F/BW/VL on this CPU (or the OS does not save its registers): only "
	       "the portable build tested\n",
	       t->name);
	return 0;
}

/*
 * Every lane count, every Merkle block length (and the multiples of the hash's
 * block below 1024), without and with a salt (short, and fs-verity's
 * longest), each lane its own data at its own unaligned address; the digests
 * of the lanes past @n must not be written.
 */
static inline void unit_lanes_against_openssl(const struct unit_lanes *t, int avx512)
{
	enum { MAX = 65536 };
	static const unsigned int salt_sizes[] = { 0, 5, E2VERITY_MAX_SALT_SIZE };
	const unsigned int lanes = t->lanes, ds = t->digest_size, bs = t->block_size;
	const char *build = avx512 ? "AVX-512" : "portable";
	uint8_t *buf = malloc(lanes * (MAX + lanes));
	uint8_t want[UNIT_SHA_LANES][UNIT_SHA_DIGEST], got[UNIT_SHA_LANES][UNIT_SHA_DIGEST];
	uint8_t block[128], canary[UNIT_SHA_DIGEST];
	const void *data[UNIT_SHA_LANES];
	uint8_t *out[UNIT_SHA_LANES];
	unsigned int checked = 0;

	if (!unit_lanes_runnable(t, avx512)) {
		free(buf);
		return;
	}
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_le(lanes, UNIT_SHA_LANES);
	ck_assert_uint_le(ds, UNIT_SHA_DIGEST);
	ck_assert_uint_le(bs, sizeof(block));
	memset(canary, 0xa5, sizeof(canary));
	for (unsigned int i = 0; i < lanes; i++) {
		data[i] = buf + i * (MAX + lanes) + i;
		out[i] = got[i];
	}
	for (size_t s = 0; s < E2V_ARRAY_SIZE(salt_sizes); s++) {
		unsigned int salt_size = salt_sizes[s];
		const uint8_t *sb = salt_size ? block : NULL;

		memset(block, 0, sizeof(block));
		unit_fill(block, salt_size, 7 + salt_size);
		for (size_t len = bs; len <= MAX; len = len < 1024 ? len + bs : len * 2) {
			unit_fill(buf, lanes * (MAX + lanes), len + salt_size);
			for (unsigned int i = 0; i < lanes; i++)
				unit_ref_digest(t->md(), sb, bs, data[i], len, want[i]);
			for (unsigned int n = 1; n <= lanes; n++) {
				memset(got, 0xa5, sizeof(got));
				t->hash(avx512, sb, data, n, len, out);
				for (unsigned int i = 0; i < lanes; i++) {
					if (i < n && memcmp(got[i], want[i], ds))
						ck_abort_msg("%s: %s: lane %u of %u, %zu bytes, "
							     "salt %u: "
							     "wrong digest",
							     t->name, build, i, n, len, salt_size);
					if (i >= n && memcmp(got[i], canary, ds))
						ck_abort_msg("%s: %s: lane %u of %u written",
							     t->name, build, i, n);
				}
				checked += n;
			}
		}
	}
	printf("%s: %s: %u digests equal to OpenSSL's\n", t->name, build, checked);
	free(buf);
}

/*
 * The suite of a lane hash: @against runs unit_lanes_against_openssl() for the
 * portable build (_i 0) and the AVX-512 one (_i 1); @known, its known answers.
 */
static inline Suite *unit_lanes_suite(const char *name, const TTest *against, const TTest *known)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, against, 0, 2);
	tcase_add_test(tc, known);
	suite_add_tcase(s, tc);
	return s;
}

/* FIPS 180-2: the empty message, the padding block alone, has digest @hex in both builds */
static inline void unit_lanes_empty(const struct unit_lanes *t, const char *hex)
{
	uint8_t out[UNIT_SHA_DIGEST], want[UNIT_SHA_DIGEST];
	const void *data[1] = { "" };
	uint8_t *outs[1] = { out };

	unit_hex2bin(hex, want, t->digest_size);
	for (int avx512 = 0; avx512 < 2; avx512++) {
		if (avx512 && !t->usable())
			break;
		memset(out, 0, sizeof(out));
		t->hash(avx512, NULL, data, 1, 0, outs);
		ck_assert_mem_eq(out, want, t->digest_size);
	}
}

#endif /* E2VERITY_UNIT_SHA_H */
