// SPDX-License-Identifier: GPL-2.0-or-later
/* check_json.c - unit tests of src/output/json.c: string escaping, nesting and commas */
#include <stdio.h>
#include <string.h>

#include "output/json.h"
#include "unit.h"

/* what the writer produced, as a string: free() it */
static char *capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static const char *esc_input;

static void write_esc(FILE *f)
{
	cli_json_write_string(f, esc_input);
}

static void expect_escaped(const char *in, const char *want)
{
	char *got;

	esc_input = in;
	got = capture(write_esc);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_escapes)
{
	expect_escaped("", "\"\"");
	expect_escaped("/dir/sub/nested file", "\"/dir/sub/nested file\"");
	expect_escaped("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_escaped("tab\there\nnl", "\"tab\\there\\nnl\"");
	expect_escaped("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	/* valid UTF-8 passes through */
	expect_escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* file names are bytes: invalid UTF-8 becomes \u00XX, never raw */
	expect_escaped("\xff\xfe", "\"\\u00ff\\u00fe\"");
	expect_escaped("\xc3", "\"\\u00c3\"");			     /* truncated sequence */
	expect_escaped("\xc0\xaf", "\"\\u00c0\\u00af\"");	     /* overlong '/' */
	expect_escaped("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""); /* a surrogate */
	expect_escaped("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""); /* > U+10FFFF */
}
END_TEST

static void write_doc(FILE *f)
{
	struct cli_json j;

	cli_json_init(&j, f);
	cli_json_begin_object(&j, NULL);
	cli_json_string(&j, "image", "x.img");
	cli_json_begin_array(&j, "files");
	cli_json_begin_object(&j, NULL);
	cli_json_uint(&j, "inode", 12);
	cli_json_bool(&j, "signed", 0);
	cli_json_null(&j, "path");
	cli_json_begin_array(&j, "findings");
	cli_json_end_array(&j);
	cli_json_end_object(&j);
	cli_json_end_array(&j);
	cli_json_uint(&j, "big", 18446744073709551615ULL);
	cli_json_bool(&j, "ok", 1);
	cli_json_end_object(&j);
}

START_TEST(test_document)
{
	char *got = capture(write_doc);

	ck_assert_str_eq(got, "{\n"
			      "  \"image\": \"x.img\",\n"
			      "  \"files\": [\n"
			      "    {\n"
			      "      \"inode\": 12,\n"
			      "      \"signed\": false,\n"
			      "      \"path\": null,\n"
			      "      \"findings\": []\n"
			      "    }\n"
			      "  ],\n"
			      "  \"big\": 18446744073709551615,\n"
			      "  \"ok\": true\n"
			      "}\n");
	free(got);
}
END_TEST

/* nesting deeper than the writer tracks still closes back to the top */
static void write_deep(FILE *f)
{
	struct cli_json j;

	cli_json_init(&j, f);
	for (int i = 0; i < CLI_JSON_MAX_DEPTH + 2; i++)
		cli_json_begin_array(&j, NULL);
	for (int i = 0; i < CLI_JSON_MAX_DEPTH + 2; i++)
		cli_json_end_array(&j);
	ck_assert_int_eq(j.depth, 0);
	/* one close too many is ignored */
	cli_json_end_array(&j);
	ck_assert_int_eq(j.depth, 0);
}

START_TEST(test_deep_nesting)
{
	char *got = capture(write_deep);
	size_t len = strlen(got), open = 0, close = 0;

	for (const char *p = got; *p; p++) {
		open += *p == '[';
		close += *p == ']';
	}
	ck_assert_uint_eq(open, CLI_JSON_MAX_DEPTH + 2);
	ck_assert_uint_eq(close, CLI_JSON_MAX_DEPTH + 2);
	/* the document ended once, at the top, not when a too deep level closed */
	ck_assert_uint_ge(len, 2);
	ck_assert_str_eq(got + len - 2, "]\n");
	/* only the top level closes at indent 0, and it closes last */
	ck_assert_ptr_eq(strstr(got, "\n]"), got + len - 3);
	free(got);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_document);
	tcase_add_test(tc, test_deep_nesting);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(json_suite());
}
