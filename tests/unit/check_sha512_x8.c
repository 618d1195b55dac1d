// SPDX-License-Identifier: GPL-2.0-or-later
/* check_sha512_x8.c - unit tests of lib/core/sha512_x8.c: every lane against OpenSSL's SHA-512 */
#include <openssl/evp.h>
#include <stdio.h>

#include "unit.h"
#include "core/sha256_x16.h"
#include "core/sha512_x8.h"

typedef void x8_fn(const struct e2v_sha512_mid *mid, const void *const data[], unsigned int n,
		   size_t len, uint8_t *const out[]);

/* OpenSSL's SHA-512 of the zero-padded salt block (if any) followed by @len bytes of @data */
static void ref_sha512(const uint8_t *salt_block, const uint8_t *data, size_t len, uint8_t *out)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(EVP_DigestInit_ex(c, EVP_sha512(), NULL), 1);
	if (salt_block)
		ck_assert_int_eq(EVP_DigestUpdate(c, salt_block, 128), 1);
	ck_assert_int_eq(EVP_DigestUpdate(c, data, len), 1);
	ck_assert_int_eq(EVP_DigestFinal_ex(c, out, NULL), 1);
	EVP_MD_CTX_free(c);
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

/*
 * Every lane count 1..8, every Merkle block length (and the multiples of 128
 * below 1024), without and with a salt, each lane its own data at its own
 * unaligned address; the digests of the lanes past @n must not be written.
 */
static void against_openssl(x8_fn *fn, const char *name)
{
	enum { LANES = E2V_SHA512_X8_LANES, MAX = 65536 };
	static const unsigned int salt_sizes[] = { 0, 5, E2VERITY_MAX_SALT_SIZE };
	uint8_t *buf = malloc(LANES * (MAX + LANES));
	uint8_t want[LANES][64], got[LANES][64], block[128], canary[64];
	const void *data[LANES];
	uint8_t *out[LANES];
	struct e2v_sha512_mid mid;
	unsigned int checked = 0;

	ck_assert_ptr_nonnull(buf);
	memset(canary, 0xa5, sizeof(canary));
	for (unsigned int i = 0; i < LANES; i++) {
		data[i] = buf + i * (MAX + LANES) + i;
		out[i] = got[i];
	}
	for (size_t s = 0; s < E2V_ARRAY_SIZE(salt_sizes); s++) {
		unsigned int salt_size = salt_sizes[s];
		const uint8_t *sb = salt_size ? block : NULL;

		memset(block, 0, sizeof(block));
		fill(block, salt_size, 7 + salt_size);
		e2v_sha512_x8_init(&mid, sb);
		for (size_t len = 128; len <= MAX; len = len < 1024 ? len + 128 : len * 2) {
			fill(buf, LANES * (MAX + LANES), len + salt_size);
			for (unsigned int i = 0; i < LANES; i++)
				ref_sha512(sb, data[i], len, want[i]);
			for (unsigned int n = 1; n <= LANES; n++) {
				memset(got, 0xa5, sizeof(got));
				fn(&mid, data, n, len, out);
				for (unsigned int i = 0; i < LANES; i++) {
					if (i < n && memcmp(got[i], want[i], 64))
						ck_abort_msg("%s: lane %u of %u, %zu bytes, salt %u: wrong",
							     name, i, n, len, salt_size);
					if (i >= n && memcmp(got[i], canary, 64))
						ck_abort_msg("%s: lane %u of %u written", name, i, n);
				}
				checked += n;
			}
		}
	}
	printf("check_sha512_x8: %s: %u digests equal to OpenSSL's\n", name, checked);
	free(buf);
}

/* the portable build of the same code: proves the lanes, transposition and padding on any CPU */
START_TEST(test_generic_against_openssl)
{
	against_openssl(e2v_sha512_x8_generic, "portable");
}
END_TEST

START_TEST(test_avx512_against_openssl)
{
	if (!e2v_sha256_x16_usable()) {
		printf("check_sha512_x8: no AVX-512F/BW/VL on this CPU (or the OS does not save its "
		       "registers): only the portable build tested\n");
		return;
	}
	against_openssl(e2v_sha512_x8, "AVX-512");
}
END_TEST

/* FIPS 180-2: the empty message is the padding block alone; "abc" padded is one block */
START_TEST(test_known_answers)
{
	uint8_t out[64], want[64], abc[128] = "abc";
	const void *data[1] = { "" };
	uint8_t *outs[1] = { out };
	struct e2v_sha512_mid mid;

	e2v_sha512_x8_init(&mid, NULL);
	e2v_sha512_x8_generic(&mid, data, 1, 0, outs);
	unit_hex2bin("cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
		     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
		     want, 64);
	ck_assert_mem_eq(out, want, 64);
	if (e2v_sha256_x16_usable()) {
		memset(out, 0, sizeof(out));
		e2v_sha512_x8(&mid, data, 1, 0, outs);
		ck_assert_mem_eq(out, want, 64);
	}
	/* the state after one block is the digest of a message that one block pads */
	abc[3] = 0x80;
	abc[127] = 24;
	e2v_sha512_x8_init(&mid, abc);
	ck_assert_uint_eq(mid.prefix, 128);
	unit_hex2bin("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
		     want, 64);
	for (int i = 0; i < 8; i++) {
		uint64_t v = 0;

		for (int k = 0; k < 8; k++)
			v = v << 8 | want[8 * i + k];
		ck_assert_uint_eq(mid.h[i], v);
	}
}
END_TEST

static Suite *sha512_x8_suite(void)
{
	Suite *s = suite_create("sha512_x8");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_generic_against_openssl);
	tcase_add_test(tc, test_avx512_against_openssl);
	tcase_add_test(tc, test_known_answers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(sha512_x8_suite());
}
