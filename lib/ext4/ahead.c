// SPDX-License-Identifier: GPL-2.0-or-later
/* ahead.c - hash the next files of a batch on other threads while one thread does libext2fs work */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ahead.h"
#include "core/hash.h"
#include "core/merkle.h"

/*
 * libext2fs is not thread-safe, so the caller's thread keeps all of it: it
 * reads each inode and its extent map (the prepare callback) a few files
 * ahead of where it works.  The hashing threads only pread() the data blocks
 * from their own descriptor of the image and keep the Merkle tree in memory;
 * the caller's thread then writes (seal) or compares (check) it.  Only small
 * files come this way: a large one is hashed by all threads on its own.
 */
#define E2V_AHEAD_MAX_FILE (8u << 20)
/* jobs and data bytes queued at most: bounds the memory whatever the batch */
#define E2V_AHEAD_MAX_JOBS 64
#define E2V_AHEAD_MAX_BYTES (32u << 20)
#define E2V_AHEAD_MAX_THREADS 64
/*
 * The caller's thread is usually the slower one: it refills the queue when
 * half of it is taken, and wakes the idle threads once per refill, not for
 * each job (every wake-up is a system call and a context switch).
 */
#define E2V_AHEAD_REFILL (E2V_AHEAD_MAX_JOBS / 2)

enum { E2V_JOB_QUEUED, E2V_JOB_RUNNING, E2V_JOB_DONE };

/*
 * A hashing thread's hasher for one-block files, kept while the parameters
 * stay the same (they usually do for a whole image)
 */
struct e2v_one_hasher {
	struct e2verity_hasher *h;
	struct e2verity_params p; /* what @h hashes with: its salt is @salt */
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	struct e2verity_hasher *desc; /* unsalted, of algorithm @desc_alg: for descriptors */
	unsigned int desc_alg;
	uint8_t *buf; /* E2V_PRELOAD_BLOCKS blocks: e2v_jobs_preload() */
};

struct e2verity_batch {
	ext2_filsys fs;
	int fd;
	uint64_t base; /* where the filesystem starts in the file behind @fd */
	const ext2_ino_t *inos;
	size_t count, next; /* inos[next] is the next to queue */
	e2v_ahead_prepare_fn prepare;
	void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	int quit;
	/* wake-ups cost a system call each: signal only who sleeps */
	unsigned int idle;
	int waiting;
	/*
	 * A ring of jobs in batch order.  The slots keep their tree buffers
	 * from one file to the next: fresh memory for each would cost page
	 * faults that took more time than the hashing.
	 */
	struct e2v_ahead_job ring[E2V_AHEAD_MAX_JOBS];
	size_t head, queued;
	uint64_t bytes;
	/* the caller's thread's, when it hashes jobs itself */
	struct e2v_scratch keep;
	struct e2v_one_hasher one;
	unsigned int nthreads;
	pthread_t threads[E2V_AHEAD_MAX_THREADS];
	/* [used_from, used_to): blocks the last allocations found all in use, in used_epoch */
	blk64_t used_from, used_to;
	unsigned long used_epoch;
	/* e2v_ahead_buffer()'s: a small file's metadata, assembled without a malloc() each */
	uint8_t *buf;
	size_t buf_len;
};

/* Reads through the job's extent map with pread(): holes and unwritten extents are zeros. */
static errcode_t e2v_job_read(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct e2v_ahead_job *j = ctx;
	const unsigned int bs = j->fs_block_size;
	uint8_t *out = buf;
	const struct e2v_extent *x0 = e2v_extent_find(j->extents, j->nr_extents, offset / bs);
	size_t e = x0 ? (size_t)(x0 - j->extents) : j->nr_extents;

	while (count) {
		blk64_t lblk = offset / bs;
		uint64_t run;

		while (e < j->nr_extents && j->extents[e].lblk + j->extents[e].len <= lblk)
			e++;
		if (e == j->nr_extents || j->extents[e].lblk > lblk || j->extents[e].uninit) {
			blk64_t end = e == j->nr_extents ? UINT64_MAX
				      : j->extents[e].lblk > lblk
					      ? j->extents[e].lblk
					      : j->extents[e].lblk + j->extents[e].len;

			run = end == UINT64_MAX ? count : (end - lblk) * bs - offset % bs;
			if (run > count)
				run = count;
			memset(out, 0, run);
		} else {
			const struct e2v_extent *x = &j->extents[e];
			uint64_t pos = (x->pblk + (lblk - x->lblk)) * bs + offset % bs;
			errcode_t err;

			run = (x->lblk + x->len - lblk) * bs - offset % bs;
			if (run > count)
				run = count;
			err = e2v_pread_all(j->fd, out, run, j->base + pos);
			if (err)
				return err;
		}
		out += run;
		offset += run;
		count -= run;
	}
	return 0;
}

/* Keeps each tree block, in the order the builder emits them. */
static errcode_t e2v_job_sink(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct e2v_ahead_job *j = ctx;

	if (j->nblocks == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 4;
		uint8_t *t = realloc(j->tree, cap * size);
		uint64_t *o = realloc(j->offsets, cap * sizeof(*o));

		if (t)
			j->tree = t;
		if (o)
			j->offsets = o;
		if (!t || !o)
			return E2VERITY_ET_NO_MEMORY;
		j->cap = cap;
	}
	memcpy(j->tree + j->nblocks * size, block, size);
	j->offsets[j->nblocks++] = offset;
	return 0;
}

/*
 * Whether the bytes after EOF in the file's last block are zeros on disk, as
 * sealing wants them: read here rather than on the libext2fs thread.
 */
static int e2v_job_tail_zero(struct e2v_ahead_job *j)
{
	const unsigned int bs = j->fs_block_size, used = j->size % bs;
	uint8_t *buf;
	int zero;

	if (!used)
		return 1;
	buf = malloc(bs - used);
	/* holes and unwritten extents read as zeros */
	zero = buf && !e2v_job_read(j, buf, bs - used, j->size) && e2v_all_zero(buf, bs - used);
	free(buf);
	return zero;
}

/* What follows the hashing: signatures made or judged here, in parallel. */
static void e2v_job_sign(struct e2v_ahead_job *j)
{
	/* an RSA signature costs as much as hashing hundreds of KiB */
	if (!j->err && j->sign)
		j->err = j->sign(j->sign_ctx, j->params.hash_alg, j->res.digest, &j->sig,
				 &j->sig_size);
	if (!j->err && j->ima_sign)
		j->err = j->ima_sign(j->ima_ctx, j->params.hash_alg, j->res.digest, &j->ima_value,
				     &j->ima_len);
	/* and so does verifying one: check --cert would otherwise do it on the libext2fs thread */
	if (!j->err && j->verify)
		j->verified = !e2v_signature_check(j->verify_alg, j->verify_digest, j->sig,
						   j->sig_size, j->verifier, &j->verify_rep);
}

/* The job's tree, reading through its extent map; @j->finish done. */
static void e2v_job_hash(struct e2v_ahead_job *j, struct e2v_scratch *keep)
{
	struct e2verity_params p = j->params;

	p.threads = (struct e2verity_threads){ .count = 1 };
	j->err = e2v_compute_keep(&p, j->size, e2v_job_read, NULL, j, e2v_job_sink, j, &j->res,
				  keep);
	j->tail_zero = !j->err && e2v_job_tail_zero(j);
	e2v_job_sign(j);
}

/* 1 if @a and @b hash a block alike: the same algorithm and salt */
static int e2v_hash_alike(const struct e2verity_params *a, const struct e2verity_params *b)
{
	/* e2v_jobs_run() passes &same[0]->params only when ns > 0, set: cppcheck does not follow ns */
	// cppcheck-suppress uninitvar
	return a->hash_alg == b->hash_alg && a->salt_size == b->salt_size &&
	       !memcmp(a->salt, b->salt, a->salt_size);
}

static struct e2verity_hasher *e2v_one_hasher_for(struct e2v_one_hasher *o,
						  const struct e2verity_params *p)
{
	if (o->h && e2v_hash_alike(&o->p, p))
		return o->h;
	e2v_hasher_free(o->h);
	o->h = NULL;
	if (e2v_hasher_new(p->hash_alg, p->salt, p->salt_size, &o->h))
		return NULL;
	memcpy(o->salt, p->salt, p->salt_size);
	o->p = (struct e2verity_params){ .hash_alg = p->hash_alg,
					 .salt = o->salt,
					 .salt_size = p->salt_size };
	return o->h;
}

static struct e2verity_hasher *e2v_one_desc_hasher(struct e2v_one_hasher *o, unsigned int alg)
{
	if (o->desc && o->desc_alg == alg)
		return o->desc;
	e2v_hasher_free(o->desc);
	o->desc = NULL;
	if (e2v_hasher_new(alg, NULL, 0, &o->desc))
		return NULL;
	o->desc_alg = alg;
	return o->desc;
}

static void e2v_one_hasher_free(struct e2v_one_hasher *o)
{
	e2v_hasher_free(o->h);
	e2v_hasher_free(o->desc);
	free(o->buf);
	o->h = NULL;
	o->desc = NULL;
	o->buf = NULL;
}

/*
 * The data block of a file of one block (Merkle and filesystem block alike)
 * as the batch's read found it, zeros after EOF: its hash is the root hash.
 * NULL for anything else.
 */
static const uint8_t *e2v_job_one_block(const struct e2v_ahead_job *j)
{
	const unsigned int bs = j->fs_block_size, used = j->size % bs;

	if (!j->pre_data || !j->size || j->size > j->params.block_size ||
	    j->params.block_size != bs)
		return NULL;
	if (used && !e2v_all_zero(j->pre_data + used, bs - used))
		return NULL;
	return j->pre_data;
}

/* A range of blocks a job of the batch wants: where they are, where the job finds them. */
struct e2v_want {
	blk64_t pblk;
	unsigned int n;
	const uint8_t **at;
};

/*
 * A batch's blocks are read together: runs of them, with gaps of at most
 * E2V_PRELOAD_GAP blocks of other files read too, up to E2V_PRELOAD_RUN
 * blocks a read.  A page fault or a pread() of one block costs ~1.5 us on a
 * VM, a 64 KiB pread() 0.3 us a block.
 */
#define E2V_PRELOAD_WANT 16
#define E2V_PRELOAD_GAP 4
#define E2V_PRELOAD_RUN 64
#define E2V_PRELOAD_BLOCKS 128

/* Adds the job's bytes [@start, @end), whole blocks, when one initialized extent holds them. */
static int e2v_want_add(struct e2v_want *w, unsigned int *nw, const struct e2v_ahead_job *j,
			uint64_t start, uint64_t end, const uint8_t **at)
{
	const unsigned int bs = j->fs_block_size;
	const blk64_t lblk = start / bs, n = (end - start) / bs;
	const struct e2v_extent *x;

	if (!n || n > E2V_PRELOAD_WANT || start % bs || end % bs)
		return 0;
	x = e2v_extent_find(j->extents, j->nr_extents, lblk);
	if (!x || x->lblk > lblk || x->uninit || lblk + n > x->lblk + x->len)
		return 0;
	w[(*nw)++] = (struct e2v_want){ x->pblk + (lblk - x->lblk), n, at };
	return 1;
}

/*
 * Reads the first block of each job, and for check its metadata region,
 * with few pread() calls into @buf (E2V_PRELOAD_BLOCKS blocks).  What is not
 * read here (not in one extent, too large, an error) is read by the job.
 */
static void e2v_jobs_preload(struct e2v_ahead_job **jobs, unsigned int n, uint8_t *buf)
{
	struct e2v_want w[2 * E2V_HASHER_MANY];
	unsigned int nw = 0, used = 0;

	if (!n || !buf)
		return;
	for (unsigned int i = 0; i < n; i++) {
		struct e2v_ahead_job *j = jobs[i];
		const unsigned int bs = j->fs_block_size;
		const struct e2v_extent *last =
			j->nr_extents ? &j->extents[j->nr_extents - 1] : NULL;
		uint64_t start = e2v_round_up(j->size, E2VERITY_EXT4_METADATA_ALIGN), end;

		if (j->size && j->size <= bs)
			e2v_want_add(w, &nw, j, 0, bs, &j->pre_data);
		/* check reads the stored metadata first (@finish) */
		if (!j->finish || !last || j->last_leaf_empty)
			continue;
		end = (last->lblk + last->len) * (uint64_t)bs;
		if (end > start && e2v_want_add(w, &nw, j, start, end, &j->pre_meta))
			j->pre_meta_len = end - start;
	}
	/* by block, so that neighbours come in one read */
	for (unsigned int i = 1; i < nw; i++)
		for (unsigned int k = i; k && w[k - 1].pblk > w[k].pblk; k--) {
			struct e2v_want t = w[k];

			w[k] = w[k - 1];
			w[k - 1] = t;
		}
	for (unsigned int i = 0, k; i < nw; i = k) {
		const struct e2v_ahead_job *j = jobs[0];
		const unsigned int bs = j->fs_block_size;
		blk64_t first = w[i].pblk, end = w[i].pblk + w[i].n;

		for (k = i + 1; k < nw && w[k].pblk <= end + E2V_PRELOAD_GAP; k++) {
			blk64_t e = w[k].pblk + w[k].n > end ? w[k].pblk + w[k].n : end;

			if (e - first > E2V_PRELOAD_RUN)
				break;
			end = e;
		}
		if (used + (end - first) > E2V_PRELOAD_BLOCKS)
			break;
		if (e2v_pread_all(j->fd, buf + (size_t)used * bs, (end - first) * bs,
				  j->base + first * bs))
			continue;
		for (unsigned int m = i; m < k; m++)
			*w[m].at = buf + (size_t)(used + (w[m].pblk - first)) * bs;
		used += end - first;
	}
}

/*
 * Several jobs at once: the one-block files among them (the common case in
 * an image of small files) are hashed together, as many as the many-lane
 * hash takes (E2V_HASHER_MANY), the others one by one.
 */
static void e2v_jobs_run(struct e2v_ahead_job **jobs, unsigned int n, struct e2v_scratch *keep,
			 struct e2v_one_hasher *one)
{
	struct e2v_ahead_job *same[E2V_HASHER_MANY], *which[E2V_HASHER_MANY];
	const void *blocks[E2V_HASHER_MANY], *descs[E2V_HASHER_MANY];
	uint8_t roots[E2V_HASHER_MANY][E2VERITY_MAX_DIGEST_SIZE];
	uint8_t raw[E2V_HASHER_MANY][E2VERITY_DESCRIPTOR_SIZE];
	uint8_t *root_out[E2V_HASHER_MANY], *digest_out[E2V_HASHER_MANY];
	struct e2verity_hasher *h = NULL;
	unsigned int ns = 0, nd = 0;
	errcode_t err;

	/* the jobs of a batch are all of one filesystem */
	if (!one->buf && n)
		one->buf = malloc((size_t)E2V_PRELOAD_BLOCKS * jobs[0]->fs_block_size);
	e2v_jobs_preload(jobs, n, one->buf);
	for (unsigned int i = 0; i < n; i++) {
		struct e2v_ahead_job *j = jobs[i];
		const uint8_t *block;

		if (j->finish) {
			j->err = j->finish(j->finish_ctx, j);
			if (j->err)
				continue;
		}
		block = e2v_job_one_block(j);
		/*
		 * hashed like the first such file (their blocks are all the
		 * filesystem's block size): a file hashed otherwise goes alone
		 */
		if (block && ns && !e2v_hash_alike(&j->params, &same[0]->params))
			block = NULL;
		if (!block || ns == E2V_HASHER_MANY) {
			e2v_job_hash(j, keep);
			continue;
		}
		same[ns] = j;
		root_out[ns] = roots[ns];
		blocks[ns++] = block;
	}
	if (!ns)
		goto out;
	h = e2v_one_hasher_for(one, &same[0]->params);
	err = h ? e2v_hasher_many(h, blocks, ns, same[0]->params.block_size, root_out)
		: E2VERITY_ET_NO_MEMORY;
	/* then their descriptors' digests, together too: as costly as the blocks otherwise */
	for (unsigned int i = 0; i < ns; i++) {
		struct e2v_ahead_job *j = same[i];

		j->err = err;
		if (!err) {
			memset(&j->res, 0, sizeof(j->res));
			j->err = e2verity_geometry(&j->params, j->size, &j->res.geo);
		}
		if (j->err)
			continue;
		e2v_result_describe(&j->params, j->size, roots[i], &j->res);
		e2verity_descriptor_encode(&j->res.desc, raw[nd]);
		descs[nd] = raw[nd];
		digest_out[nd] = j->res.digest;
		which[nd++] = j;
	}
	if (nd) {
		h = e2v_one_desc_hasher(one, same[0]->params.hash_alg);
		err = h ? e2v_hasher_many(h, descs, nd, E2VERITY_DESCRIPTOR_SIZE, digest_out)
			: E2VERITY_ET_NO_MEMORY;
		for (unsigned int i = 0; i < nd; i++)
			which[i]->err = err;
	}
	for (unsigned int i = 0; i < ns; i++) {
		struct e2v_ahead_job *j = same[i];

		/* the block was taken from the batch's read only with zeros after EOF */
		j->tail_zero = !j->err;
		e2v_job_sign(j);
	}
out:
	/* the buffer is the next batch's */
	for (unsigned int i = 0; i < n; i++) {
		jobs[i]->pre_data = NULL;
		jobs[i]->pre_meta = NULL;
	}
}

static void *e2v_ahead_main(void *arg)
{
	struct e2verity_batch *a = arg;
	struct e2v_scratch keep = { 0 };
	struct e2v_one_hasher one = { 0 };

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct e2v_ahead_job *jobs[E2V_HASHER_MANY];
		unsigned int n = 0, want, unstarted = 0;

		for (size_t i = 0; i < a->queued; i++)
			unstarted +=
				a->ring[(a->head + i) % E2V_AHEAD_MAX_JOBS].state == E2V_JOB_QUEUED;
		if (!unstarted) {
			if (a->quit)
				break;
			a->idle++;
			pthread_cond_wait(&a->work, &a->lock);
			a->idle--;
			continue;
		}
		/* a fair share: the other threads should not wait while this one hashes */
		want = (unstarted + a->nthreads - 1) / a->nthreads;
		if (want > E2V_HASHER_MANY)
			want = E2V_HASHER_MANY;
		for (size_t i = 0; i < a->queued && n < want; i++) {
			struct e2v_ahead_job *c = &a->ring[(a->head + i) % E2V_AHEAD_MAX_JOBS];

			if (c->state == E2V_JOB_QUEUED) {
				c->state = E2V_JOB_RUNNING;
				jobs[n++] = c;
			}
		}
		pthread_mutex_unlock(&a->lock);
		e2v_jobs_run(jobs, n, &keep, &one);
		pthread_mutex_lock(&a->lock);
		for (unsigned int i = 0; i < n; i++)
			jobs[i]->state = E2V_JOB_DONE;
		if (a->waiting)
			pthread_cond_signal(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	e2v_scratch_free(&keep);
	e2v_one_hasher_free(&one);
	return NULL;
}

void e2v_ahead_job_free(struct e2v_ahead_job *j)
{
	if (!j)
		return;
	free(j->extents);
	j->extents = NULL;
	j->nr_extents = 0;
	free(j->sig);
	j->sig = NULL;
	j->sig_size = 0;
	free(j->meta_buf);
	j->meta_buf = NULL;
	j->meta = NULL;
	free(j->ima_value);
	j->ima_value = NULL;
	j->ima_len = 0;
	j->held = 0;
	j->plan_opts = NULL;
	j->opened = 0;
}

/* Queues files until the window is full; on the caller's thread (libext2fs). */
static errcode_t e2v_ahead_fill(struct e2verity_batch *a)
{
	unsigned int fresh = 0;
	size_t added = 0;

	/*
	 * The jobs are made first and handed over together: one lock and one
	 * wake-up for the lot, not one each (a hashing thread woken for one job
	 * takes the lock back and forth with this thread, and on a busy machine
	 * each wake-up could take this thread's core).  Only this thread moves
	 * past a->queued, so the slots after it are its own until then.
	 */
	while (a->next < a->count && a->queued + added < E2V_AHEAD_MAX_JOBS &&
	       a->bytes < E2V_AHEAD_MAX_BYTES) {
		struct e2v_ahead_job *j =
			&a->ring[(a->head + a->queued + added) % E2V_AHEAD_MAX_JOBS];
		uint8_t *tree = j->tree;
		uint64_t *offsets = j->offsets;
		size_t cap = j->cap;
		errcode_t err;

		/* the caller still holds the job that was here */
		if (j->held)
			break;
		memset(j, 0, sizeof(*j));
		j->tree = tree;
		j->offsets = offsets;
		j->cap = cap;
		j->ino = a->inos[a->next++];
		j->fd = a->fd;
		j->base = a->base;
		j->fs_block_size = a->fs->blocksize;
		j->fs = a->fs;
		j->state = E2V_JOB_DONE;
		err = a->prepare(a->ctx, a->fs, j);
		if (err || j->size > E2V_AHEAD_MAX_FILE || !j->nr_extents) {
			/* not for us: the caller's thread will do it as if we were not there */
			j->skip = 1;
			free(j->extents);
			j->extents = NULL;
			j->nr_extents = 0;
			free(j->meta_buf);
			j->meta_buf = NULL;
			j->meta = NULL;
		} else {
			j->state = E2V_JOB_QUEUED;
			a->bytes += j->size;
			fresh++;
		}
		added++;
	}
	if (!added)
		return 0;
	pthread_mutex_lock(&a->lock);
	a->queued += added;
	if (fresh && a->idle)
		pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

struct e2v_ahead_job *e2v_ahead_take(struct e2verity_batch *a, ext2_ino_t ino)
{
	struct e2v_ahead_job *j = NULL;

	if (!a)
		return NULL;
	if (a->queued < E2V_AHEAD_REFILL || !a->queued)
		e2v_ahead_fill(a);
	pthread_mutex_lock(&a->lock);
	while (a->queued) {
		struct e2v_ahead_job *c = &a->ring[a->head];

		if (c->state == E2V_JOB_QUEUED && c->ino != ino) {
			/* passed over by the caller before any thread started it */
			c->state = E2V_JOB_DONE;
			c->skip = 1;
			a->bytes -= c->size;
		} else if (c->state == E2V_JOB_QUEUED) {
			/*
			 * No thread is free for it: better hash it here than
			 * wait, and the unstarted ones after it with it
			 */
			struct e2v_ahead_job *jobs[E2V_HASHER_MANY];
			unsigned int n = 0;

			for (size_t i = 0; i < a->queued && n < E2V_HASHER_MANY; i++) {
				struct e2v_ahead_job *x =
					&a->ring[(a->head + i) % E2V_AHEAD_MAX_JOBS];

				if (x->state != E2V_JOB_QUEUED)
					break;
				x->state = E2V_JOB_RUNNING;
				jobs[n++] = x;
			}
			pthread_mutex_unlock(&a->lock);
			e2v_jobs_run(jobs, n, &a->keep, &a->one);
			pthread_mutex_lock(&a->lock);
			for (unsigned int i = 0; i < n; i++)
				jobs[i]->state = E2V_JOB_DONE;
		}
		while (c->state != E2V_JOB_DONE) {
			a->waiting = 1;
			pthread_cond_wait(&a->done, &a->lock);
			a->waiting = 0;
		}
		a->head = (a->head + 1) % E2V_AHEAD_MAX_JOBS;
		a->queued--;
		if (!c->skip)
			a->bytes -= c->size;
		if (c->ino == ino) {
			j = c;
			j->held = 1;
			break;
		}
		e2v_ahead_job_free(c);
	}
	pthread_mutex_unlock(&a->lock);
	if (j && (j->skip || j->err)) {
		/* the caller's own pass will meet and report whatever went wrong */
		e2v_ahead_job_free(j);
		j = NULL;
	}
	return j;
}

const struct e2v_ahead_job *e2v_ahead_peek(const struct e2verity_batch *a, ext2_ino_t ino)
{
	const struct e2v_ahead_job *j;

	/* the ring's head and what prepare wrote move on this thread only */
	if (!a || !a->queued)
		return NULL;
	j = &a->ring[a->head];
	return j->ino == ino ? j : NULL;
}

int e2v_ahead_image_fd(const struct e2verity_batch *a, uint64_t *base)
{
	if (!a)
		return -1;
	*base = a->base;
	return a->fd;
}

void e2v_ahead_reader(const struct e2v_ahead_job *j, struct e2v_ext4_file *f)
{
	f->direct = 1;
	f->fd = j->fd;
	f->base = j->base;
	f->preload = j->pre_meta;
	f->preload_len = j->pre_meta_len;
}

uint8_t *e2v_ahead_buffer(struct e2verity_batch *a, size_t len)
{
	uint8_t *b;

	if (!a)
		return NULL;
	if (len > a->buf_len) {
		b = realloc(a->buf, len);
		if (!b)
			return NULL;
		a->buf = b;
		a->buf_len = len;
	}
	memset(a->buf, 0, len);
	return a->buf;
}

blk64_t e2v_ahead_alloc_from(const struct e2verity_batch *a, blk64_t goal, unsigned long epoch)
{
	if (a && epoch && a->used_epoch == epoch && goal >= a->used_from && goal < a->used_to)
		return a->used_to;
	return goal;
}

void e2v_ahead_alloc_used(struct e2verity_batch *a, blk64_t goal, blk64_t search, blk64_t end,
			  unsigned long epoch)
{
	if (!a)
		return;
	/* what was found in use from @goal to @search is still in use: the span grows */
	if (search == goal || a->used_epoch != epoch || goal < a->used_from || goal >= a->used_to)
		a->used_from = goal;
	a->used_to = end;
	a->used_epoch = epoch;
}

errcode_t e2v_ahead_replay(const struct e2v_ahead_job *j, e2verity_tree_fn tree, void *tree_ctx,
			   struct e2verity_result *res)
{
	const unsigned int bs = j->params.block_size;
	errcode_t err;

	for (size_t i = 0; i < j->nblocks; i++) {
		err = tree(tree_ctx, j->tree + i * bs, bs, j->offsets[i]);
		if (err)
			return err;
	}
	*res = j->res;
	return 0;
}

int e2v_ahead_matches(const struct e2v_ahead_job *j, const struct e2verity_params *p, uint64_t size)
{
	return j && j->size == size && j->params.hash_alg == p->hash_alg &&
	       j->params.block_size == p->block_size && j->params.salt_size == p->salt_size &&
	       (!p->salt_size || memcmp(j->salt, p->salt, p->salt_size) == 0);
}

int e2v_ahead_judged(const struct e2v_ahead_job *j, const struct e2verity_verifier *ver,
		     unsigned int alg, const uint8_t *digest, size_t digest_size,
		     const uint8_t *sig, size_t sig_size)
{
	return j && j->verified && j->verifier == ver && j->verify_alg == alg &&
	       digest_size <= sizeof(j->verify_digest) &&
	       memcmp(j->verify_digest, digest, digest_size) == 0 && j->sig_size == sig_size &&
	       memcmp(j->sig, sig, sig_size) == 0;
}

errcode_t e2v_ahead_new(ext2_filsys fs, const ext2_ino_t *inos, size_t count, unsigned int threads,
			e2v_ahead_prepare_fn prepare, void *ctx, struct e2verity_batch **ret)
{
	struct e2verity_batch *a;

	*ret = NULL;
	/* one thread gains nothing; without a file to pread (e2v_fs_image_fd()), nothing to do */
	if (threads < 2 || count < 2)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return E2VERITY_ET_NO_MEMORY;
	a->fd = e2v_fs_image_fd(fs, &a->base);
	if (a->fd < 0) {
		free(a);
		return 0;
	}
	a->fs = fs;
	a->inos = inos;
	a->count = count;
	a->prepare = prepare;
	a->ctx = ctx;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->done, NULL);
	if (threads > E2V_AHEAD_MAX_THREADS)
		threads = E2V_AHEAD_MAX_THREADS;
	for (; a->nthreads < threads; a->nthreads++)
		if (pthread_create(&a->threads[a->nthreads], NULL, e2v_ahead_main, a))
			break;
	if (!a->nthreads) {
		e2v_ahead_free(a);
		return 0;
	}
	*ret = a;
	return 0;
}

void e2v_ahead_free(struct e2verity_batch *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->quit = 1;
	/* queued jobs are not started: they would be thrown away */
	for (size_t i = 0; i < a->queued; i++) {
		struct e2v_ahead_job *j = &a->ring[(a->head + i) % E2V_AHEAD_MAX_JOBS];

		if (j->state == E2V_JOB_QUEUED)
			j->state = E2V_JOB_DONE;
	}
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (unsigned int i = 0; i < a->nthreads; i++)
		pthread_join(a->threads[i], NULL);
	for (size_t i = 0; i < E2V_AHEAD_MAX_JOBS; i++) {
		free(a->ring[i].extents);
		free(a->ring[i].meta_buf);
		free(a->ring[i].sig);
		free(a->ring[i].ima_value);
		free(a->ring[i].tree);
		free(a->ring[i].offsets);
	}
	e2v_scratch_free(&a->keep);
	e2v_one_hasher_free(&a->one);
	free(a->buf);
	close(a->fd);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->done);
	free(a);
}
