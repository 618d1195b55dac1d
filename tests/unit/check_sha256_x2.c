// SPDX-License-Identifier: GPL-2.0-or-later
/* check_sha256_x2.c - unit tests of lib/core/sha256_x2.c: each lane against OpenSSL's SHA-256 */
#include "unit_sha.h"
#include "core/sha256_x2.h"

/*
 * Every length a Merkle block can have (and the odd multiples of 64 between
 * the small ones), every salt length fs-verity allows, both lanes, with the
 * lanes holding different data, equal data, and data at unaligned addresses.
 */
START_TEST(test_against_openssl)
{
	enum { MAX = 65536 };
	uint8_t *a = malloc(MAX + 1), *b = malloc(MAX + 1);
	uint8_t salt[E2VERITY_MAX_SALT_SIZE], block[64];
	uint8_t want_a[32], want_b[32], got_a[32], got_b[32];
	struct e2v_sha256_mid mid;

	if (!e2v_sha256_ni_usable()) {
		printf("check_sha256_x2: no SHA extensions on this CPU, nothing to compare\n");
		free(a);
		free(b);
		return;
	}
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	unit_fill(salt, sizeof(salt), 7);
	for (unsigned int salt_size = 0; salt_size <= E2VERITY_MAX_SALT_SIZE; salt_size++) {
		memset(block, 0, sizeof(block));
		memcpy(block, salt, salt_size);
		e2v_sha256_ni_init(&mid, salt_size ? block : NULL);
		for (size_t len = 0; len <= MAX; len = len < 1024 ? len + 64 : len * 2) {
			for (int shift = 0; shift < 2; shift++) {
				const uint8_t *pa = a + shift, *pb = b + !shift;
				const uint8_t *sb = salt_size ? block : NULL;

				unit_fill(a, MAX + 1, len + salt_size);
				unit_fill(b, MAX + 1, ~(uint32_t)(len * 3 + salt_size));
				unit_ref_digest(EVP_sha256(), sb, 64, pa, len, want_a);
				unit_ref_digest(EVP_sha256(), sb, 64, pb, len, want_b);
				e2v_sha256_ni_x1(&mid, pa, len, got_a);
				ck_assert_mem_eq(got_a, want_a, 32);
				e2v_sha256_ni_x2(&mid, pa, pb, len, got_a, got_b);
				ck_assert_mem_eq(got_a, want_a, 32);
				ck_assert_mem_eq(got_b, want_b, 32);
				e2v_sha256_ni_x2(&mid, pb, pb, len, got_a, got_b);
				ck_assert_mem_eq(got_a, want_b, 32);
				ck_assert_mem_eq(got_b, want_b, 32);
			}
		}
	}
	free(a);
	free(b);
}
END_TEST

/* FIPS 180-2: the empty message, and the one-block state matches a full padded "abc" */
START_TEST(test_known_answers)
{
	struct e2v_sha256_mid mid;
	uint8_t out[32], want[32];

	if (!e2v_sha256_ni_usable())
		return;
	e2v_sha256_ni_init(&mid, NULL);
	e2v_sha256_ni_x1(&mid, "", 0, out);
	unit_hex2bin("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", want, 32);
	ck_assert_mem_eq(out, want, 32);
}
END_TEST

static Suite *sha256_x2_suite(void)
{
	Suite *s = suite_create("sha256_x2");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_against_openssl);
	tcase_add_test(tc, test_known_answers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(sha256_x2_suite());
}
