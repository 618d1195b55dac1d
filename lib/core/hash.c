// SPDX-License-Identifier: GPL-2.0-or-later
/* hash.c - SHA-256/SHA-512 by OpenSSL EVP, SHA-NI or AVX-512 lanes, from a precomputed salted state */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/evp.h>

#include "hash.h"
#include "sha256_x16.h"
#include "sha256_x2.h"
#include "sha512_x8.h"

static const struct e2verity_hash_alg e2v_hash_algs[] = {
	{ "sha256", E2VERITY_HASH_SHA256, 32, 64 },
	{ "sha512", E2VERITY_HASH_SHA512, 64, 128 },
};

struct e2verity_hasher {
	const struct e2verity_hash_alg *alg;
	EVP_MD *md;
	/* state after absorbing the padded salt; NULL when there is no salt */
	EVP_MD_CTX *salted;
	EVP_MD_CTX *work;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	unsigned int salt_size;
	/*
	 * SHA-256 by sha256_x2.c (ni) from @mid; runs of blocks by sha256_x16.c
	 * from @mid or sha512_x8.c from @mid512 (x16: the AVX-512 lanes); EVP is
	 * the fallback and the reference
	 */
	int ni, x16;
	struct e2v_sha256_mid mid;
	struct e2v_sha512_mid mid512;
};

/*
 * E2VERITY_HASH=openssl forces the OpenSSL path, so that the test suite can
 * run on both and compare them on any machine; =ni leaves out the AVX-512
 * lanes (sixteen for SHA-256, eight for SHA-512), =x16 takes them without
 * timing them (where the CPU has AVX-512).
 */
static int e2v_ni;
/* 0: no AVX-512 lanes; 1: if they prove faster (e2v_lanes_decide); 2: forced */
static int e2v_x16;
static pthread_once_t e2v_ni_once = PTHREAD_ONCE_INIT;

/* once per process: getenv() walks the environment, each file's descriptor digest asked */
static void e2v_ni_decide(void)
{
	const char *force = getenv("E2VERITY_HASH");
	int openssl = force && strcmp(force, "openssl") == 0;

	e2v_ni = !openssl && e2v_sha256_ni_usable();
	if (!openssl && !(force && strcmp(force, "ni") == 0) && e2v_sha256_x16_usable())
		e2v_x16 = force && strcmp(force, "x16") == 0 ? 2 : 1;
}

static int e2v_want_ni(const struct e2verity_hash_alg *alg)
{
	if (alg->num != E2VERITY_HASH_SHA256)
		return 0;
	pthread_once(&e2v_ni_once, e2v_ni_decide);
	return e2v_ni;
}

static int e2v_want_x16(void)
{
	pthread_once(&e2v_ni_once, e2v_ni_decide);
	return e2v_x16;
}

const struct e2verity_hash_alg *e2verity_hash_alg_by_num(unsigned int num)
{
	for (size_t i = 0; i < E2V_ARRAY_SIZE(e2v_hash_algs); i++)
		if (e2v_hash_algs[i].num == num)
			return &e2v_hash_algs[i];
	return NULL;
}

const struct e2verity_hash_alg *e2verity_hash_alg_by_name(const char *name)
{
	for (size_t i = 0; i < E2V_ARRAY_SIZE(e2v_hash_algs); i++)
		if (strcmp(e2v_hash_algs[i].name, name) == 0)
			return &e2v_hash_algs[i];
	return NULL;
}

/*
 * Fetch explicitly, once per process: the implicit fetch behind EVP_sha256()
 * repeats a provider lookup (and takes a global lock) on every
 * EVP_DigestInit, and so does EVP_MD_fetch() itself; either costs more than
 * hashing a 4K block, or a descriptor.  Kept until exit: the table is
 * reachable, never a leak.
 */
static const char *const e2v_md_names[E2V_MD_COUNT] = {
	[E2V_MD_SHA1] = "SHA1",	    [E2V_MD_SHA224] = "SHA224", [E2V_MD_SHA256] = "SHA256",
	[E2V_MD_SHA384] = "SHA384", [E2V_MD_SHA512] = "SHA512",
};
static EVP_MD *e2v_mds[E2V_MD_COUNT];
static pthread_once_t e2v_mds_once = PTHREAD_ONCE_INIT;

static void e2v_mds_fetch(void)
{
	for (int i = 0; i < E2V_MD_COUNT; i++)
		e2v_mds[i] = EVP_MD_fetch(NULL, e2v_md_names[i], NULL);
}

const EVP_MD *e2v_evp_md(enum e2v_md which)
{
	if ((unsigned int)which >= E2V_MD_COUNT)
		return NULL;
	pthread_once(&e2v_mds_once, e2v_mds_fetch);
	return e2v_mds[which];
}

static EVP_MD *e2v_fetch(const struct e2verity_hash_alg *alg)
{
	EVP_MD *md = (EVP_MD *)e2v_evp_md(alg->num == E2VERITY_HASH_SHA256 ? E2V_MD_SHA256
									   : E2V_MD_SHA512);

	/* the hasher frees its own reference */
	return md && EVP_MD_up_ref(md) ? md : NULL;
}

errcode_t e2verity_hash_buf(unsigned int alg_num, const void *data, size_t len, uint8_t *out)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(alg_num);
	const EVP_MD *md;

	if (!alg)
		return E2VERITY_ET_BAD_HASH_ALG;
	/* a descriptor is 256 bytes: SHA-NI takes whole 64-byte blocks */
	if (len % 64 == 0 && e2v_want_ni(alg)) {
		struct e2v_sha256_mid mid;

		e2v_sha256_ni_init(&mid, NULL);
		e2v_sha256_ni_x1(&mid, data, len, out);
		return 0;
	}
	md = e2v_evp_md(alg->num == E2VERITY_HASH_SHA256 ? E2V_MD_SHA256 : E2V_MD_SHA512);
	if (!md)
		return E2VERITY_ET_CRYPTO;
	if (!EVP_Digest(data, len, out, NULL, md, NULL))
		return E2VERITY_ET_CRYPTO;
	return 0;
}

errcode_t e2v_hasher_new(unsigned int alg_num, const uint8_t *salt, unsigned int salt_size,
			 struct e2verity_hasher **ret)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(alg_num);
	uint8_t padded[128];
	struct e2verity_hasher *h;
	errcode_t err = E2VERITY_ET_CRYPTO;

	*ret = NULL;
	if (!alg)
		return E2VERITY_ET_BAD_HASH_ALG;
	if (salt_size > E2VERITY_MAX_SALT_SIZE)
		return E2VERITY_ET_SALT_TOO_LONG;
	h = calloc(1, sizeof(*h));
	if (!h)
		return E2VERITY_ET_NO_MEMORY;
	h->alg = alg;
	h->md = e2v_fetch(alg);
	h->work = EVP_MD_CTX_new();
	if (!h->md || !h->work)
		goto out;
	/* fs-verity pads the salt with zeros to the hash's block size */
	memset(padded, 0, sizeof(padded));
	if (salt_size)
		memcpy(padded, salt, salt_size);
	h->ni = e2v_want_ni(alg);
	h->x16 = e2v_want_x16();
	if (h->ni)
		e2v_sha256_ni_init(&h->mid, salt_size ? padded : NULL);
	else if (h->x16 && alg->num == E2VERITY_HASH_SHA256)
		e2v_sha256_x16_init(&h->mid, salt_size ? padded : NULL);
	if (h->x16 && alg->num == E2VERITY_HASH_SHA512)
		e2v_sha512_x8_init(&h->mid512, salt_size ? padded : NULL);
	if (salt_size) {
		memcpy(h->salt, salt, salt_size);
		h->salt_size = salt_size;
		h->salted = EVP_MD_CTX_new();
		if (!h->salted || !EVP_DigestInit_ex(h->salted, h->md, NULL) ||
		    !EVP_DigestUpdate(h->salted, padded, alg->block_size))
			goto out;
	}
	*ret = h;
	return 0;
out:
	e2v_hasher_free(h);
	return err;
}

errcode_t e2v_hasher_dup(const struct e2verity_hasher *h, struct e2verity_hasher **ret)
{
	return e2v_hasher_new(h->alg->num, h->salt, h->salt_size, ret);
}

errcode_t e2v_hasher_block(struct e2verity_hasher *h, const void *data, size_t len, uint8_t *out)
{
	int ok;

	if (h->ni && len % 64 == 0) {
		e2v_sha256_ni_x1(&h->mid, data, len, out);
		return 0;
	}
	if (h->salted)
		ok = EVP_MD_CTX_copy_ex(h->work, h->salted);
	else
		ok = EVP_DigestInit_ex(h->work, h->md, NULL);
	if (!ok || !EVP_DigestUpdate(h->work, data, len) || !EVP_DigestFinal_ex(h->work, out, NULL))
		return E2VERITY_ET_CRYPTO;
	return 0;
}

errcode_t e2v_hasher_pair(struct e2verity_hasher *h, const void *a, const void *b, size_t len,
			  uint8_t *out_a, uint8_t *out_b)
{
	errcode_t err;

	if (h->ni && len % 64 == 0) {
		e2v_sha256_ni_x2(&h->mid, a, b, len, out_a, out_b);
		return 0;
	}
	err = e2v_hasher_block(h, a, len, out_a);
	return err ? err : e2v_hasher_block(h, b, len, out_b);
}

/* the lanes of @h's algorithm: up to 16 (SHA-256) or 8 (SHA-512) blocks in one call */
static unsigned int e2v_lanes(const struct e2verity_hasher *h)
{
	return h->alg->num == E2VERITY_HASH_SHA256 ? E2V_SHA256_X16_LANES : E2V_SHA512_X8_LANES;
}

static void e2v_lanes_run(const struct e2verity_hasher *h, const void *const blocks[],
			  unsigned int n, size_t len, uint8_t *const out[])
{
	if (h->alg->num == E2VERITY_HASH_SHA256)
		e2v_sha256_x16(&h->mid, blocks, n, len, out);
	else
		e2v_sha512_x8(&h->mid512, blocks, n, len, out);
}

/*
 * The AVX-512 lanes beat the SHA extensions where those are slow (Intel Ice
 * Lake: 2.5x) and lose where AVX-512 runs at half width and the SHA unit is
 * fast (AMD Zen 4); SHA-512 has no SHA instructions there, OpenSSL's one
 * stream is slower still.  Timed once per process and algorithm, a full call
 * of 4K blocks against the pairs e2v_hasher_pair() hashes otherwise, the best
 * of a few tries.  A call costs the same for any number of lanes: a partial
 * batch of fewer than @min blocks goes the other way.
 */
struct e2v_lanes_choice {
	pthread_once_t once;
	int decided;
	unsigned int min; /* 0: never the lanes */
};
static struct e2v_lanes_choice e2v_choice256 = { .once = PTHREAD_ONCE_INIT };
static struct e2v_lanes_choice e2v_choice512 = { .once = PTHREAD_ONCE_INIT };

static double e2v_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void e2v_lanes_decide(struct e2v_lanes_choice *c, unsigned int alg)
{
	enum { BS = 4096, TRIES = 3, MAX = E2V_SHA256_X16_LANES };
	struct e2verity_hasher *h = NULL;
	double lanes = 1e30, other = 1e30;
	uint8_t digests[MAX][E2VERITY_MAX_DIGEST_SIZE], *buf = NULL, *out[MAX];
	const void *data[MAX];
	unsigned int n;

	if (e2v_x16 == 2) {
		c->min = 1;
		goto out;
	}
	/* what the blocks hold makes no difference to the time */
	buf = calloc(MAX, BS);
	if (!buf || e2v_hasher_new(alg, NULL, 0, &h))
		goto out;
	n = e2v_lanes(h);
	for (unsigned int i = 0; i < n; i++) {
		data[i] = buf + i * BS;
		out[i] = digests[i];
	}
	/* the first AVX-512 instructions run slowly while the core changes its power state */
	for (int i = 0; i < 2; i++)
		e2v_lanes_run(h, data, n, BS, out);
	for (int t = 0; t < TRIES; t++) {
		double t0 = e2v_now_ns(), t1, t2;

		e2v_lanes_run(h, data, n, BS, out);
		t1 = e2v_now_ns();
		for (unsigned int i = 0; i < n; i += 2)
			if (e2v_hasher_pair(h, data[i], data[i + 1], BS, out[i], out[i + 1]))
				goto out;
		t2 = e2v_now_ns();
		lanes = t1 - t0 < lanes ? t1 - t0 : lanes;
		other = t2 - t1 < other ? t2 - t1 : other;
	}
	if (lanes < other)
		c->min = (unsigned int)(n * lanes / other) + 1;
out:
	e2v_hasher_free(h);
	free(buf);
	__atomic_store_n(&c->decided, 1, __ATOMIC_RELEASE);
}

static void e2v_decide256(void)
{
	e2v_lanes_decide(&e2v_choice256, E2VERITY_HASH_SHA256);
}

static void e2v_decide512(void)
{
	e2v_lanes_decide(&e2v_choice512, E2VERITY_HASH_SHA512);
}

errcode_t e2v_hasher_many(struct e2verity_hasher *h, const void *const blocks[], unsigned int n,
			  size_t len, uint8_t *const out[])
{
	unsigned int i = 0, lanes;
	errcode_t err = 0;

	if (h->x16 && len % h->alg->block_size == 0) {
		int sha256 = h->alg->num == E2VERITY_HASH_SHA256;
		struct e2v_lanes_choice *c = sha256 ? &e2v_choice256 : &e2v_choice512;

		lanes = e2v_lanes(h);
		/* timed by the first full batch: files of a few blocks never pay for it */
		if (n >= lanes || h->x16 == 2)
			pthread_once(&c->once, sha256 ? e2v_decide256 : e2v_decide512);
		if (__atomic_load_n(&c->decided, __ATOMIC_ACQUIRE) && c->min)
			for (unsigned int k; n - i >= c->min; i += k) {
				k = n - i < lanes ? n - i : lanes;
				e2v_lanes_run(h, blocks + i, k, len, out + i);
			}
	}
	for (; !err && i + 1 < n; i += 2)
		err = e2v_hasher_pair(h, blocks[i], blocks[i + 1], len, out[i], out[i + 1]);
	if (!err && i < n)
		err = e2v_hasher_block(h, blocks[i], len, out[i]);
	return err;
}

void e2v_hasher_free(struct e2verity_hasher *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->salted);
	EVP_MD_CTX_free(h->work);
	EVP_MD_free(h->md);
	free(h);
}

int e2v_hasher_same(const struct e2verity_hasher *a, const struct e2verity_hasher *b)
{
	return a->alg == b->alg && a->salt_size == b->salt_size &&
	       memcmp(a->salt, b->salt, a->salt_size) == 0;
}

unsigned int e2v_hasher_digest_size(const struct e2verity_hasher *h)
{
	return h->alg->digest_size;
}
