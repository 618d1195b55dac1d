// SPDX-License-Identifier: GPL-2.0-or-later
/* check_descriptor.c - unit tests of lib/core/descriptor.c: encoding, validation, digests */
#include "unit.h"

/*
 * printf 'hello\n' > h; fsverity digest --salt=0102 --out-descriptor=d h
 *   -> sha256:488fe1786dafba002551d7ff39293658b4922d1d49b264f652c5f99a298f798a
 * xxd -p -c 256 d   (fsverity-utils v1.5)
 */
static const char hello_desc_hex[] =
	"01010c020000000006000000000000000c3ca9b784b7d8d11421c0c04647edc0"
	"e24da1fcbe6448a615ecc0a6c9676caa00000000000000000000000000000000"
	"0000000000000000000000000000000001020000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000";
static const char hello_digest_hex[] =
	"488fe1786dafba002551d7ff39293658b4922d1d49b264f652c5f99a298f798a";

static void load_hello(uint8_t *raw)
{
	unit_hex2bin(hello_desc_hex, raw, E2VERITY_DESCRIPTOR_SIZE);
}

START_TEST(test_decode_fsverity_descriptor)
{
	uint8_t raw[256], again[256], digest[32], want[32];
	struct e2verity_descriptor d;

	load_hello(raw);
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw), &d), 0);
	ck_assert_uint_eq(d.version, 1);
	ck_assert_uint_eq(d.hash_algorithm, E2VERITY_HASH_SHA256);
	ck_assert_uint_eq(d.log_blocksize, 12);
	ck_assert_uint_eq(d.salt_size, 2);
	ck_assert_uint_eq(d.sig_size, 0);
	ck_assert_uint_eq(d.data_size, 6);
	ck_assert_uint_eq(d.salt[0], 1);
	ck_assert_uint_eq(d.salt[1], 2);
	e2verity_descriptor_encode(&d, again);
	ck_assert_mem_eq(raw, again, sizeof(raw));
	ck_assert_int_eq(e2verity_descriptor_digest(&d, digest), 0);
	unit_hex2bin(hello_digest_hex, want, 32);
	ck_assert_mem_eq(digest, want, 32);
}
END_TEST

/* The signature size is stored but not hashed: a signed file has the same digest. */
START_TEST(test_digest_ignores_sig_size)
{
	uint8_t raw[256 + 100] = { 0 }, digest[32], want[32];
	struct e2verity_descriptor d;

	load_hello(raw);
	raw[4] = 100; /* le32 sig_size */
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw), &d), 0);
	ck_assert_uint_eq(d.sig_size, 100);
	ck_assert_int_eq(e2verity_descriptor_digest(&d, digest), 0);
	unit_hex2bin(hello_digest_hex, want, 32);
	ck_assert_mem_eq(digest, want, 32);
	/* but it must fit in what follows the descriptor */
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw) - 1, &d),
			 E2VERITY_ET_DESC_SIG_SIZE);
}
END_TEST

struct corruption {
	unsigned int offset;
	uint8_t value;
	errcode_t want;
};

static const struct corruption corruptions[] = {
	{ 0, 2, E2VERITY_ET_DESC_VERSION },	  { 0, 0, E2VERITY_ET_DESC_VERSION },
	{ 1, 0, E2VERITY_ET_DESC_HASH_ALG },	  { 1, 3, E2VERITY_ET_DESC_HASH_ALG },
	{ 2, 9, E2VERITY_ET_DESC_LOG_BLOCKSIZE }, { 2, 17, E2VERITY_ET_DESC_LOG_BLOCKSIZE },
	{ 3, 33, E2VERITY_ET_DESC_SALT_SIZE },	  { 4, 1, E2VERITY_ET_DESC_SIG_SIZE },
	{ 7, 0x80, E2VERITY_ET_DESC_SIG_SIZE },	  { 112, 1, E2VERITY_ET_DESC_RESERVED },
	{ 255, 0x80, E2VERITY_ET_DESC_RESERVED },
};

START_TEST(test_each_field_rejected)
{
	const struct corruption *c = &corruptions[_i];
	struct e2verity_descriptor d;
	uint8_t raw[256];

	load_hello(raw);
	raw[c->offset] = c->value;
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw), &d), c->want);
}
END_TEST

START_TEST(test_sizes_rejected)
{
	static uint8_t raw[E2VERITY_MAX_DESCRIPTOR_SIZE + 1];
	struct e2verity_descriptor d;

	load_hello(raw);
	ck_assert_int_eq(e2verity_descriptor_decode(raw, 255, &d), E2VERITY_ET_DESC_TOO_SHORT);
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw), &d),
			 E2VERITY_ET_DESC_TOO_LARGE);
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw) - 1, &d), 0);
}
END_TEST

START_TEST(test_too_many_levels_rejected)
{
	struct e2verity_descriptor d;
	uint8_t raw[256];

	load_hello(raw);
	raw[1] = E2VERITY_HASH_SHA512;
	raw[2] = 10;
	raw[15] = 0x7f; /* data_size near 2^63: more than 8 levels of 16-way 1K blocks */
	ck_assert_int_eq(e2verity_descriptor_decode(raw, sizeof(raw), &d),
			 E2VERITY_ET_DESC_TOO_MANY_LEVELS);
}
END_TEST

/*
 * printf 'hello\n' > h; fsverity digest --hash-alg=sha512 --compact --for-builtin-sig h
 */
START_TEST(test_formatted_digest)
{
	uint8_t digest[64], out[E2VERITY_FORMATTED_DIGEST_MAX], want[76];
	size_t len;

	unit_hex2bin("21fe275216d7dafb8afa8f8257ae96215b74c1dad980238e6fdbbd0c41a44adb"
		     "8d3e1f95c7e3dad3e25037369d1c87dd107ceb7eb9c9c868eb2b18b57ddd4125",
		     digest, 64);
	unit_hex2bin("465356657269747902004000"
		     "21fe275216d7dafb8afa8f8257ae96215b74c1dad980238e6fdbbd0c41a44adb"
		     "8d3e1f95c7e3dad3e25037369d1c87dd107ceb7eb9c9c868eb2b18b57ddd4125",
		     want, 76);
	ck_assert_int_eq(e2verity_formatted_digest(E2VERITY_HASH_SHA512, digest, out, &len), 0);
	ck_assert_uint_eq(len, 76);
	ck_assert_mem_eq(out, want, 76);
	ck_assert_int_eq(e2verity_formatted_digest(5, digest, out, &len), E2VERITY_ET_BAD_HASH_ALG);
}
END_TEST

static Suite *descriptor_suite(void)
{
	Suite *s = suite_create("descriptor");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_decode_fsverity_descriptor);
	tcase_add_test(tc, test_digest_ignores_sig_size);
	tcase_add_loop_test(tc, test_each_field_rejected, 0,
			    sizeof(corruptions) / sizeof(corruptions[0]));
	tcase_add_test(tc, test_sizes_rejected);
	tcase_add_test(tc, test_too_many_levels_rejected);
	tcase_add_test(tc, test_formatted_digest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(descriptor_suite());
}
