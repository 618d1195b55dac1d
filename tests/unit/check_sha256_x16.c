// SPDX-License-Identifier: GPL-2.0-or-later
/* check_sha256_x16.c - unit tests of lib/core/sha256_x16.c: every lane against OpenSSL's SHA-256 */
#include <openssl/evp.h>
#include <stdio.h>

#include "unit.h"
#include "core/sha256_x16.h"

typedef void x16_fn(const struct e2v_sha256_mid *mid, const void *const data[], unsigned int n,
		    size_t len, uint8_t *const out[]);

/* OpenSSL's SHA-256 of the zero-padded salt block (if any) followed by @len bytes of @data */
static void ref_sha256(const uint8_t *salt_block, const uint8_t *data, size_t len, uint8_t *out)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(EVP_DigestInit_ex(c, EVP_sha256(), NULL), 1);
	if (salt_block)
		ck_assert_int_eq(EVP_DigestUpdate(c, salt_block, 64), 1);
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
 * Every lane count 1..16, every Merkle block length (and the multiples of 64
 * below 1024), without and with a salt (short, and fs-verity's longest),
 * each lane its own data at its own unaligned address; the digests of the
 * lanes past @n must not be written.
 */
static void against_openssl(x16_fn *fn, const char *name)
{
	enum { LANES = E2V_SHA256_X16_LANES, MAX = 65536 };
	static const unsigned int salt_sizes[] = { 0, 5, E2VERITY_MAX_SALT_SIZE };
	uint8_t *buf = malloc(LANES * (MAX + LANES));
	uint8_t want[LANES][32], got[LANES][32], block[64];
	const void *data[LANES];
	uint8_t *out[LANES];
	struct e2v_sha256_mid mid;
	unsigned int checked = 0;

	ck_assert_ptr_nonnull(buf);
	for (unsigned int i = 0; i < LANES; i++) {
		data[i] = buf + i * (MAX + LANES) + i;
		out[i] = got[i];
	}
	for (size_t s = 0; s < E2V_ARRAY_SIZE(salt_sizes); s++) {
		unsigned int salt_size = salt_sizes[s];
		const uint8_t *sb = salt_size ? block : NULL;

		memset(block, 0, sizeof(block));
		fill(block, salt_size, 7 + salt_size);
		e2v_sha256_x16_init(&mid, sb);
		for (size_t len = 64; len <= MAX; len = len < 1024 ? len + 64 : len * 2) {
			fill(buf, LANES * (MAX + LANES), len + salt_size);
			for (unsigned int i = 0; i < LANES; i++)
				ref_sha256(sb, data[i], len, want[i]);
			for (unsigned int n = 1; n <= LANES; n++) {
				memset(got, 0xa5, sizeof(got));
				fn(&mid, data, n, len, out);
				for (unsigned int i = 0; i < LANES; i++) {
					uint8_t canary[32];

					memset(canary, 0xa5, sizeof(canary));
					if (i < n && memcmp(got[i], want[i], 32))
						ck_abort_msg("%s: lane %u of %u, %zu bytes, salt %u: wrong digest",
							     name, i, n, len, salt_size);
					if (i >= n && memcmp(got[i], canary, 32))
						ck_abort_msg("%s: lane %u of %u written", name, i, n);
				}
				checked += n;
			}
		}
	}
	printf("check_sha256_x16: %s: %u digests equal to OpenSSL's\n", name, checked);
	free(buf);
}

/* the portable build of the same code: proves the lanes, transposition and padding on any CPU */
START_TEST(test_generic_against_openssl)
{
	against_openssl(e2v_sha256_x16_generic, "portable");
}
END_TEST

START_TEST(test_avx512_against_openssl)
{
	if (!e2v_sha256_x16_usable()) {
		printf("check_sha256_x16: no AVX-512F/BW/VL on this CPU (or the OS does not save its "
		       "registers): only the portable build tested\n");
		return;
	}
	against_openssl(e2v_sha256_x16, "AVX-512");
}
END_TEST

/* FIPS 180-2: the empty message is the padding block alone; "abc" padded is one block */
START_TEST(test_known_answers)
{
	uint8_t out[32], want[32], abc[64] = "abc";
	const void *data[1] = { "" };
	uint8_t *outs[1] = { out };
	struct e2v_sha256_mid mid;

	e2v_sha256_x16_init(&mid, NULL);
	e2v_sha256_x16_generic(&mid, data, 1, 0, outs);
	unit_hex2bin("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", want, 32);
	ck_assert_mem_eq(out, want, 32);
	if (e2v_sha256_x16_usable()) {
		memset(out, 0, sizeof(out));
		e2v_sha256_x16(&mid, data, 1, 0, outs);
		ck_assert_mem_eq(out, want, 32);
	}
	/* the state after one block is the digest of a message that one block pads */
	abc[3] = 0x80;
	abc[63] = 24;
	e2v_sha256_x16_init(&mid, abc);
	ck_assert_uint_eq(mid.prefix, 64);
	unit_hex2bin("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want, 32);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(mid.h[i], (uint32_t)want[4 * i] << 24 | (uint32_t)want[4 * i + 1] << 16 |
						    (uint32_t)want[4 * i + 2] << 8 | want[4 * i + 3]);
}
END_TEST

static Suite *sha256_x16_suite(void)
{
	Suite *s = suite_create("sha256_x16");
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
	return unit_run(sha256_x16_suite());
}
