/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_parse.h - a strict JSON reader for the documents the commands wrote: manifests */
#ifndef E2VERITY_JSON_PARSE_H
#define E2VERITY_JSON_PARSE_H

#include <stddef.h>

enum cli_jtype {
	CLI_JNULL,
	CLI_JBOOL,
	CLI_JNUMBER,
	CLI_JSTRING,
	CLI_JARRAY,
	CLI_JOBJECT,
};

/* One value of a parsed document; an object's members are @keys[i] -> @items[i] */
struct cli_jvalue {
	enum cli_jtype type;
	unsigned long line; /* where it starts, from 1 */
	int boolean;
	char *str;  /* a string, decoded to UTF-8 (never holding a NUL); a number's text */
	size_t len; /* its length */
	struct cli_jvalue *items;
	char **keys;
	size_t n;
};

/*
 * Parses the whole of @buf (@len bytes) as one JSON value (RFC 8259: UTF-8, no
 * duplicate member names, nesting at most 64 deep, nothing after it).  On an
 * error, returns -1 with *@line the line it is on and @why (of @why_size
 * bytes) saying what is wrong; @out is then empty.
 */
int cli_json_parse(const char *buf, size_t len, struct cli_jvalue *out, unsigned long *line,
		   char *why, size_t why_size);
void cli_json_free(struct cli_jvalue *v);
/* An object's member, or NULL */
const struct cli_jvalue *cli_json_member(const struct cli_jvalue *obj, const char *key);

#endif /* E2VERITY_JSON_PARSE_H */
