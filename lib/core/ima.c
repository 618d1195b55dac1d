// SPDX-License-Identifier: GPL-2.0-or-later
/* ima.c - IMA fs-verity signatures (sigv3): the security.ima value, signed and verified */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "log.h"
#include "sign.h"

/* the kernel's enum hash_algo (include/uapi/linux/hash_info.h), by number */
static const char *const e2v_kernel_hash_names[] = {
	"md4",	       "md5",	      "sha1",	  "rmd160",   "sha256",	  "sha384",
	"sha512",      "sha224",      "rmd128",	  "rmd256",   "rmd320",	  "wp256",
	"wp384",       "wp512",	      "tgr128",	  "tgr160",   "tgr192",	  "sm3",
	"streebog256", "streebog512", "sha3-256", "sha3-384", "sha3-512",
};

#define E2V_KERNEL_HASH_SHA256 4
#define E2V_KERNEL_HASH_SHA512 6

int e2verity_ima_hash_algo(unsigned int alg)
{
	switch (alg) {
	case E2VERITY_HASH_SHA256:
		return E2V_KERNEL_HASH_SHA256;
	case E2VERITY_HASH_SHA512:
		return E2V_KERNEL_HASH_SHA512;
	}
	return -1;
}

const char *e2verity_ima_hash_algo_name(unsigned int kernel_alg)
{
	return kernel_alg < E2V_ARRAY_SIZE(e2v_kernel_hash_names)
		       ? e2v_kernel_hash_names[kernel_alg]
		       : NULL;
}

errcode_t e2verity_ima_file_id(unsigned int alg, const uint8_t *digest, uint8_t *out,
			       size_t *out_len)
{
	const struct e2verity_hash_alg *a = e2verity_hash_alg_by_num(alg);

	if (!a)
		return E2VERITY_ET_BAD_HASH_ALG;
	out[0] = E2VERITY_IMA_VERITY_DIGSIG;
	out[1] = e2verity_ima_hash_algo(alg);
	memcpy(out + 2, digest, a->digest_size);
	*out_len = 2 + a->digest_size;
	return 0;
}

/* What is signed: the hash of the file id, with the file's own algorithm (the kernel's rule) */
static errcode_t e2v_ima_tbs(unsigned int alg, const uint8_t *digest, uint8_t *hash,
			     unsigned int *hash_len)
{
	uint8_t id[E2VERITY_IMA_FILE_ID_MAX];
	size_t id_len;
	errcode_t err;

	err = e2verity_ima_file_id(alg, digest, id, &id_len);
	if (err)
		return err;
	*hash_len = e2verity_hash_alg_by_num(alg)->digest_size;
	return e2verity_hash_buf(alg, id, id_len, hash);
}

errcode_t e2verity_ima_parse(const uint8_t *value, size_t len, struct e2verity_ima_sig *s)
{
	memset(s, 0, sizeof(*s));
	if (len < 1)
		return E2VERITY_ET_IMA_MALFORMED;
	s->type = value[0];
	if (s->type != E2VERITY_IMA_VERITY_DIGSIG)
		return E2VERITY_ET_IMA_NOT_VERITY;
	if (len < E2VERITY_IMA_HEADER_SIZE)
		return E2VERITY_ET_IMA_MALFORMED;
	s->version = value[1];
	s->hash_algo = value[2];
	s->key_id = (uint32_t)value[3] << 24 | (uint32_t)value[4] << 16 | (uint32_t)value[5] << 8 |
		    value[6];
	s->sig_size = (uint16_t)(value[7] << 8 | value[8]);
	s->sig = value + E2VERITY_IMA_HEADER_SIZE;
	/* asymmetric_verify(): a signature, of exactly the size the header gives */
	if (s->version != E2VERITY_IMA_SIG_VERSION || len == E2VERITY_IMA_HEADER_SIZE ||
	    len - E2VERITY_IMA_HEADER_SIZE != s->sig_size ||
	    !e2verity_ima_hash_algo_name(s->hash_algo))
		return E2VERITY_ET_IMA_MALFORMED;
	return 0;
}

/* ---- signing ------------------------------------------------------------------------ */

struct e2verity_ima_signer {
	EVP_PKEY *pkey;
	uint32_t key_id;
	int key_id_from_cert;
};

static uint32_t e2v_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * ima-evm-utils' key id without a certificate: the last four bytes of the
 * SHA-1 of the public key's bits, which is also the tail of the subject key
 * identifier OpenSSL computes for a certificate (RFC 5280's first method).
 */
static errcode_t e2v_pubkey_id(EVP_PKEY *pkey, uint32_t *id)
{
	const unsigned char *pub;
	uint8_t sha1[SHA_DIGEST_LENGTH];
	X509_PUBKEY *pk = NULL;
	int len;

	if (!X509_PUBKEY_set(&pk, pkey) || !X509_PUBKEY_get0_param(NULL, &pub, &len, NULL, pk) ||
	    !SHA1(pub, len, sha1)) {
		X509_PUBKEY_free(pk);
		return E2VERITY_ET_CRYPTO;
	}
	X509_PUBKEY_free(pk);
	*id = e2v_be32(sha1 + SHA_DIGEST_LENGTH - 4);
	return 0;
}

/* The last four bytes of a certificate's subject key identifier, if it has one that long */
static int e2v_skid_id(X509 *x, uint32_t *id)
{
	const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(x);

	if (!skid || ASN1_STRING_length(skid) < 4)
		return 0;
	*id = e2v_be32(ASN1_STRING_get0_data(skid) + ASN1_STRING_length(skid) - 4);
	return 1;
}

static X509 *e2v_cert_of_key(STACK_OF(X509) * certs, EVP_PKEY *pkey)
{
	for (int i = 0; i < sk_X509_num(certs); i++)
		if (X509_check_private_key(sk_X509_value(certs, i), pkey) == 1)
			return sk_X509_value(certs, i);
	return NULL;
}

errcode_t e2verity_ima_signer_load(const char *keyfile, const char *certfile, const char *key_pass,
				   e2verity_log_fn log, void *log_ctx,
				   struct e2verity_ima_signer **ret)
{
	const struct e2v_log_sink sink = { log, log_ctx };
	STACK_OF(X509) *key_certs = NULL, *certs = NULL;
	struct e2verity_ima_signer *s;
	const char *failed = keyfile;
	int queue_was_empty, type;
	X509 *cert = NULL;
	errcode_t err;

	*ret = NULL;
	if (!keyfile)
		return E2VERITY_ET_KEY_LOAD;
	s = calloc(1, sizeof(*s));
	key_certs = sk_X509_new_null();
	certs = sk_X509_new_null();
	if (!s || !key_certs || !certs) {
		err = E2VERITY_ET_NO_MEMORY;
		goto free;
	}
	queue_was_empty = ERR_peek_error() == 0;
	ERR_set_mark();
	err = e2v_load_key(keyfile, key_pass, &s->pkey, key_certs);
	if (err)
		goto out;
	type = EVP_PKEY_get_base_id(s->pkey);
	/* what the kernel's asymmetric_verify() takes from IMA: PKCS#1 v1.5 and X9.62 */
	if (type != EVP_PKEY_RSA && type != EVP_PKEY_EC) {
		err = E2VERITY_ET_IMA_KEY_TYPE;
		goto out;
	}
	if (certfile) {
		failed = certfile;
		err = e2v_load_certs(certfile, certs);
		if (err)
			goto out;
		failed = keyfile;
		cert = e2v_cert_of_key(certs, s->pkey);
		if (!cert) {
			err = E2VERITY_ET_KEY_CERT_MISMATCH;
			goto out;
		}
	} else {
		/* as evmctl, a certificate next to the key names it; none is no error */
		cert = e2v_cert_of_key(key_certs, s->pkey);
		if (!cert && !e2v_load_certs(keyfile, certs))
			cert = e2v_cert_of_key(certs, s->pkey);
	}
	s->key_id_from_cert = cert && e2v_skid_id(cert, &s->key_id);
	if (!s->key_id_from_cert)
		err = e2v_pubkey_id(s->pkey, &s->key_id);
	if (!err) {
		*ret = s;
		s = NULL;
	}
out:
	if (err)
		e2v_log_openssl(&sink, err, failed, queue_was_empty);
	ERR_pop_to_mark();
free:
	sk_X509_pop_free(key_certs, X509_free);
	sk_X509_pop_free(certs, X509_free);
	e2verity_ima_signer_free(s);
	return err;
}

uint32_t e2verity_ima_signer_key_id(const struct e2verity_ima_signer *s, int *from_cert)
{
	if (from_cert)
		*from_cert = s->key_id_from_cert;
	return s->key_id;
}

size_t e2verity_ima_signer_max_size(const struct e2verity_ima_signer *s)
{
	return E2VERITY_IMA_HEADER_SIZE + EVP_PKEY_get_size(s->pkey);
}

void e2verity_ima_signer_free(struct e2verity_ima_signer *s)
{
	if (!s)
		return;
	EVP_PKEY_free(s->pkey);
	free(s);
}

/* The 9-byte header, then the signature: struct signature_v2_hdr after the type, big-endian */
static errcode_t e2v_ima_value(unsigned int alg, uint32_t key_id, const uint8_t *sig,
			       size_t sig_len, uint8_t **value, size_t *len)
{
	uint8_t *buf;

	if (sig_len > E2VERITY_IMA_MAX_SIG_SIZE)
		return E2VERITY_ET_SIG_TOO_LARGE;
	buf = malloc(E2VERITY_IMA_HEADER_SIZE + sig_len);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	buf[0] = E2VERITY_IMA_VERITY_DIGSIG;
	buf[1] = E2VERITY_IMA_SIG_VERSION;
	buf[2] = e2verity_ima_hash_algo(alg);
	buf[3] = key_id >> 24;
	buf[4] = key_id >> 16;
	buf[5] = key_id >> 8;
	buf[6] = key_id;
	buf[7] = sig_len >> 8;
	buf[8] = sig_len;
	if (sig)
		memcpy(buf + E2VERITY_IMA_HEADER_SIZE, sig, sig_len);
	*value = buf;
	*len = E2VERITY_IMA_HEADER_SIZE + sig_len;
	return 0;
}

errcode_t e2verity_ima_sign(const struct e2verity_ima_signer *s, unsigned int alg,
			    const uint8_t *digest, uint8_t **value, size_t *len)
{
	const struct e2verity_hash_alg *a = e2verity_hash_alg_by_num(alg);
	uint8_t tbs[E2VERITY_MAX_DIGEST_SIZE], *buf = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	unsigned int tbs_len;
	EVP_MD *md = NULL;
	size_t sig_len;
	errcode_t err;

	*value = NULL;
	*len = 0;
	if (!a)
		return E2VERITY_ET_BAD_HASH_ALG;
	err = e2v_ima_tbs(alg, digest, tbs, &tbs_len);
	if (err)
		return err;
	ERR_set_mark();
	err = E2VERITY_ET_SIGN;
	md = EVP_MD_fetch(NULL, a->name, NULL);
	ctx = EVP_PKEY_CTX_new(s->pkey, NULL);
	/* the digest's own algorithm: RSA wraps it in its DigestInfo, as evmctl does */
	if (!md || !ctx || EVP_PKEY_sign_init(ctx) <= 0 ||
	    EVP_PKEY_CTX_set_signature_md(ctx, md) <= 0 ||
	    EVP_PKEY_sign(ctx, NULL, &sig_len, tbs, tbs_len) <= 0)
		goto out;
	err = e2v_ima_value(alg, s->key_id, NULL, sig_len, &buf, len);
	if (err)
		goto out;
	err = E2VERITY_ET_SIGN;
	/* an ECDSA signature may come out shorter than the bound asked first */
	if (EVP_PKEY_sign(ctx, buf + E2VERITY_IMA_HEADER_SIZE, &sig_len, tbs, tbs_len) <= 0)
		goto out;
	buf[7] = sig_len >> 8;
	buf[8] = sig_len;
	*value = buf;
	*len = E2VERITY_IMA_HEADER_SIZE + sig_len;
	buf = NULL;
	err = 0;
out:
	free(buf);
	EVP_PKEY_CTX_free(ctx);
	EVP_MD_free(md);
	ERR_pop_to_mark();
	return err;
}

/*
 * The signature of a parsed value, by @pkey, over the file id's hash.  RSA
 * checks the DigestInfo of the algorithm the header names; ECDSA signs the
 * bare hash, whatever the header says, as the kernel verifies it.
 */
static errcode_t e2v_ima_check_sig(EVP_PKEY *pkey, const struct e2verity_ima_sig *h,
				   const uint8_t *tbs, unsigned int tbs_len)
{
	EVP_PKEY_CTX *ctx;
	EVP_MD *md = NULL;
	errcode_t err = E2VERITY_ET_IMA_MISMATCH;

	ERR_set_mark();
	ctx = EVP_PKEY_CTX_new(pkey, NULL);
	if (!ctx) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	if (EVP_PKEY_verify_init(ctx) <= 0)
		goto out;
	if (EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA) {
		md = EVP_MD_fetch(NULL, e2verity_ima_hash_algo_name(h->hash_algo), NULL);
		if (!md || EVP_PKEY_CTX_set_signature_md(ctx, md) <= 0)
			goto out;
	} else if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC) {
		goto out;
	}
	if (EVP_PKEY_verify(ctx, h->sig, h->sig_size, tbs, tbs_len) == 1)
		err = 0;
out:
	EVP_MD_free(md);
	EVP_PKEY_CTX_free(ctx);
	ERR_pop_to_mark();
	return err;
}

errcode_t e2verity_ima_signer_verify(const struct e2verity_ima_signer *s, unsigned int alg,
				     const uint8_t *digest, const uint8_t *value, size_t len)
{
	uint8_t tbs[E2VERITY_MAX_DIGEST_SIZE];
	struct e2verity_ima_sig h;
	unsigned int tbs_len;
	errcode_t err;

	err = e2verity_ima_parse(value, len, &h);
	if (err)
		return err;
	if (h.key_id != s->key_id)
		return E2VERITY_ET_IMA_UNKNOWN_KEY;
	err = e2v_ima_tbs(alg, digest, tbs, &tbs_len);
	return err ? err : e2v_ima_check_sig(s->pkey, &h, tbs, tbs_len);
}

/* ---- verifying ---------------------------------------------------------------------- */

/* One certificate of the keyring: its key, and the ids the kernel's search matches the tail of */
struct e2v_ima_key {
	EVP_PKEY *pkey;
	uint32_t ids[2];
	int nids;
};

struct e2verity_ima_verifier {
	struct e2v_ima_key *keys;
	size_t n;
};

/*
 * The kernel gives an X.509 key two ids, serial number then issuer, and the
 * subject key identifier; "id:%08x" matches the last four bytes of either.
 */
static void e2v_cert_ids(X509 *x, struct e2v_ima_key *k)
{
	unsigned char *der = NULL;
	int len;

	k->nids = 0;
	if (e2v_skid_id(x, &k->ids[k->nids]))
		k->nids++;
	len = i2d_X509_NAME(X509_get_issuer_name(x), &der);
	if (len >= 4)
		k->ids[k->nids++] = e2v_be32(der + len - 4);
	OPENSSL_free(der);
}

errcode_t e2verity_ima_verifier_load(const char *certfile, e2verity_log_fn log, void *log_ctx,
				     struct e2verity_ima_verifier **ret)
{
	const struct e2v_log_sink sink = { log, log_ctx };
	STACK_OF(X509) *certs = sk_X509_new_null();
	struct e2verity_ima_verifier *v;
	int queue_was_empty;
	errcode_t err;

	*ret = NULL;
	v = calloc(1, sizeof(*v));
	if (!v || !certs) {
		free(v);
		sk_X509_free(certs);
		return E2VERITY_ET_NO_MEMORY;
	}
	queue_was_empty = ERR_peek_error() == 0;
	ERR_set_mark();
	err = certfile ? e2v_load_certs(certfile, certs) : E2VERITY_ET_CERT_LOAD;
	if (err)
		goto out;
	v->keys = calloc(sk_X509_num(certs), sizeof(*v->keys));
	if (!v->keys) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	for (int i = 0; i < sk_X509_num(certs); i++) {
		X509 *x = sk_X509_value(certs, i);
		struct e2v_ima_key *k = &v->keys[v->n];

		k->pkey = X509_get_pubkey(x);
		if (!k->pkey)
			continue;
		e2v_cert_ids(x, k);
		v->n++;
	}
	if (!v->n)
		err = E2VERITY_ET_CERT_LOAD;
out:
	if (err)
		e2v_log_openssl(&sink, err, certfile, queue_was_empty);
	ERR_pop_to_mark();
	sk_X509_pop_free(certs, X509_free);
	if (err)
		e2verity_ima_verifier_free(v);
	else
		*ret = v;
	return err;
}

void e2verity_ima_verifier_free(struct e2verity_ima_verifier *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		EVP_PKEY_free(v->keys[i].pkey);
	free(v->keys);
	free(v);
}

errcode_t e2verity_ima_verify(const struct e2verity_ima_verifier *v, unsigned int alg,
			      const uint8_t *digest, const uint8_t *value, size_t len)
{
	uint8_t tbs[E2VERITY_MAX_DIGEST_SIZE];
	struct e2verity_ima_sig h;
	unsigned int tbs_len;
	errcode_t err, found = E2VERITY_ET_IMA_UNKNOWN_KEY;

	err = e2verity_ima_parse(value, len, &h);
	if (err)
		return err;
	err = e2v_ima_tbs(alg, digest, tbs, &tbs_len);
	if (err)
		return err;
	/* two certificates may share an id: any whose key verifies it will do */
	for (size_t i = 0; i < v->n; i++) {
		const struct e2v_ima_key *k = &v->keys[i];
		int match = 0;

		for (int j = 0; j < k->nids; j++)
			match |= k->ids[j] == h.key_id;
		if (!match)
			continue;
		found = e2v_ima_check_sig(k->pkey, &h, tbs, tbs_len);
		if (found != E2VERITY_ET_IMA_MISMATCH)
			return found;
	}
	return found;
}

errcode_t e2verity_ima_from_raw(const struct e2verity_ima_verifier *v, unsigned int alg,
				const uint8_t *digest, const uint8_t *sig, size_t sig_len,
				uint8_t **value, size_t *len)
{
	uint8_t tbs[E2VERITY_MAX_DIGEST_SIZE];
	struct e2verity_ima_sig h = { 0 };
	unsigned int tbs_len;
	errcode_t err;

	*value = NULL;
	*len = 0;
	if (e2verity_ima_hash_algo(alg) < 0)
		return E2VERITY_ET_BAD_HASH_ALG;
	if (!sig_len || sig_len > E2VERITY_IMA_MAX_SIG_SIZE)
		return E2VERITY_ET_IMA_MISMATCH;
	err = e2v_ima_tbs(alg, digest, tbs, &tbs_len);
	if (err)
		return err;
	h.hash_algo = e2verity_ima_hash_algo(alg);
	h.sig = sig;
	h.sig_size = sig_len;
	for (size_t i = 0; i < v->n; i++) {
		const struct e2v_ima_key *k = &v->keys[i];

		if (!k->nids)
			continue;
		err = e2v_ima_check_sig(k->pkey, &h, tbs, tbs_len);
		if (err == E2VERITY_ET_IMA_MISMATCH)
			continue;
		/* the id the kernel finds it by: the subject key identifier's, if it has one */
		return err ? err : e2v_ima_value(alg, k->ids[0], sig, sig_len, value, len);
	}
	return E2VERITY_ET_IMA_MISMATCH;
}
