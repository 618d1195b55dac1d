/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h - a small streaming JSON writer for the commands' --json output */
#ifndef E2VERITY_JSON_H
#define E2VERITY_JSON_H

#include <stdint.h>
#include <stdio.h>

#define E2V_JSON_MAX_DEPTH 16

struct e2v_json {
	FILE *f;
	int depth;
	int count[E2V_JSON_MAX_DEPTH]; /* members written so far at each depth */
};

/*
 * Every call takes the member name @key inside an object, and NULL inside an
 * array or for the top-level value.  Output is indented, one member per line.
 */
void e2v_json_init(struct e2v_json *j, FILE *f);
void e2v_json_begin_object(struct e2v_json *j, const char *key);
void e2v_json_end_object(struct e2v_json *j);
void e2v_json_begin_array(struct e2v_json *j, const char *key);
void e2v_json_end_array(struct e2v_json *j);
void e2v_json_string(struct e2v_json *j, const char *key, const char *value);
void e2v_json_uint(struct e2v_json *j, const char *key, uint64_t value);
void e2v_json_bool(struct e2v_json *j, const char *key, int value);
void e2v_json_null(struct e2v_json *j, const char *key);

/* Writes @s as a JSON string literal: quotes, escapes, and invalid UTF-8 bytes as \u00XX. */
void e2v_json_write_string(FILE *f, const char *s);

/* 1 if @s is valid UTF-8 (no overlongs, no surrogates) */
int e2v_utf8_valid(const char *s);
/* the length of the valid UTF-8 sequence at @s, or 0 */
int e2v_utf8_seq(const char *s);

#endif /* E2VERITY_JSON_H */
