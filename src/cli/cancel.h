/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cancel.h - SIGINT, SIGTERM and SIGHUP stop a command where the image is whole */
#ifndef CLI_CANCEL_H
#define CLI_CANCEL_H

#include <signal.h>

/*
 * SIGINT, SIGTERM and SIGHUP set cli_cancel (to the signal's number) instead
 * of ending the process: the commands stop at a point where the image is
 * whole.  The exit status after such a stop is 128 + the signal's number.
 */
extern volatile sig_atomic_t cli_cancel;
void cli_catch_signals(void);

#endif /* CLI_CANCEL_H */
