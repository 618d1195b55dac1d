// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c - a small streaming JSON writer: escaping, nesting, commas */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output/json.h"

void cli_json_init(struct cli_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* The length of a valid UTF-8 sequence at @s (no overlongs, no surrogates), or 0. */
static int cli_utf8_len(const unsigned char *s)
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

int cli_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		int n = cli_utf8_len(s);

		if (!n)
			return 0;
		s += n;
	}
	return 1;
}

int cli_utf8_seq(const char *s)
{
	return cli_utf8_len((const unsigned char *)s);
}

void cli_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n = cli_utf8_len(s);

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
static int *cli_json_count(struct cli_json *j)
{
	return &j->count[(j->depth < CLI_JSON_MAX_DEPTH ? j->depth : CLI_JSON_MAX_DEPTH) - 1];
}

static void cli_json_key(struct cli_json *j, const char *key)
{
	if (j->depth > 0) {
		if ((*cli_json_count(j))++)
			fputc(',', j->f);
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	if (key) {
		cli_json_write_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void cli_json_open(struct cli_json *j, const char *key, char c)
{
	cli_json_key(j, key);
	fputc(c, j->f);
	/* every open counts, or a close too many would climb out of the table */
	j->depth++;
	if (j->depth <= CLI_JSON_MAX_DEPTH)
		*cli_json_count(j) = 0;
}

static void cli_json_close(struct cli_json *j, char c)
{
	int had;

	if (j->depth == 0)
		return;
	had = *cli_json_count(j);
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

void cli_json_begin_object(struct cli_json *j, const char *key)
{
	cli_json_open(j, key, '{');
}

void cli_json_end_object(struct cli_json *j)
{
	cli_json_close(j, '}');
}

void cli_json_begin_array(struct cli_json *j, const char *key)
{
	cli_json_open(j, key, '[');
}

void cli_json_end_array(struct cli_json *j)
{
	cli_json_close(j, ']');
}

void cli_json_string(struct cli_json *j, const char *key, const char *value)
{
	cli_json_key(j, key);
	cli_json_write_string(j->f, value);
}

void cli_json_uint(struct cli_json *j, const char *key, uint64_t value)
{
	cli_json_key(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void cli_json_bool(struct cli_json *j, const char *key, int value)
{
	cli_json_key(j, key);
	fputs(value ? "true" : "false", j->f);
}

void cli_json_null(struct cli_json *j, const char *key)
{
	cli_json_key(j, key);
	fputs("null", j->f);
}
