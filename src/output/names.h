/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.h - names of files as the commands print them and read them back: one escaping */
#ifndef E2VERITY_NAMES_H
#define E2VERITY_NAMES_H

#include <stdio.h>
#include <sys/types.h>
#include <et/com_err.h>

#include "output/json.h"

/*
 * A name as every command prints it, on standard output and in messages: a
 * backslash as '\\', a newline and a tab as '\n' and '\t', and '\xHH' for
 * every other control byte (C1 controls included), every byte that is not
 * part of valid UTF-8 and each space that ends the name.  The rest is as it
 * is.  Two names never print alike, nothing printed moves a terminal's
 * cursor, and `read -r` keeps the whole name; bash's printf '%b' decodes it.
 */
void cli_write_name(FILE *f, const char *name);
/* The escaped form, malloc'd; NULL when out of memory. */
char *cli_escape(const char *name);
/* A directory entry's name of @len bytes, escaped, its '/' and NUL bytes as \xHH too. */
char *cli_escape_component(const char *name, size_t len);
/*
 * The escaped form for a message or a line: valid until a few later calls
 * (enough for the names of one message); never NULL.
 */
const char *cli_name(const char *name);

/* The value of one hexadecimal digit, either case; -1 for any other character */
int cli_hex_digit(char c);

/*
 * Reads an escaped name back, in place: -1, or the offset of the first
 * backslash that does not start '\\', '\n', '\t' or '\xHH' (HH not 00).
 */
ssize_t cli_unescape(char *s);
/*
 * A file next to the image's for the one at @path inside it: @dir/<@path
 * without its leading '/', escaped as e2verity prints it>@ext.  Made of the
 * printed form, so that `while read -r hex path` finds the same file for
 * every name; and it never leaves @dir: a path with a "." or ".."
 * component is refused (EINVAL).
 */
errcode_t cli_detached_path(const char *dir, const char *path, const char *ext, char **out);

/*
 * A name in JSON: the string @key, and when the name is not valid UTF-8 (a
 * JSON string cannot carry its bytes) "@key_hex" with the bytes in hex.
 */
void cli_json_name(struct cli_json *j, const char *key, const char *name);

#endif /* E2VERITY_NAMES_H */
