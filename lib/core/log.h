/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - internal: tell the caller which file or step failed, and OpenSSL's reasons */
#ifndef E2VERITY_LOG_H
#define E2VERITY_LOG_H

#include "core.h"

/* a caller's log callback and its context: a loader's arguments, or an image's */
struct e2v_log_sink {
	e2verity_log_fn fn;
	void *ctx;
};

/*
 * Hands @err, @object (a file name or a step) and @detail (or NULL) to the
 * callback of @log; nothing when @log or its callback is NULL.
 */
void e2v_log(const struct e2v_log_sink *log, errcode_t err, const char *object, const char *detail);

/*
 * The same with OpenSSL's error queue as the detail: all of it if it held
 * nothing of the caller's (@queue_was_empty), else its last entry.  The
 * queue is left for the caller's ERR_pop_to_mark().
 */
void e2v_log_openssl(const struct e2v_log_sink *log, errcode_t err, const char *object,
		     int queue_was_empty);

#endif /* E2VERITY_LOG_H */
