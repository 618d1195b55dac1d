// SPDX-License-Identifier: GPL-2.0-or-later
/* finding.c - a finding of check as text: its problem's message template filled in */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "private.h"

/* A bounded string builder that still counts what did not fit, like snprintf. */
struct e2v_sbuf {
	char *buf;
	size_t size, len;
};

static void e2v_sbuf_add(struct e2v_sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void e2v_sbuf_add(struct e2v_sbuf *s, const char *fmt, ...)
{
	size_t room = s->len < s->size ? s->size - s->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->len += n;
}

static void e2v_sbuf_hex(struct e2v_sbuf *s, const uint8_t *bin, unsigned int len)
{
	for (unsigned int i = 0; i < len; i++)
		e2v_sbuf_add(s, "%02x", bin[i]);
}

size_t e2verity_finding_format(const struct e2verity_finding *f, char *buf, size_t size)
{
	struct e2v_sbuf s = { buf, size, 0 };
	unsigned int hash_size = f->hash_size <= E2VERITY_MAX_DIGEST_SIZE ? f->hash_size : 0;
	const char *p;

	if (size)
		buf[0] = '\0';
	if (!f->problem)
		return 0;
	for (p = f->problem->message; *p; p++) {
		if (*p != '%' || !p[1]) {
			e2v_sbuf_add(&s, "%c", *p);
			continue;
		}
		switch (*++p) {
		case 'v':
			e2v_sbuf_add(&s, "%llu", (unsigned long long)f->value);
			break;
		case 'h':
			e2v_sbuf_add(&s, "0x%llx", (unsigned long long)f->value);
			break;
		case 'x':
			e2v_sbuf_add(&s, "%llu", (unsigned long long)f->expected);
			break;
		case 'o':
			e2v_sbuf_add(&s, "%llu", (unsigned long long)f->offset);
			break;
		case 'b':
			e2v_sbuf_add(&s, "%llu", (unsigned long long)f->block);
			break;
		case 'n':
			e2v_sbuf_add(&s, "%llu", (unsigned long long)f->count);
			break;
		case 'l':
			e2v_sbuf_add(&s, "%u", f->level);
			break;
		case 'S':
			e2v_sbuf_hex(&s, f->stored, hash_size);
			break;
		case 'C':
			e2v_sbuf_hex(&s, f->computed, hash_size);
			break;
		case 'E':
			e2v_sbuf_hex(&s, f->expected_hash, hash_size);
			break;
		case 'e':
			e2v_sbuf_add(&s, "%s", error_message(f->err));
			break;
		default:
			/* %% and anything unknown print as themselves */
			e2v_sbuf_add(&s, "%c", *p);
			break;
		}
	}
	return s.len;
}
