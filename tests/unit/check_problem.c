// SPDX-License-Identifier: GPL-2.0-or-later
/* check_problem.c - unit tests of lib/core/problem.c: the problem table and message templates */
#include <ctype.h>

#include "unit.h"

START_TEST(test_table_sorted_unique)
{
	size_t n;
	const struct e2verity_problem *t = e2verity_problem_table(&n);

	ck_assert_uint_ge(n, 30);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(i == 0 || t[i - 1].code < t[i].code, "row %zu out of order", i);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(t[k].id, t[i].id);
		/* ids are stable identifiers: upper case, digits, underscores */
		for (const char *p = t[i].id; *p; p++)
			ck_assert_msg(isupper((unsigned char)*p) || isdigit((unsigned char)*p) ||
					      *p == '_',
				      "bad id %s", t[i].id);
		ck_assert(t[i].severity == E2VERITY_SEV_ERROR ||
			  t[i].severity == E2VERITY_SEV_WARNING);
		ck_assert_ptr_eq(e2verity_problem_lookup(t[i].code), &t[i]);
		ck_assert_ptr_eq(e2verity_problem_by_id(t[i].id), &t[i]);
		/* every placeholder is one the formatter knows */
		for (const char *p = t[i].message; *p; p++) {
			if (*p != '%')
				continue;
			p++;
			ck_assert_msg(*p && strchr("vhxobnlSCEe%", *p), "%s: bad placeholder",
				      t[i].id);
		}
	}
}
END_TEST

/* a row's fields are exactly what its template prints: structured output shows the same */
START_TEST(test_fields_match_template)
{
	static const struct {
		char placeholder;
		unsigned int field;
	} map[] = {
		{ 'v', E2VERITY_FIELD_VALUE },	       { 'h', E2VERITY_FIELD_VALUE },
		{ 'x', E2VERITY_FIELD_EXPECTED },      { 'o', E2VERITY_FIELD_OFFSET },
		{ 'b', E2VERITY_FIELD_BLOCK },	       { 'n', E2VERITY_FIELD_COUNT },
		{ 'l', E2VERITY_FIELD_LEVEL },	       { 'S', E2VERITY_FIELD_STORED },
		{ 'C', E2VERITY_FIELD_COMPUTED },      { 'e', E2VERITY_FIELD_ERR },
		{ 'E', E2VERITY_FIELD_EXPECTED_HASH },
	};
	size_t n;
	const struct e2verity_problem *t = e2verity_problem_table(&n);

	for (size_t i = 0; i < n; i++) {
		unsigned int printed = 0;

		for (const char *p = t[i].message; *p; p++) {
			if (*p != '%' || !p[1])
				continue;
			p++;
			for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
				if (map[k].placeholder == *p)
					printed |= map[k].field;
		}
		ck_assert_msg(printed == t[i].fields, "%s: fields 0x%x, template prints 0x%x",
			      t[i].id, t[i].fields, printed);
	}
}
END_TEST

START_TEST(test_lookup_unknown)
{
	ck_assert_ptr_null(e2verity_problem_lookup(0));
	ck_assert_ptr_null(e2verity_problem_lookup(0x0400));
	ck_assert_ptr_null(e2verity_problem_lookup(0xffff));
	ck_assert_ptr_null(e2verity_problem_by_id("NO_SUCH_PROBLEM"));
	ck_assert_ptr_null(e2verity_problem_by_id(""));
}
END_TEST

/* codes are an interface: these numbers must never change */
START_TEST(test_stable_codes)
{
	ck_assert_str_eq(e2verity_problem_lookup(0x0101)->id, "NO_VERITY_FEATURE");
	ck_assert_str_eq(e2verity_problem_lookup(0x0201)->id, "SIZE_WORD_BAD");
	ck_assert_str_eq(e2verity_problem_lookup(0x0301)->id, "DESC_BAD_VERSION");
	ck_assert_str_eq(e2verity_problem_lookup(0x0401)->id, "DATA_MISMATCH");
	ck_assert_str_eq(e2verity_problem_lookup(0x0402)->id, "TREE_MISMATCH");
	ck_assert_str_eq(e2verity_problem_lookup(0x0504)->id, "UNSIGNED");
	ck_assert_str_eq(e2verity_problem_lookup(0x0505)->id, "SIG_NO_SIGNER");
	ck_assert_str_eq(e2verity_problem_lookup(0x010a)->id, "SIZE_TOO_LARGE");
	ck_assert_str_eq(e2verity_problem_lookup(0x010b)->id, "ENCRYPT_NO_FEATURE");
	ck_assert_str_eq(e2verity_problem_lookup(0x0209)->id, "TREE_PAST_DESCRIPTOR");
	ck_assert_str_eq(e2verity_problem_lookup(0x020a)->id, "TREE_HOLE");
	ck_assert_str_eq(e2verity_problem_lookup(0x020b)->id, "METADATA_NOT_OWN");
	ck_assert_str_eq(e2verity_severity_name(E2VERITY_SEV_ERROR), "error");
	ck_assert_str_eq(e2verity_severity_name(E2VERITY_SEV_WARNING), "warning");
}
END_TEST

START_TEST(test_format_values)
{
	struct e2verity_finding f = { 0 };
	char buf[512];
	size_t len;

	f.problem = e2verity_problem_lookup(E2VERITY_PR_DESC_BAD_DATA_SIZE);
	f.value = 18446744073709551615ULL;
	f.expected = 6;
	len = e2verity_finding_format(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "descriptor data_size 18446744073709551615 differs from i_size 6");
	ck_assert_uint_eq(len, strlen(buf));

	f.problem = e2verity_problem_lookup(E2VERITY_PR_SIZE_TOO_LARGE);
	f.value = 18446744073709551516ULL;
	f.expected = 17592186040320ULL;
	e2verity_finding_format(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf,
			 "i_size 18446744073709551516 exceeds 17592186040320, the largest size "
			 "a file of this filesystem can have");

	f.problem = e2verity_problem_lookup(E2VERITY_PR_NOT_REGULAR);
	f.value = 040755;
	e2verity_finding_format(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "has the verity flag but is not a regular file (mode 0x41ed)");
}
END_TEST

START_TEST(test_format_hashes_and_levels)
{
	struct e2verity_finding f = { 0 };
	char buf[512];

	f.problem = e2verity_problem_lookup(E2VERITY_PR_TREE_MISMATCH);
	f.level = 2;
	f.block = 7;
	f.count = 3;
	f.hash_size = 4;
	memcpy(f.stored, "\x01\x23\xab\xff", 4);
	memcpy(f.computed, "\x00\x00\x00\x10", 4);
	e2verity_finding_format(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "Merkle tree level 2 block 7 does not match its hash in the level "
			      "above: computed 00000010, stored 0123abff (3 blocks of level 2 "
			      "differ)");
}
END_TEST

START_TEST(test_format_error_message)
{
	struct e2verity_finding f = { 0 };
	char buf[512];

	f.problem = e2verity_problem_lookup(E2VERITY_PR_EXTENTS_UNREADABLE);
	f.err = E2VERITY_ET_CORRUPT;
	e2verity_finding_format(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "extent tree cannot be read: fs-verity metadata is corrupt");
}
END_TEST

/* like snprintf: truncated, terminated, and the full length returned */
START_TEST(test_format_truncates)
{
	struct e2verity_finding f = { 0 };
	char full[512], small[16];
	size_t len;

	f.problem = e2verity_problem_lookup(E2VERITY_PR_ROOT_MISMATCH);
	f.hash_size = 64;
	memset(f.stored, 0xaa, 64);
	len = e2verity_finding_format(&f, full, sizeof(full));
	ck_assert_uint_eq(len, strlen(full));
	memset(small, 'x', sizeof(small));
	ck_assert_uint_eq(e2verity_finding_format(&f, small, sizeof(small)), len);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert(strncmp(small, full, sizeof(small) - 1) == 0);
	ck_assert_uint_eq(e2verity_finding_format(&f, NULL, 0), len);
	/* a hash size beyond the buffers prints no hash rather than reading past them */
	f.hash_size = 1000;
	e2verity_finding_format(&f, full, sizeof(full));
	ck_assert_str_eq(full,
			 "top of the Merkle tree hashes to , but the descriptor's root hash is ");
}
END_TEST

static Suite *problem_suite(void)
{
	Suite *s = suite_create("problem");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_table_sorted_unique);
	tcase_add_test(tc, test_fields_match_template);
	tcase_add_test(tc, test_lookup_unknown);
	tcase_add_test(tc, test_stable_codes);
	tcase_add_test(tc, test_format_values);
	tcase_add_test(tc, test_format_hashes_and_levels);
	tcase_add_test(tc, test_format_error_message);
	tcase_add_test(tc, test_format_truncates);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(problem_suite());
}
