// SPDX-License-Identifier: GPL-2.0-or-later
/* names.c - one way to print a name, one way to read a printed name back */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/names.h"
#include "output/json.h"

/*
 * Writes the escape of the byte at @s to @out and returns 1, or returns 0
 * and sets *@n to the length of the character at @s, which stands as it is.
 * @trailing: the byte is among the spaces that end the name; @component: a
 * '/' and a NUL are escaped too (a directory entry's name, shown whole).
 */
static int cli_escape_one(const char *s, int trailing, int component, char out[5], int *n)
{
	unsigned char c = *s;

	*n = cli_utf8_seq(s);
	if (c == '\\' || c == '\n' || c == '\t') {
		out[0] = '\\';
		out[1] = c == '\\' ? '\\' : c == '\n' ? 'n' : 't';
		out[2] = '\0';
		return 1;
	}
	/*
	 * Control bytes (C0, DEL, and C1 encoded in UTF-8: a terminal acts on
	 * them, one byte at a time), bytes that are not UTF-8, and the spaces
	 * that end the name (`read` would drop them): \xHH.
	 */
	if (c < 0x20 || c == 0x7f || *n == 0 || (c == ' ' && trailing) ||
	    (c == 0xc2 && *n == 2 && (unsigned char)s[1] < 0xa0) || (component && c == '/')) {
		snprintf(out, 5, "\\x%02x", c);
		return 1;
	}
	return 0;
}

/* Calls @emit for each piece of the escaped form of the @len bytes at @name. */
static void cli_escape_each(const char *name, size_t len, int component,
			    void (*emit)(void *ctx, const char *p, size_t len), void *ctx)
{
	size_t tail = len;
	char esc[5];

	while (tail && name[tail - 1] == ' ')
		tail--;
	for (size_t i = 0; i < len;) {
		int n;

		/* cli_utf8_seq() stops at a NUL: a sequence never runs past @len */
		if (cli_escape_one(name + i, i >= tail, component, esc, &n)) {
			emit(ctx, esc, strlen(esc));
			i++;
		} else {
			emit(ctx, name + i, n);
			i += n;
		}
	}
}

static void cli_emit_file(void *ctx, const char *p, size_t len)
{
	fwrite(p, 1, len, ctx);
}

void cli_write_name(FILE *f, const char *name)
{
	cli_escape_each(name, strlen(name), 0, cli_emit_file, f);
}

struct cli_strbuf {
	char *p;
	size_t len;
};

static void cli_emit_buf(void *ctx, const char *p, size_t len)
{
	struct cli_strbuf *b = ctx;

	if (b->p)
		memcpy(b->p + b->len, p, len);
	b->len += len;
}

static char *cli_escape_len(const char *name, size_t len, int component)
{
	struct cli_strbuf b = { NULL, 0 };

	cli_escape_each(name, len, component, cli_emit_buf, &b);
	b.p = malloc(b.len + 1);
	if (!b.p)
		return NULL;
	b.len = 0;
	cli_escape_each(name, len, component, cli_emit_buf, &b);
	b.p[b.len] = '\0';
	return b.p;
}

char *cli_escape(const char *name)
{
	return cli_escape_len(name, strlen(name), 0);
}

char *cli_escape_component(const char *name, size_t len)
{
	return cli_escape_len(name, len, 1);
}

/*
 * Messages name several files at once ("the signature '%s' of '%s'"): a few
 * escaped names live until later calls take their slot.  Only the main
 * thread prints.
 */
#define CLI_NAME_SLOTS 8

const char *cli_name(const char *name)
{
	static char *slot[CLI_NAME_SLOTS];
	static unsigned int next;
	char *p;

	if (!name)
		return "(null)";
	p = cli_escape(name);
	if (!p)
		return "(a name: out of memory)";
	free(slot[next]);
	slot[next] = p;
	next = (next + 1) % CLI_NAME_SLOTS;
	return p;
}

int cli_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

ssize_t cli_unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		int hi, lo;

		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		switch (r[1]) {
		case '\\':
			*w++ = '\\';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'x':
			hi = cli_hex_digit(r[2]);
			lo = hi < 0 ? -1 : cli_hex_digit(r[3]);
			/* \x00 would end the name early: a different file, silently */
			if (lo < 0 || (hi | lo) == 0)
				return r - s;
			*w++ = hi << 4 | lo;
			r += 4;
			continue;
		default:
			return r - s;
		}
		r += 2;
	}
	*w = '\0';
	return -1;
}

/* 1 if no component of @path is "." or "..": joined to a directory on the host, it stays inside */
static int cli_path_contained(const char *path)
{
	const char *p = path;

	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += len;
	}
	return 1;
}

errcode_t cli_detached_path(const char *dir, const char *path, const char *ext, char **out)
{
	char *esc;
	int r;

	*out = NULL;
	if (!cli_path_contained(path))
		return EINVAL;
	while (*path == '/')
		path++;
	esc = cli_escape(path);
	if (!esc)
		return ENOMEM;
	r = asprintf(out, "%s/%s%s", dir, esc, ext);
	free(esc);
	if (r < 0) {
		*out = NULL;
		return ENOMEM;
	}
	return 0;
}

void cli_json_name(struct cli_json *j, const char *key, const char *name)
{
	static const char digits[] = "0123456789abcdef";
	size_t len = strlen(name);
	char *hex, *hkey;

	cli_json_string(j, key, name);
	if (cli_utf8_valid(name))
		return;
	/* JSON strings are Unicode: the bytes themselves, so no name can be mistaken */
	hex = malloc(2 * len + 1);
	hkey = malloc(strlen(key) + 5);
	if (hex && hkey) {
		for (size_t i = 0; i < len; i++) {
			hex[2 * i] = digits[(unsigned char)name[i] >> 4];
			hex[2 * i + 1] = digits[name[i] & 15];
		}
		hex[2 * len] = '\0';
		sprintf(hkey, "%s_hex", key);
		cli_json_string(j, hkey, hex);
	}
	free(hkey);
	free(hex);
}
