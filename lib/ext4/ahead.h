/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ahead.h - internal: Merkle trees of the next small files of a batch, made on other threads */
#ifndef E2VERITY_AHEAD_H
#define E2VERITY_AHEAD_H

#include "ext4_file.h"
#include "core/verify.h"

/* One file to hash: what the prepare callback fills in, then the result. */
struct e2v_ahead_job {
	/* set by the prepare callback (on the caller's thread) */
	struct e2verity_params params; /* validated; salt points to @salt */
	uint64_t size;
	struct e2v_extent *extents; /* malloc()ed; the job owns it */
	size_t nr_extents;
	/*
	 * The rest of the preparing, on the hashing thread before the hashing
	 * (NULL: none): what needs no libext2fs, only pread() from @fd, such as
	 * reading the stored metadata, so that the caller's thread does not.
	 * It sets @params and may change what prepare set; an error: the caller
	 * does the file itself, as when prepare fails.
	 */
	errcode_t (*finish)(const void *ctx, struct e2v_ahead_job *j);
	const void *finish_ctx;
	/* set by the queue */
	ext2_ino_t ino;
	int fd;
	uint64_t base; /* the filesystem's byte offset in the file behind @fd */
	unsigned int fs_block_size;
	ext2_filsys fs; /* for @finish: its fields that never change (block size) only */
	/*
	 * While a hashing thread has the job: its first block and its metadata
	 * region (@pre_meta_len bytes), when a read for the whole batch got them
	 */
	const uint8_t *pre_data, *pre_meta;
	size_t pre_meta_len;
	/* signs the digest on the hashing thread too, when set: E2VERITY_SEAL_SIGN_ANY_THREAD */
	e2verity_sign_fn sign;
	void *sign_ctx;
	/* and its security.ima value: E2VERITY_SEAL_IMA_SIGN_ANY_THREAD */
	e2verity_sign_fn ima_sign;
	void *ima_ctx;
	/*
	 * check: judges the stored signature @sig (copied) over @verify_digest
	 * on the hashing thread too, when set, with @verifier (or NULL)
	 */
	int verify;
	const struct e2verity_verifier *verifier;
	unsigned int verify_alg;
	uint8_t verify_digest[E2VERITY_MAX_DIGEST_SIZE];
	int skip; /* not hashed ahead: the caller does it itself */
	int held; /* handed to the caller, not yet given back */
	int state;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	/* the result: every tree block in the order e2verity_compute() emitted it */
	errcode_t err;
	int tail_zero; /* the bytes after EOF in the last block are zeros on disk */
	struct e2verity_result res;
	uint8_t *sig; /* malloc()ed: made by @sign, or the stored one to judge */
	size_t sig_size;
	/* check: the metadata region of @extents and @size, read whole by the prepare callback */
	const uint8_t *meta;
	uint8_t *meta_buf;  /* what @meta points into */
	uint8_t *ima_value; /* malloc()ed, from @ima_sign */
	size_t ima_len;
	int verified; /* @verify_rep holds the verdict */
	struct e2v_sig_report verify_rep;
	uint8_t *tree;
	uint64_t *offsets;
	size_t nblocks, cap;
	/*
	 * seal: the plan the prepare callback made with the options @plan_opts
	 * (NULL: none), from the inode @inode
	 */
	const void *plan_opts;
	struct e2verity_seal_plan plan;
	struct ext2_inode_large inode;
	/*
	 * check: set when the prepare callback opened the file without a fault
	 * (e2v_ext4_file_open_in()): @inode, @extents and these are what it read
	 */
	int opened;
	blk64_t tree_node_blocks;
	int last_leaf_empty;
};

/*
 * Fills in @j (params with the salt copied into @j->salt, size, extents) for
 * inode @j->ino, on the caller's thread.  An error or a job without extents
 * means: do not hash it ahead.
 */
typedef errcode_t (*e2v_ahead_prepare_fn)(void *ctx, ext2_filsys fs, struct e2v_ahead_job *j);

struct e2verity_batch;

/*
 * Starts @threads hashing threads for the batch @inos (kept by the caller,
 * who takes them in this order).  Sets *@ret to NULL, and returns 0, when
 * hashing ahead would not help (one thread, one file) or is not possible.
 */
errcode_t e2v_ahead_new(ext2_filsys fs, const ext2_ino_t *inos, size_t count, unsigned int threads,
			e2v_ahead_prepare_fn prepare, void *ctx, struct e2verity_batch **ret);
void e2v_ahead_free(struct e2verity_batch *a);

/*
 * The finished job of @ino, or NULL (then hash it as usual).  Jobs of the
 * files before it that were not taken are dropped.  Give it back with
 * e2v_ahead_job_free() before the next call.
 */
struct e2v_ahead_job *e2v_ahead_take(struct e2verity_batch *a, ext2_ino_t ino);
void e2v_ahead_job_free(struct e2v_ahead_job *j); /* NULL is fine */

/* 1 if @j hashed @size bytes with the parameters of @p (validated) */
int e2v_ahead_matches(const struct e2v_ahead_job *j, const struct e2verity_params *p,
		      uint64_t size);

/*
 * 1 if @j judged signature @sig of @sig_size bytes over @digest (of
 * @digest_size bytes, for @alg) with @ver: then @j->verify_rep is the verdict
 */
int e2v_ahead_judged(const struct e2v_ahead_job *j, const struct e2verity_verifier *ver,
		     unsigned int alg, const uint8_t *digest, size_t digest_size,
		     const uint8_t *sig, size_t sig_size);

/*
 * Where a search for free blocks from @goal may start instead: past a span
 * the batch's last allocations found all in use within free epoch @epoch
 * (e2v_txn_free_epoch(), 0: none), in which such a span stays in use.
 */
blk64_t e2v_ahead_alloc_from(const struct e2verity_batch *a, blk64_t goal, unsigned long epoch);
/* A search from @goal that started at @search found the blocks up to @end in use, or now used. */
void e2v_ahead_alloc_used(struct e2verity_batch *a, blk64_t goal, blk64_t search, blk64_t end,
			  unsigned long epoch);

/* The job queued next if it is @ino's, else NULL; on the caller's thread, what prepare set only */
const struct e2v_ahead_job *e2v_ahead_peek(const struct e2verity_batch *a, ext2_ino_t ino);

/* @len zeroed bytes the batch keeps for the caller's thread until the next call; NULL if none */
uint8_t *e2v_ahead_buffer(struct e2verity_batch *a, size_t len);

/* The batch's descriptor of the image (the filesystem at *@base), -1 without a batch */
int e2v_ahead_image_fd(const struct e2verity_batch *a, uint64_t *base);

/* Makes @f read as the hashing thread read @j: with pread(), past libext2fs. */
void e2v_ahead_reader(const struct e2v_ahead_job *j, struct e2v_ext4_file *f);

/* Hands the tree blocks of @j to @tree as e2verity_compute() would have, and its result. */
errcode_t e2v_ahead_replay(const struct e2v_ahead_job *j, e2verity_tree_fn tree, void *tree_ctx,
			   struct e2verity_result *res);

#endif /* E2VERITY_AHEAD_H */
