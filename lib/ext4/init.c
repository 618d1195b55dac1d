// SPDX-License-Identifier: GPL-2.0-or-later
/* init.c - one-time library set-up: the com_err table */
#include "config.h"

#include <pthread.h>

#include "private.h"

static pthread_once_t e2v_once = PTHREAD_ONCE_INIT;

static void e2v_register_errors(void)
{
	/* com_err keeps a global list; registering twice would duplicate it. */
	initialize_e2v_error_table();
	/* the library passes libext2fs's codes on too */
	initialize_ext2_error_table();
}

void e2verity_init(void)
{
	pthread_once(&e2v_once, e2v_register_errors);
}
