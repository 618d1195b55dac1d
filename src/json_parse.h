/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_parse.h - a strict JSON reader for the documents the commands wrote: manifests */
#ifndef E2VERITY_JSON_PARSE_H
#define E2VERITY_JSON_PARSE_H

#include <stddef.h>

enum e2v_jtype {
	E2V_JNULL,
	E2V_JBOOL,
	E2V_JNUMBER,
	E2V_JSTRING,
	E2V_JARRAY,
	E2V_JOBJECT,
};

/* One value of a parsed document; an object's members are @keys[i] -> @items[i] */
struct e2v_jvalue {
	enum e2v_jtype type;
	unsigned long line; /* where it starts, from 1 */
	int boolean;
	char *str;  /* a string, decoded to UTF-8 (never holding a NUL); a number's text */
	size_t len; /* its length */
	struct e2v_jvalue *items;
	char **keys;
	size_t n;
};

/*
 * Parses the whole of @buf (@len bytes) as one JSON value (RFC 8259: UTF-8, no
 * duplicate member names, nesting at most 64 deep, nothing after it).  On an
 * error, returns -1 with *@line the line it is on and @why (of @why_size
 * bytes) saying what is wrong; @out is then empty.
 */
int e2v_json_parse(const char *buf, size_t len, struct e2v_jvalue *out, unsigned long *line,
		   char *why, size_t why_size);
void e2v_json_free(struct e2v_jvalue *v);
/* An object's member, or NULL */
const struct e2v_jvalue *e2v_json_member(const struct e2v_jvalue *obj, const char *key);

#endif /* E2VERITY_JSON_PARSE_H */
