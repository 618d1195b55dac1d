/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workers.h - internal: hash the data blocks of one chunk on several threads */
#ifndef E2VERITY_WORKERS_H
#define E2VERITY_WORKERS_H

#include "core.h"

struct e2verity_hasher;

/* the most hashing threads a pool or a file gets, the caller's included */
#define E2V_MAX_THREADS 64

/*
 * Hashes @nblocks blocks of @block_size bytes at @data into @digests, with
 * the salt and algorithm of @tmpl, on at most @active threads of @w, in two
 * halves: the other threads start on the blocks at once, and the caller, back
 * from other work (reading the next chunk), joins them in
 * e2v_workers_finish(), which returns when all are hashed.  @data and
 * @digests must stay untouched in between.  Without a pool (@w NULL), start
 * hashes it all.  All-zero blocks reuse one hash.
 */
errcode_t e2v_workers_start(struct e2verity_workers *w, unsigned int active,
			    struct e2verity_hasher *tmpl, const uint8_t *data, size_t nblocks,
			    unsigned int block_size, uint8_t *digests);
errcode_t e2v_workers_finish(struct e2verity_workers *w);

/* threads of @w, counting the caller's */
unsigned int e2v_workers_count(const struct e2verity_workers *w);

#endif /* E2VERITY_WORKERS_H */
