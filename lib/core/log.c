// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - the caller's log callback: which file or step failed, with OpenSSL's own words */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <openssl/err.h>

#include "log.h"

/* the callback is the process's, as cryptsetup's crypt_set_log_callback(NULL, ...) */
static pthread_mutex_t e2v_log_lock = PTHREAD_MUTEX_INITIALIZER;
static e2verity_log_fn e2v_log_fn;
static void *e2v_log_ctx;

void e2verity_set_log_callback(e2verity_log_fn fn, void *ctx)
{
	pthread_mutex_lock(&e2v_log_lock);
	e2v_log_fn = fn;
	e2v_log_ctx = ctx;
	pthread_mutex_unlock(&e2v_log_lock);
}

void e2v_log(errcode_t err, const char *object, const char *detail)
{
	e2verity_log_fn fn;
	void *ctx;

	pthread_mutex_lock(&e2v_log_lock);
	fn = e2v_log_fn;
	ctx = e2v_log_ctx;
	pthread_mutex_unlock(&e2v_log_lock);
	if (fn)
		fn(ctx, err, object, detail);
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

void e2v_log_openssl(errcode_t err, const char *object, int queue_was_empty)
{
	char detail[1024];

	e2v_queue_text(detail, sizeof(detail), queue_was_empty);
	e2v_log(err, object, detail[0] ? detail : NULL);
}
