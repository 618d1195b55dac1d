// SPDX-License-Identifier: GPL-2.0-or-later
/* check_sha512_x8.c - unit tests of lib/core/sha512_x8.c: every lane against OpenSSL's SHA-512 */
#include "unit_sha.h"
#include "core/sha256_x16.h"
#include "core/sha512_x8.h"

static void x8_hash(int avx512, const uint8_t *salt_block, const void *const data[], unsigned int n,
		    size_t len, uint8_t *const out[])
{
	struct e2v_sha512_mid mid;

	e2v_sha512_x8_init(&mid, salt_block);
	(avx512 ? e2v_sha512_x8 : e2v_sha512_x8_generic)(&mid, data, n, len, out);
}

/* sha256_x16.c tells whether the CPU has AVX-512 */
static const struct unit_lanes x8 = {
	.name = "check_sha512_x8",
	.lanes = E2V_SHA512_X8_LANES,
	.digest_size = 64,
	.block_size = 128,
	.md = EVP_sha512,
	.usable = e2v_sha256_x16_usable,
	.hash = x8_hash,
};

/* the portable build too (_i 0): it proves the lanes, transposition and padding on any CPU */
START_TEST(test_against_openssl)
{
	unit_lanes_against_openssl(&x8, _i);
}
END_TEST

/* FIPS 180-2: the empty message is the padding block alone; "abc" padded is one block */
START_TEST(test_known_answers)
{
	uint8_t want[64], abc[128] = "abc";
	struct e2v_sha512_mid mid;

	unit_lanes_empty(&x8, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
			      "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
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

int main(void)
{
	return unit_run(unit_lanes_suite("sha512_x8", test_against_openssl, test_known_answers));
}
