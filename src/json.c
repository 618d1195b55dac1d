// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c - a small streaming JSON writer: escaping, nesting, commas */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"

void e2v_json_init(struct e2v_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* The length of a valid UTF-8 sequence at @s (no overlongs, no surrogates), or 0. */
static int e2v_utf8_len(const unsigned char *s)
{
	int n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int e2v_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		int n = e2v_utf8_len(s);

		if (!n)
			return 0;
		s += n;
	}
	return 1;
}

int e2v_utf8_seq(const char *s)
{
	return e2v_utf8_len((const unsigned char *)s);
}

void e2v_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n = e2v_utf8_len(s);

		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s, f);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (*s < 0x20 || *s == 0x7f || n == 0) {
			/* file names are bytes: a byte that is not UTF-8 is kept as U+00XX */
			fprintf(f, "\\u%04x", *s);
			n = 1;
		} else {
			fwrite(s, 1, n, f);
		}
		s += n ? n : 1;
	}
	fputc('"', f);
}

/*
 * The member count of the innermost level.  Levels deeper than the table
 * share its last slot: their commas may be off, but depth stays balanced.
 */
static int *e2v_json_count(struct e2v_json *j)
{
	return &j->count[(j->depth < E2V_JSON_MAX_DEPTH ? j->depth : E2V_JSON_MAX_DEPTH) - 1];
}

static void e2v_json_member(struct e2v_json *j, const char *key)
{
	if (j->depth > 0) {
		if ((*e2v_json_count(j))++)
			fputc(',', j->f);
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	if (key) {
		e2v_json_write_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void e2v_json_open(struct e2v_json *j, const char *key, char c)
{
	e2v_json_member(j, key);
	fputc(c, j->f);
	/* every open counts, or a close too many would climb out of the table */
	j->depth++;
	if (j->depth <= E2V_JSON_MAX_DEPTH)
		*e2v_json_count(j) = 0;
}

static void e2v_json_close(struct e2v_json *j, char c)
{
	int had;

	if (j->depth == 0)
		return;
	had = *e2v_json_count(j);
	j->depth--;
	if (had) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void e2v_json_begin_object(struct e2v_json *j, const char *key)
{
	e2v_json_open(j, key, '{');
}

void e2v_json_end_object(struct e2v_json *j)
{
	e2v_json_close(j, '}');
}

void e2v_json_begin_array(struct e2v_json *j, const char *key)
{
	e2v_json_open(j, key, '[');
}

void e2v_json_end_array(struct e2v_json *j)
{
	e2v_json_close(j, ']');
}

void e2v_json_string(struct e2v_json *j, const char *key, const char *value)
{
	e2v_json_member(j, key);
	e2v_json_write_string(j->f, value);
}

void e2v_json_uint(struct e2v_json *j, const char *key, uint64_t value)
{
	e2v_json_member(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void e2v_json_bool(struct e2v_json *j, const char *key, int value)
{
	e2v_json_member(j, key);
	fputs(value ? "true" : "false", j->f);
}

void e2v_json_null(struct e2v_json *j, const char *key)
{
	e2v_json_member(j, key);
	fputs("null", j->f);
}
