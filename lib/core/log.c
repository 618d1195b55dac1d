// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - the caller's log callback: which file or step failed, with OpenSSL's own words */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <openssl/err.h>

#include "log.h"

/* the callback is the caller's of each call (a loader's argument, an image's), never the process's */
void e2v_log(const struct e2v_log_sink *log, errcode_t err, const char *object, const char *detail)
{
	if (log && log->fn)
		log->fn(log->ctx, err, object, detail);
}

/* OpenSSL's reasons, "; "-separated: all the queue holds, or only its last entry */
static void e2v_queue_text(char *buf, size_t size, int all)
{
	size_t len = 0;
	unsigned long e;

	buf[0] = '\0';
	if (!all) {
		e = ERR_peek_last_error();
		if (e)
			ERR_error_string_n(e, buf, size);
		return;
	}
	/* every entry is ours: taking them leaves the caller's queue empty, as it was */
	while (len + 3 < size && (e = ERR_get_error()) != 0) {
		if (len) {
			buf[len++] = ';';
			buf[len++] = ' ';
		}
		ERR_error_string_n(e, buf + len, size - len);
		len += strlen(buf + len);
	}
}

void e2v_log_openssl(const struct e2v_log_sink *log, errcode_t err, const char *object,
		     int queue_was_empty)
{
	char detail[1024];

	e2v_queue_text(detail, sizeof(detail), queue_was_empty);
	e2v_log(log, err, object, detail[0] ? detail : NULL);
}
