// SPDX-License-Identifier: GPL-2.0-or-later
/* workers.c - a pool of hashing threads that lives across files */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "workers.h"

/* What one thread keeps between jobs: its own hash state and zero-block hash. */
struct e2v_worker {
	struct e2verity_workers *pool;
	struct e2verity_hasher *hasher;
	pthread_t thread;
	unsigned int index;
	errcode_t err;
	unsigned int zero_block_size; /* 0: no all-zero block hashed yet */
	uint8_t zero_digest[E2VERITY_MAX_DIGEST_SIZE];
};

struct e2verity_workers {
	pthread_mutex_t lock;
	pthread_cond_t start, done;
	unsigned long generation;
	unsigned int pending;
	int quit;
	unsigned int nthreads; /* with the caller's */
	unsigned int started;
	/* the current job, handed out in slices to whichever thread asks first */
	struct e2verity_hasher *tmpl;
	const uint8_t *data;
	uint8_t *digests;
	size_t nblocks, slice, next; /* next: the first block no thread has taken (atomic) */
	unsigned int block_size, active;
	int running; /* a job started and not yet finished */
	struct e2v_worker workers[E2V_MAX_THREADS];
};

/* Make @w's hash state match the job's, keeping it when the parameters are the same. */
static errcode_t e2v_worker_adopt(struct e2v_worker *w, struct e2verity_hasher *tmpl)
{
	struct e2verity_hasher *h;
	errcode_t err;

	if (w->hasher && e2v_hasher_same(w->hasher, tmpl))
		return 0;
	err = e2v_hasher_dup(tmpl, &h);
	if (err)
		return err;
	e2v_hasher_free(w->hasher);
	w->hasher = h;
	w->zero_block_size = 0;
	return 0;
}

/* blocks @first to @last of the @end blocks at @data */
static errcode_t e2v_hash_blocks(struct e2v_worker *w, const uint8_t *data, size_t first,
				 size_t last, size_t end, unsigned int bs, uint8_t *digests)
{
	unsigned int ds = e2v_hasher_digest_size(w->hasher), n = 0;
	/* blocks waiting to be hashed together: up to sixteen side by side, or in pairs */
	const void *batch[E2V_HASHER_MANY];
	uint8_t *out[E2V_HASHER_MANY];
	errcode_t err;

	for (size_t i = first; i < last; i++) {
		const uint8_t *block = data + i * bs;
		uint8_t *digest = digests + i * ds;
		int zero;

		/*
		 * Each block starts a page, where the hardware prefetcher stops:
		 * its first line would miss on the zero test of every block, one
		 * after another; asked for early, the misses overlap the hashing.
		 */
		if (i + E2V_HASHER_MANY < end)
			__builtin_prefetch(block + E2V_HASHER_MANY * bs);
		zero = e2v_all_zero(block, bs);

		if (zero && w->zero_block_size == bs) {
			memcpy(digest, w->zero_digest, ds);
			continue;
		}
		if (zero) {
			err = e2v_hasher_block(w->hasher, block, bs, digest);
			if (err)
				return err;
			memcpy(w->zero_digest, digest, ds);
			w->zero_block_size = bs;
			continue;
		}
		batch[n] = block;
		out[n++] = digest;
		if (n < E2V_HASHER_MANY)
			continue;
		err = e2v_hasher_many(w->hasher, batch, n, bs, out);
		if (err)
			return err;
		n = 0;
	}
	return n ? e2v_hasher_many(w->hasher, batch, n, bs, out) : 0;
}

/* Takes slices of the job until none is left. */
static errcode_t e2v_worker_run(struct e2verity_workers *p, struct e2v_worker *w)
{
	errcode_t err;

	err = e2v_worker_adopt(w, p->tmpl);
	while (!err) {
		size_t first = __atomic_fetch_add(&p->next, p->slice, __ATOMIC_RELAXED);
		size_t last = first + p->slice < p->nblocks ? first + p->slice : p->nblocks;

		if (first >= p->nblocks)
			break;
		err = e2v_hash_blocks(w, p->data, first, last, p->nblocks, p->block_size,
				      p->digests);
	}
	if (err) /* the others stop at their next slice */
		__atomic_store_n(&p->next, p->nblocks, __ATOMIC_RELAXED);
	return err;
}

static void *e2v_worker_main(void *arg)
{
	struct e2v_worker *w = arg;
	struct e2verity_workers *p = w->pool;
	unsigned long seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && p->generation == seen)
			pthread_cond_wait(&p->start, &p->lock);
		if (p->quit)
			break;
		seen = p->generation;
		pthread_mutex_unlock(&p->lock);
		w->err = w->index < p->active ? e2v_worker_run(p, w) : 0;
		pthread_mutex_lock(&p->lock);
		if (--p->pending == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

errcode_t e2v_workers_start(struct e2verity_workers *p, unsigned int active,
			    struct e2verity_hasher *tmpl, const uint8_t *data, size_t nblocks,
			    unsigned int block_size, uint8_t *digests)
{
	unsigned int n = p && active < p->nthreads ? active : e2v_workers_count(p);

	if (!p) {
		struct e2v_worker solo = { .hasher = tmpl };

		return e2v_hash_blocks(&solo, data, 0, nblocks, nblocks, block_size, digests);
	}
	p->tmpl = tmpl;
	p->data = data;
	p->nblocks = nblocks;
	p->digests = digests;
	p->block_size = block_size;
	p->active = n ? n : 1;
	/*
	 * Slices of one batch for the many-lane hash: whoever is free takes the
	 * next, the caller too once it is back, and the last thread to finish
	 * keeps the others waiting for one batch at most.
	 */
	p->slice = E2V_HASHER_MANY;
	p->next = 0;
	p->running = 1;
	if (p->active == 1)
		return 0; /* the caller hashes it all in e2v_workers_finish() */
	pthread_mutex_lock(&p->lock);
	p->pending = p->nthreads - 1;
	p->generation++;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

errcode_t e2v_workers_finish(struct e2verity_workers *p)
{
	errcode_t err;

	if (!p || !p->running)
		return 0;
	p->running = 0;
	err = e2v_worker_run(p, &p->workers[0]);
	if (p->active == 1)
		return err;
	pthread_mutex_lock(&p->lock);
	while (p->pending)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 1; !err && i < p->active; i++)
		err = p->workers[i].err;
	return err;
}

unsigned int e2v_workers_count(const struct e2verity_workers *p)
{
	return p ? p->nthreads : 1;
}

errcode_t e2verity_workers_new(unsigned int nthreads, struct e2verity_workers **ret)
{
	struct e2verity_workers *p;
	unsigned int i;

	*ret = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return E2VERITY_ET_NO_MEMORY;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
	p->nthreads = nthreads < 1 ? 1 : nthreads > E2V_MAX_THREADS ? E2V_MAX_THREADS : nthreads;
	for (i = 0; i < p->nthreads; i++) {
		p->workers[i].pool = p;
		p->workers[i].index = i;
	}
	p->started = 1;
	for (i = 1; i < p->nthreads; i++) {
		if (pthread_create(&p->workers[i].thread, NULL, e2v_worker_main, &p->workers[i]))
			break;
		p->started++;
	}
	if (p->started < p->nthreads) {
		e2verity_workers_free(p);
		return E2VERITY_ET_NO_MEMORY;
	}
	*ret = p;
	return 0;
}

void e2verity_workers_free(struct e2verity_workers *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 1; i < p->started; i++)
		pthread_join(p->workers[i].thread, NULL);
	for (unsigned int i = 0; i < p->nthreads; i++)
		e2v_hasher_free(p->workers[i].hasher);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
	free(p);
}
