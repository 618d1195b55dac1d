// SPDX-License-Identifier: GPL-2.0-or-later
/* check_sha256_x16.c - unit tests of lib/core/sha256_x16.c: every lane against OpenSSL's SHA-256 */
#include "unit_sha.h"
#include "core/sha256_x16.h"

static void x16_hash(int avx512, const uint8_t *salt_block, const void *const data[],
		     unsigned int n, size_t len, uint8_t *const out[])
{
	struct e2v_sha256_mid mid;

	e2v_sha256_x16_init(&mid, salt_block);
	(avx512 ? e2v_sha256_x16 : e2v_sha256_x16_generic)(&mid, data, n, len, out);
}

static const struct unit_lanes x16 = {
	.name = "check_sha256_x16",
	.lanes = E2V_SHA256_X16_LANES,
	.digest_size = 32,
	.block_size = 64,
	.md = EVP_sha256,
	.usable = e2v_sha256_x16_usable,
	.hash = x16_hash,
};

/* the portable build too (_i 0): it proves the lanes, transposition and padding on any CPU */
START_TEST(test_against_openssl)
{
	unit_lanes_against_openssl(&x16, _i);
}
END_TEST

/* FIPS 180-2: the empty message is the padding block alone; "abc" padded is one block */
START_TEST(test_known_answers)
{
	uint8_t want[32], abc[64] = "abc";
	struct e2v_sha256_mid mid;

	unit_lanes_empty(&x16, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* the state after one block is the digest of a message that one block pads */
	abc[3] = 0x80;
	abc[63] = 24;
	e2v_sha256_x16_init(&mid, abc);
	ck_assert_uint_eq(mid.prefix, 64);
	unit_hex2bin("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want, 32);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(mid.h[i],
				  (uint32_t)want[4 * i] << 24 | (uint32_t)want[4 * i + 1] << 16 |
					  (uint32_t)want[4 * i + 2] << 8 | want[4 * i + 3]);
}
END_TEST

int main(void)
{
	return unit_run(unit_lanes_suite("sha256_x16", test_against_openssl, test_known_answers));
}
