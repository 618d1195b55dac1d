// SPDX-License-Identifier: GPL-2.0-or-later
/* json_parse.c - a strict JSON reader: manifests come from anywhere, so nothing is let slip */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/json_parse.h"
#include "output/json.h"

#define CLI_JSON_PARSE_MAX_DEPTH 64
/* members of one object: duplicates are looked for by a scan, so their number stays small */
#define CLI_JSON_PARSE_MAX_MEMBERS 4096

struct cli_jparser {
	const char *p, *end;
	unsigned long line;
	char *why;
	size_t why_size;
	int failed;
};

static int cli_jfail(struct cli_jparser *jp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int cli_jfail(struct cli_jparser *jp, const char *fmt, ...)
{
	va_list ap;

	if (!jp->failed) {
		va_start(ap, fmt);
		vsnprintf(jp->why, jp->why_size, fmt, ap);
		va_end(ap);
		jp->failed = 1;
	}
	return -1;
}
#ifdef __clang_analyzer__
/* -1, always: clang's analyzer does not follow a variadic function, so say it at each call */
#define cli_jfail(...) (cli_jfail(__VA_ARGS__), -1)
#endif

static void cli_jskip_space(struct cli_jparser *jp)
{
	while (jp->p < jp->end) {
		if (*jp->p == '\n')
			jp->line++;
		else if (*jp->p != ' ' && *jp->p != '\t' && *jp->p != '\r')
			return;
		jp->p++;
	}
}

/* "what was found" for a message: a printable character, or its code */
static const char *cli_jwhat(const struct cli_jparser *jp, char *buf, size_t size)
{
	unsigned char c;

	if (jp->p >= jp->end)
		return "the end of the file";
	c = *jp->p;
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

static int cli_jexpect(struct cli_jparser *jp, const char *what)
{
	char buf[16];

	return cli_jfail(jp, "%s expected, %s found", what, cli_jwhat(jp, buf, sizeof(buf)));
}

static int cli_jhex4(const char *p, unsigned int *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t cli_jput_utf8(char *w, unsigned int cp)
{
	if (cp < 0x80) {
		w[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		w[0] = 0xc0 | cp >> 6;
		w[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		w[0] = 0xe0 | cp >> 12;
		w[1] = 0x80 | (cp >> 6 & 0x3f);
		w[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	w[0] = 0xf0 | cp >> 18;
	w[1] = 0x80 | (cp >> 12 & 0x3f);
	w[2] = 0x80 | (cp >> 6 & 0x3f);
	w[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* A \u escape at jp->p (after the backslash and 'u'), a surrogate pair whole */
static int cli_jescape_u(struct cli_jparser *jp, unsigned int *cp)
{
	unsigned int lo;

	if (jp->end - jp->p < 4 || cli_jhex4(jp->p, cp))
		return cli_jfail(jp, "\\u must be followed by four hex digits");
	jp->p += 4;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return cli_jfail(jp, "\\u%04x is a lone low surrogate", *cp);
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (jp->end - jp->p < 6 || jp->p[0] != '\\' || jp->p[1] != 'u' ||
		    cli_jhex4(jp->p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return cli_jfail(jp, "\\u%04x is a high surrogate without its low half",
					 *cp);
		jp->p += 6;
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (*cp == 0)
		return cli_jfail(jp, "\\u0000: a NUL character");
	return 0;
}

/* A string at jp->p (its opening quote), decoded into a malloc'd buffer */
static int cli_jstring(struct cli_jparser *jp, char **out, size_t *out_len)
{
	/* the decoded form is never longer than the escaped one */
	const char *start = ++jp->p;
	char *buf, *w;
	unsigned int cp;
	int n;

	while (jp->p < jp->end && *jp->p != '"') {
		if (*jp->p == '\\' && jp->p + 1 < jp->end)
			jp->p++;
		jp->p++;
	}
	if (jp->p >= jp->end)
		return cli_jfail(jp, "a string is not closed");
	buf = malloc(jp->p - start + 1);
	if (!buf)
		return cli_jfail(jp, "out of memory");
	jp->p = start;
	w = buf;
	while (*jp->p != '"') {
		unsigned char c = *jp->p;

		if (c < 0x20) {
			free(buf);
			return cli_jfail(jp, "control byte 0x%02x in a string (it must be escaped)",
					 c);
		}
		if (c != '\\') {
			n = cli_utf8_seq(jp->p);
			if (!n || jp->p + n > jp->end) {
				free(buf);
				return cli_jfail(jp, "byte 0x%02x in a string is not UTF-8", c);
			}
			memcpy(w, jp->p, n);
			w += n;
			jp->p += n;
			continue;
		}
		jp->p++;
		switch (*jp->p++) {
		case '"':
			*w++ = '"';
			break;
		case '\\':
			*w++ = '\\';
			break;
		case '/':
			*w++ = '/';
			break;
		case 'b':
			*w++ = '\b';
			break;
		case 'f':
			*w++ = '\f';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 'r':
			*w++ = '\r';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'u':
			if (cli_jescape_u(jp, &cp)) {
				free(buf);
				return -1;
			}
			w += cli_jput_utf8(w, cp);
			break;
		default:
			free(buf);
			return cli_jfail(jp, "unknown escape '\\%c' in a string", jp->p[-1]);
		}
	}
	jp->p++;
	*w = '\0';
	*out = buf;
	*out_len = w - buf;
	return 0;
}

static int cli_jdigits(struct cli_jparser *jp)
{
	const char *s = jp->p;

	while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
		jp->p++;
	return jp->p > s ? 0 : cli_jexpect(jp, "a digit");
}

/* A number, checked against the grammar and kept as its text */
static int cli_jnumber(struct cli_jparser *jp, struct cli_jvalue *v)
{
	const char *s = jp->p;

	if (*jp->p == '-')
		jp->p++;
	if (jp->p < jp->end && *jp->p == '0')
		jp->p++;
	else if (cli_jdigits(jp))
		return -1;
	if (jp->p < jp->end && *jp->p == '.') {
		jp->p++;
		if (cli_jdigits(jp))
			return -1;
	}
	if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
		jp->p++;
		if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
			jp->p++;
		if (cli_jdigits(jp))
			return -1;
	}
	v->type = CLI_JNUMBER;
	v->len = jp->p - s;
	v->str = strndup(s, v->len);
	return v->str ? 0 : cli_jfail(jp, "out of memory");
}

static int cli_jliteral(struct cli_jparser *jp, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n) != 0)
		return cli_jexpect(jp, "a value");
	jp->p += n;
	return 0;
}

static int cli_jvalue_parse(struct cli_jparser *jp, struct cli_jvalue *v, int depth);

/* Room for one more member or item */
static int cli_jgrow(struct cli_jparser *jp, struct cli_jvalue *v, size_t *cap, int keys)
{
	struct cli_jvalue *items;
	char **k;
	size_t c;

	if (v->n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 8;
	items = realloc(v->items, c * sizeof(*items));
	if (!items)
		return cli_jfail(jp, "out of memory");
	v->items = items;
	if (keys) {
		k = realloc(v->keys, c * sizeof(*k));
		if (!k)
			return cli_jfail(jp, "out of memory");
		v->keys = k;
	}
	*cap = c;
	return 0;
}

static int cli_jarray(struct cli_jparser *jp, struct cli_jvalue *v, int depth)
{
	size_t cap = 0;

	v->type = CLI_JARRAY;
	jp->p++;
	cli_jskip_space(jp);
	if (jp->p < jp->end && *jp->p == ']') {
		jp->p++;
		return 0;
	}
	for (;;) {
		if (cli_jgrow(jp, v, &cap, 0))
			return -1;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++;
		if (cli_jvalue_parse(jp, &v->items[v->n - 1], depth + 1))
			return -1;
		cli_jskip_space(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == ']') {
			jp->p++;
			return 0;
		}
		return cli_jexpect(jp, "',' or ']'");
	}
}

static int cli_jobject(struct cli_jparser *jp, struct cli_jvalue *v, int depth)
{
	size_t cap = 0, klen;
	char *key;

	v->type = CLI_JOBJECT;
	jp->p++;
	cli_jskip_space(jp);
	if (jp->p < jp->end && *jp->p == '}') {
		jp->p++;
		return 0;
	}
	for (;;) {
		cli_jskip_space(jp);
		if (jp->p >= jp->end || *jp->p != '"')
			return cli_jexpect(jp, "a member name");
		if (v->n == CLI_JSON_PARSE_MAX_MEMBERS)
			return cli_jfail(jp, "an object has more than %d members",
					 CLI_JSON_PARSE_MAX_MEMBERS);
		if (cli_jstring(jp, &key, &klen))
			return -1;
		/* two members of one name: which one counts would be a guess */
		if (cli_json_member(v, key)) {
			cli_jfail(jp, "member \"%s\" appears twice", key);
			free(key);
			return -1;
		}
		if (cli_jgrow(jp, v, &cap, 1)) {
			free(key);
			return -1;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->keys[v->n] = key;
		v->n++;
		cli_jskip_space(jp);
		if (jp->p >= jp->end || *jp->p != ':')
			return cli_jexpect(jp, "':'");
		jp->p++;
		if (cli_jvalue_parse(jp, &v->items[v->n - 1], depth + 1))
			return -1;
		cli_jskip_space(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == '}') {
			jp->p++;
			return 0;
		}
		return cli_jexpect(jp, "',' or '}'");
	}
}

static int cli_jvalue_parse(struct cli_jparser *jp, struct cli_jvalue *v, int depth)
{
	if (depth > CLI_JSON_PARSE_MAX_DEPTH)
		return cli_jfail(jp, "nested more than %d deep", CLI_JSON_PARSE_MAX_DEPTH);
	cli_jskip_space(jp);
	v->line = jp->line;
	if (jp->p >= jp->end)
		return cli_jexpect(jp, "a value");
	switch (*jp->p) {
	case '{':
		return cli_jobject(jp, v, depth);
	case '[':
		return cli_jarray(jp, v, depth);
	case '"':
		v->type = CLI_JSTRING;
		return cli_jstring(jp, &v->str, &v->len);
	case 't':
		v->type = CLI_JBOOL;
		v->boolean = 1;
		return cli_jliteral(jp, "true");
	case 'f':
		v->type = CLI_JBOOL;
		return cli_jliteral(jp, "false");
	case 'n':
		v->type = CLI_JNULL;
		return cli_jliteral(jp, "null");
	default:
		if (*jp->p == '-' || (*jp->p >= '0' && *jp->p <= '9'))
			return cli_jnumber(jp, v);
		return cli_jexpect(jp, "a value");
	}
}

int cli_json_parse(const char *buf, size_t len, struct cli_jvalue *out, unsigned long *line,
		   char *why, size_t why_size)
{
	struct cli_jparser jp = { buf, buf + len, 1, why, why_size, 0 };

	memset(out, 0, sizeof(*out));
	/* a byte order mark is not JSON's (RFC 8259, 8.1) */
	if (!cli_jvalue_parse(&jp, out, 0)) {
		cli_jskip_space(&jp);
		if (jp.p < jp.end)
			cli_jexpect(&jp, "the end of the document");
	}
	*line = jp.line;
	if (jp.failed) {
		cli_json_free(out);
		return -1;
	}
	return 0;
}

void cli_json_free(struct cli_jvalue *v)
{
	for (size_t i = 0; i < v->n; i++) {
		cli_json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct cli_jvalue *cli_json_member(const struct cli_jvalue *obj, const char *key)
{
	if (obj->type != CLI_JOBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}
