// SPDX-License-Identifier: GPL-2.0-or-later
/* hash.c - SHA-256/SHA-512 through OpenSSL EVP or SHA-NI, with a precomputed salted state */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "hash.h"
#include "sha256_x2.h"

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
	/* SHA-256 by sha256_x2.c from this state; EVP is the fallback and the reference */
	int ni;
	struct e2v_sha256_mid mid;
};

/*
 * E2VERITY_HASH=openssl forces the OpenSSL path, so that the test suite can
 * run on both and compare them on any machine.
 */
static int e2v_ni;
static pthread_once_t e2v_ni_once = PTHREAD_ONCE_INIT;

/* once per process: getenv() walks the environment, each file's descriptor digest asked */
static void e2v_ni_decide(void)
{
	const char *force = getenv("E2VERITY_HASH");

	e2v_ni = !(force && strcmp(force, "openssl") == 0) && e2v_sha256_ni_usable();
}

static int e2v_want_ni(const struct e2verity_hash_alg *alg)
{
	if (alg->num != E2VERITY_HASH_SHA256)
		return 0;
	pthread_once(&e2v_ni_once, e2v_ni_decide);
	return e2v_ni;
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
	if (h->ni)
		e2v_sha256_ni_init(&h->mid, salt_size ? padded : NULL);
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

errcode_t e2v_hasher_block(struct e2verity_hasher *h, const void *data, size_t len,
				uint8_t *out)
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
