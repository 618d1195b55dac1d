/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hash.h - internal: the salted hasher of one Merkle tree */
#ifndef E2VERITY_HASH_H
#define E2VERITY_HASH_H

#include <openssl/evp.h>

#include "core.h"

enum e2v_md {
	E2V_MD_SHA1,
	E2V_MD_SHA224,
	E2V_MD_SHA256,
	E2V_MD_SHA384,
	E2V_MD_SHA512,
	E2V_MD_COUNT
};

/*
 * The digest @which, fetched from the default provider once for the process
 * and shared by every thread; NULL if the provider has none.
 */
const EVP_MD *e2v_evp_md(enum e2v_md which);

/* A hasher owns the salted initial state of one file's Merkle tree. */
struct e2verity_hasher;

/**
 * e2v_hasher_new() - prepare a salted hash state for one tree
 * @alg: E2VERITY_HASH_*
 * @salt: salt bytes, or NULL
 * @salt_size: 0..E2VERITY_MAX_SALT_SIZE
 * @ret: the new hasher
 *
 * The salt, zero-padded to the hash's block size, is absorbed once here; every
 * block hash then starts from a copy of that state.
 *
 * Return: 0 or an error code.
 */
errcode_t e2v_hasher_new(unsigned int alg, const uint8_t *salt, unsigned int salt_size,
			 struct e2verity_hasher **ret);

/**
 * e2v_hasher_dup() - make an independent copy, for use in another thread
 * @h: hasher to copy
 * @ret: the copy
 *
 * Return: 0 or an error code.
 */
errcode_t e2v_hasher_dup(const struct e2verity_hasher *h, struct e2verity_hasher **ret);

/**
 * e2v_hasher_block() - salted hash of one Merkle tree or data block
 * @h: hasher
 * @data: the block
 * @len: bytes in @data
 * @out: digest_size bytes
 *
 * Return: 0 or an error code.
 */
errcode_t e2v_hasher_block(struct e2verity_hasher *h, const void *data, size_t len, uint8_t *out);

/**
 * e2v_hasher_free() - release a hasher
 * @h: hasher or NULL
 */
void e2v_hasher_free(struct e2verity_hasher *h);

/* 1 if @a and @b hash alike (same algorithm and salt) */
int e2v_hasher_same(const struct e2verity_hasher *a, const struct e2verity_hasher *b);
unsigned int e2v_hasher_digest_size(const struct e2verity_hasher *h);
/*
 * e2v_hasher_block() of two blocks of @len bytes, faster than two calls
 * where the two-lane SHA-256 can do them together.
 */
errcode_t e2v_hasher_pair(struct e2verity_hasher *h, const void *a, const void *b, size_t len,
			  uint8_t *out_a, uint8_t *out_b);

/* the most blocks e2v_hasher_many() hashes at once: batches of this many are best */
#define E2V_HASHER_MANY 16

/**
 * e2v_hasher_many() - e2v_hasher_block() of @n blocks of @len bytes each
 * @h: hasher
 * @blocks: the blocks
 * @n: how many
 * @len: bytes in each block
 * @out: where each block's digest goes
 *
 * Sixteen SHA-256 or eight SHA-512 blocks at once in AVX-512 lanes where
 * this CPU has them and they are faster, else in pairs.
 *
 * Return: 0 or an error code.
 */
errcode_t e2v_hasher_many(struct e2verity_hasher *h, const void *const blocks[], unsigned int n,
			  size_t len, uint8_t *const out[]);

#endif /* E2VERITY_HASH_H */
