// SPDX-License-Identifier: GPL-2.0-or-later
/* cancel.c - turn SIGINT, SIGTERM and SIGHUP into a request to stop at a safe point */
#include "config.h"

#include <string.h>

#include "cli/cancel.h"

volatile sig_atomic_t cli_cancel;

static void cli_on_signal(int sig)
{
	cli_cancel = sig;
}

void cli_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cli_on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocking read returns, and the command notices */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}
