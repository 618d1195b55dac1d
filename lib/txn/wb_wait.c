// SPDX-License-Identifier: GPL-2.0-or-later
/* wb_wait.c - internal: a thread that waits for the image's writeback while the seal goes on */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "wb_wait.h"

static void *e2v_wb_wait_main(void *arg)
{
	struct e2v_wb_wait *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->asked && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		w->asked = 0;
		pthread_mutex_unlock(&w->lock);
		/* its result is the commit's to report, through its own file description */
		(void)fdatasync(w->fd);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

void e2v_wb_wait_init(struct e2v_wb_wait *w, int fd)
{
	char name[32];

	w->fd = -1;
	w->running = w->asked = w->stop = 0;
	if (fd < 0)
		return;
	/*
	 * A new open file description, never a dup(): a write error seen by
	 * fdatasync() here is then still reported to the commit's fsync() on
	 * the io manager's own description (each has its own errseq cursor),
	 * even when @fd shares one with it (e2verity_set_image_source()).
	 */
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	w->fd = open(name, O_RDONLY | O_CLOEXEC);
}

void e2v_wb_wait_ask(struct e2v_wb_wait *w)
{
	if (w->fd < 0)
		return;
	if (!w->running) {
		if (pthread_mutex_init(&w->lock, NULL))
			goto none;
		if (pthread_cond_init(&w->cond, NULL)) {
			pthread_mutex_destroy(&w->lock);
			goto none;
		}
		if (pthread_create(&w->thread, NULL, e2v_wb_wait_main, w)) {
			pthread_cond_destroy(&w->cond);
			pthread_mutex_destroy(&w->lock);
			goto none;
		}
		w->running = 1;
	}
	pthread_mutex_lock(&w->lock);
	w->asked = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return;
none:
	/* the commit waits for all, as without this thread */
	close(w->fd);
	w->fd = -1;
}

void e2v_wb_wait_fini(struct e2v_wb_wait *w)
{
	if (w->running) {
		pthread_mutex_lock(&w->lock);
		w->stop = 1;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		w->running = 0;
	}
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
