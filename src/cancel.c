// SPDX-License-Identifier: GPL-2.0-or-later
/* cancel.c - turn SIGINT, SIGTERM and SIGHUP into a request to stop at a safe point */
#include "config.h"

#include <string.h>

#include "cmd.h"

volatile sig_atomic_t e2v_cancel;

static void e2v_on_signal(int sig)
{
	e2v_cancel = sig;
}

void e2v_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = e2v_on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocking read returns, and the command notices */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}
