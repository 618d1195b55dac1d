/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wb_wait.h - internal: a thread that waits for the image's writeback while the seal goes on */
#ifndef E2V_WB_WAIT_H
#define E2V_WB_WAIT_H

#include <pthread.h>

/*
 * A commit must wait until every data block it orders is on the disk.
 * Sealing small files writes a descriptor block for each, megabytes a
 * commit, and waiting for all of them at the commit leaves the thread that
 * does the libext2fs work idle: this thread calls fdatasync() now and then
 * while that one goes on, so the commit's own fsync() finds little left to
 * wait for.  A hint only: the commit's fsync() is still what makes the data
 * durable, and what reports a write error.
 */
struct e2v_wb_wait {
	/* our own open file description of the image: -1 when none */
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int running, asked, stop;
};

/* Opens a file description of its own for the image open as @fd (-1: a waiter that does nothing) */
void e2v_wb_wait_init(struct e2v_wb_wait *w, int fd);
/* Asks for an fdatasync() of the image soon (several asks made meanwhile count as one). */
void e2v_wb_wait_ask(struct e2v_wb_wait *w);
/* Waits for the sync under way, if any, and stops the thread. */
void e2v_wb_wait_fini(struct e2v_wb_wait *w);

#endif
