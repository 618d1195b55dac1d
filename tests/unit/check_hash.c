// SPDX-License-Identifier: GPL-2.0-or-later
/* check_hash.c - unit tests of lib/core/hash.c: algorithms, plain and salted block hashes */
#include "unit.h"
#include "core/hash.h"

START_TEST(test_alg_lookup)
{
	const struct e2verity_hash_alg *a;

	a = e2verity_hash_alg_by_name("sha256");
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->num, E2VERITY_HASH_SHA256);
	ck_assert_uint_eq(a->digest_size, 32);
	ck_assert_uint_eq(a->block_size, 64);
	a = e2verity_hash_alg_by_num(E2VERITY_HASH_SHA512);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->name, "sha512");
	ck_assert_uint_eq(a->digest_size, 64);
	ck_assert_uint_eq(a->block_size, 128);
	ck_assert_ptr_null(e2verity_hash_alg_by_name("md5"));
	ck_assert_ptr_null(e2verity_hash_alg_by_name("SHA256"));
	ck_assert_ptr_null(e2verity_hash_alg_by_num(0));
	ck_assert_ptr_null(e2verity_hash_alg_by_num(3));
}
END_TEST

/* FIPS 180-2 example "abc" */
START_TEST(test_hash_buf_fips)
{
	uint8_t out[64], want[64];

	ck_assert_int_eq(e2verity_hash_buf(E2VERITY_HASH_SHA256, "abc", 3, out), 0);
	unit_hex2bin("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want, 32);
	ck_assert_mem_eq(out, want, 32);
	ck_assert_int_eq(e2verity_hash_buf(E2VERITY_HASH_SHA512, "abc", 3, out), 0);
	unit_hex2bin("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
		     want, 64);
	ck_assert_mem_eq(out, want, 64);
	ck_assert_int_eq(e2verity_hash_buf(7, "abc", 3, out), E2VERITY_ET_BAD_HASH_ALG);
}
END_TEST

/*
 * A file of one block has no tree: its root hash is the salted hash of the
 * zero-padded block.  Vectors from fsverity-utils v1.5:
 *   printf 'hello\n' > h
 *   fsverity digest [--salt=0102] --out-descriptor=d h; xxd -s 16 -l 32 -p d
 */
static void hash_hello_block(const uint8_t *salt, unsigned int salt_size, const char *want_hex)
{
	struct e2verity_hasher *h, *dup;
	uint8_t block[4096] = "hello\n", out[32], want[32];

	unit_hex2bin(want_hex, want, 32);
	ck_assert_int_eq(e2v_hasher_new(E2VERITY_HASH_SHA256, salt, salt_size, &h), 0);
	/* twice, to show the salted state is reused, not consumed */
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(e2v_hasher_block(h, block, sizeof(block), out), 0);
		ck_assert_mem_eq(out, want, 32);
	}
	ck_assert_int_eq(e2v_hasher_dup(h, &dup), 0);
	e2v_hasher_free(h);
	ck_assert_int_eq(e2v_hasher_block(dup, block, sizeof(block), out), 0);
	ck_assert_mem_eq(out, want, 32);
	e2v_hasher_free(dup);
}

START_TEST(test_block_unsalted)
{
	hash_hello_block(NULL, 0,
			 "c173bcc93e6de18149b1c53a28b85e7a4f2f8fa61b7f6d8ff6998f4442e8e7c1");
}
END_TEST

START_TEST(test_block_salted)
{
	static const uint8_t salt[] = { 0x01, 0x02 };

	hash_hello_block(salt, sizeof(salt),
			 "0c3ca9b784b7d8d11421c0c04647edc0e24da1fcbe6448a615ecc0a6c9676caa");
}
END_TEST

START_TEST(test_hasher_errors)
{
	struct e2verity_hasher *h = (void *)1;
	uint8_t salt[33] = { 0 };

	ck_assert_int_eq(e2v_hasher_new(9, NULL, 0, &h), E2VERITY_ET_BAD_HASH_ALG);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(e2v_hasher_new(E2VERITY_HASH_SHA256, salt, 33, &h),
			 E2VERITY_ET_SALT_TOO_LONG);
	ck_assert_ptr_null(h);
	e2v_hasher_free(NULL);
}
END_TEST

/* OpenSSL's digest of the salt zero-padded to the block size, then @len bytes of @data */
static void ref_digest(const char *md_name, const uint8_t *salt, unsigned int salt_size,
		       const uint8_t *data, size_t len, uint8_t *out)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	const EVP_MD *md = EVP_get_digestbyname(md_name);
	uint8_t padded[128] = { 0 };

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(md);
	ck_assert_int_eq(EVP_DigestInit_ex(c, md, NULL), 1);
	memcpy(padded, salt, salt_size);
	if (salt_size)
		ck_assert_int_eq(EVP_DigestUpdate(c, padded, EVP_MD_get_block_size(md)), 1);
	ck_assert_int_eq(EVP_DigestUpdate(c, data, len), 1);
	ck_assert_int_eq(EVP_DigestFinal_ex(c, out, NULL), 1);
	EVP_MD_CTX_free(c);
}

/*
 * e2v_hasher_many() on runs of 1..40 blocks (whole batches and every
 * remainder) gives OpenSSL's digests, on whichever path E2VERITY_HASH and the
 * CPU choose (the test suite runs it with openssl, x16 and the default).
 */
static void many_vs_openssl(unsigned int alg, unsigned int salt_size, size_t len,
			    const uint8_t *buf)
{
	enum { MAX = 40 };
	static const uint8_t salt[32] = { 1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37 };
	const char *name = alg == E2VERITY_HASH_SHA256 ? "SHA256" : "SHA512";
	unsigned int ds = alg == E2VERITY_HASH_SHA256 ? 32 : 64;
	uint8_t got[MAX][64], want[64], *out[MAX];
	struct e2verity_hasher *h;
	const void *blocks[MAX];

	ck_assert_int_eq(e2v_hasher_new(alg, salt, salt_size, &h), 0);
	for (unsigned int n = 1; n <= MAX; n++) {
		/* unaligned, and in no order */
		for (unsigned int i = 0; i < n; i++) {
			blocks[i] = buf + 1 + ((i * 7) % MAX) * len;
			out[i] = got[i];
		}
		ck_assert_int_eq(e2v_hasher_many(h, blocks, n, len, out), 0);
		for (unsigned int i = 0; i < n; i++) {
			ref_digest(name, salt, salt_size, blocks[i], len, want);
			if (memcmp(got[i], want, ds))
				ck_abort_msg("%s, salt %u, %zu bytes: block %u of %u wrong", name,
					     salt_size, len, i, n);
		}
	}
	e2v_hasher_free(h);
}

/*
 * e2v_hasher_many() on runs of 1..40 blocks (whole batches and every
 * remainder) gives OpenSSL's digests, on whichever path E2VERITY_HASH and the
 * CPU choose (the test suite runs it with openssl, x16 and the default).
 */
START_TEST(test_hasher_many)
{
	uint8_t *buf = malloc(40 * 4096 + 1);

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < 40 * 4096 + 1; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 11);
	for (unsigned int alg = E2VERITY_HASH_SHA256; alg <= E2VERITY_HASH_SHA512; alg++)
		for (unsigned int salt_size = 0; salt_size <= 32; salt_size += 32) {
			many_vs_openssl(alg, salt_size, 1024, buf);
			many_vs_openssl(alg, salt_size, 4096, buf);
		}
	free(buf);
}
END_TEST

static Suite *hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_alg_lookup);
	tcase_add_test(tc, test_hash_buf_fips);
	tcase_add_test(tc, test_block_unsalted);
	tcase_add_test(tc, test_block_salted);
	tcase_add_test(tc, test_hasher_errors);
	tcase_add_test(tc, test_hasher_many);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(hash_suite());
}
