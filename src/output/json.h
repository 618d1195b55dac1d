/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h - a small streaming JSON writer for the commands' --json output */
#ifndef E2VERITY_JSON_H
#define E2VERITY_JSON_H

#include <stdint.h>
#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 16

struct cli_json {
	FILE *f;
	int depth;
	int count[CLI_JSON_MAX_DEPTH]; /* members written so far at each depth */
};

/*
 * Every call takes the member name @key inside an object, and NULL inside an
 * array or for the top-level value.  Output is indented, one member per line.
 */
void cli_json_init(struct cli_json *j, FILE *f);
void cli_json_begin_object(struct cli_json *j, const char *key);
void cli_json_end_object(struct cli_json *j);
void cli_json_begin_array(struct cli_json *j, const char *key);
void cli_json_end_array(struct cli_json *j);
void cli_json_string(struct cli_json *j, const char *key, const char *value);
void cli_json_uint(struct cli_json *j, const char *key, uint64_t value);
void cli_json_bool(struct cli_json *j, const char *key, int value);
void cli_json_null(struct cli_json *j, const char *key);

/* Writes @s as a JSON string literal: quotes, escapes, and invalid UTF-8 bytes as \u00XX. */
void cli_json_write_string(FILE *f, const char *s);

/* 1 if @s is valid UTF-8 (no overlongs, no surrogates) */
int cli_utf8_valid(const char *s);
/* the length of the valid UTF-8 sequence at @s, or 0 */
int cli_utf8_seq(const char *s);

#endif /* E2VERITY_JSON_H */
