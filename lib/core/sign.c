// SPDX-License-Identifier: GPL-2.0-or-later
/* sign.c - fs-verity built-in signatures: detached PKCS#7 over the formatted digest */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/store.h>
#include <openssl/ui.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "log.h"
#include "sign.h"

/*
 * What `fsverity sign` makes: the signed data is left out (the kernel supplies
 * the formatted digest itself), no signed attributes and no certificates, so
 * the blob is small and carries nothing but the signature.  PKCS7_PARTIAL lets
 * the signer be added with the file's hash instead of OpenSSL's default.
 */
#define E2V_PKCS7_SIGN_FLAGS (PKCS7_BINARY | PKCS7_DETACHED | PKCS7_NOATTR | PKCS7_PARTIAL)

struct e2verity_signer {
	EVP_PKEY *pkey;
	X509 *cert;
	STACK_OF(X509) * chain; /* the other certificates of the certificate file */
	int embed;		/* the certificates go into each signature */
};

/*
 * Replaces OpenSSL's default callback, which would prompt on the terminal: the
 * library never talks to the user, it reports that a pass phrase is needed.
 */
int e2v_pass_cb(char *buf, int size, int rwflag, void *u)
{
	struct e2v_pass *p = u;
	size_t len;

	(void)rwflag; /* pem_password_cb: the same pass phrase to read or to write */
	p->asked = 1;
	if (!p->pass)
		return -1;
	len = strlen(p->pass);
	if (len > (size_t)size)
		return -1;
	memcpy(buf, p->pass, len);
	return len;
}

/*
 * Opens a PEM file ourselves rather than with BIO_new_file(), so that a missing
 * or unreadable file is reported as its errno and a directory as EISDIR.
 */
errcode_t e2v_open_pem(const char *path, BIO **ret)
{
	struct stat st;
	errcode_t err;
	FILE *f;
	int fd;

	*ret = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st)) {
		err = errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err = EISDIR;
		goto fail;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = errno;
		goto fail;
	}
	*ret = BIO_new_fp(f, BIO_CLOSE);
	if (!*ret) {
		fclose(f);
		return E2VERITY_ET_NO_MEMORY;
	}
	return 0;
fail:
	close(fd);
	return err;
}

/*
 * A key or certificate may be named by an OpenSSL 3 store URI ("file:...",
 * "pkcs11:..." with a PKCS#11 provider) instead of a file name.  An existing
 * file always wins, so that a file called "a:b" still loads as a file.
 */
static int e2v_is_uri(const char *name)
{
	const char *p = name;
	struct stat st;

	if (!isalpha((unsigned char)*p))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	return *p == ':' && p - name > 1 && stat(name, &st) != 0;
}

/*
 * Loads what a store URI holds: the first private key (when @key is not NULL)
 * and every certificate, in order.  The store asks for a pass phrase through
 * the same callback as PEM files do.
 */
static errcode_t e2v_store_load(const char *uri, struct e2v_pass *pass, EVP_PKEY **key,
				STACK_OF(X509) * certs)
{
	UI_METHOD *ui = UI_UTIL_wrap_read_pem_callback(e2v_pass_cb, 0);
	OSSL_STORE_CTX *st = NULL;
	OSSL_STORE_INFO *info;
	errcode_t err = 0;

	if (!ui)
		return E2VERITY_ET_NO_MEMORY;
	st = OSSL_STORE_open(uri, ui, pass, NULL, NULL);
	if (!st) {
		err = key ? E2VERITY_ET_KEY_LOAD : E2VERITY_ET_CERT_LOAD;
		goto out;
	}
	for (int misses = 0; !OSSL_STORE_eof(st) && misses < 16;) {
		info = OSSL_STORE_load(st);
		if (!info) {
			/* an object that cannot be decoded (a wrong pass phrase) ends the search */
			if (OSSL_STORE_error(st))
				break;
			misses++;
			continue;
		}
		if (key && !*key && OSSL_STORE_INFO_get_type(info) == OSSL_STORE_INFO_PKEY) {
			*key = OSSL_STORE_INFO_get1_PKEY(info);
		} else if (OSSL_STORE_INFO_get_type(info) == OSSL_STORE_INFO_CERT) {
			X509 *x = OSSL_STORE_INFO_get1_CERT(info);

			if (x && !sk_X509_push(certs, x)) {
				X509_free(x);
				err = E2VERITY_ET_NO_MEMORY;
			}
		}
		OSSL_STORE_INFO_free(info);
		if (err)
			break;
	}
out:
	OSSL_STORE_close(st);
	UI_destroy_method(ui);
	return err;
}

static errcode_t e2v_key_error(const struct e2v_pass *pass)
{
	if (!pass->asked)
		return E2VERITY_ET_KEY_LOAD;
	return pass->pass ? E2VERITY_ET_KEY_BAD_PASS : E2VERITY_ET_KEY_PASS_NEEDED;
}

errcode_t e2v_load_key(const char *name, const char *key_pass, EVP_PKEY **ret,
		       STACK_OF(X509) * certs)
{
	struct e2v_pass pass = { .pass = key_pass };
	errcode_t err;
	BIO *bio;

	*ret = NULL;
	if (e2v_is_uri(name)) {
		err = e2v_store_load(name, &pass, ret, certs);
		if (err)
			return err;
		return *ret ? 0 : e2v_key_error(&pass);
	}
	err = e2v_open_pem(name, &bio);
	if (err)
		return err;
	/* skips other PEM blocks, so one file may hold both key and certificate */
	*ret = PEM_read_bio_PrivateKey(bio, NULL, e2v_pass_cb, &pass);
	BIO_free(bio);
	return *ret ? 0 : e2v_key_error(&pass);
}

errcode_t e2v_load_certs(const char *name, STACK_OF(X509) * certs)
{
	struct e2v_pass no_pass = { 0 };
	errcode_t err;
	BIO *bio;
	X509 *x;

	if (e2v_is_uri(name)) {
		err = e2v_store_load(name, &no_pass, NULL, certs);
		if (err)
			return err;
		return sk_X509_num(certs) > 0 ? 0 : E2VERITY_ET_CERT_LOAD;
	}
	err = e2v_open_pem(name, &bio);
	if (err)
		return err;
	while ((x = PEM_read_bio_X509(bio, NULL, e2v_pass_cb, &no_pass))) {
		if (!sk_X509_push(certs, x)) {
			X509_free(x);
			err = E2VERITY_ET_NO_MEMORY;
			break;
		}
	}
	BIO_free(bio);
	if (err)
		return err;
	return sk_X509_num(certs) > 0 ? 0 : E2VERITY_ET_CERT_LOAD;
}

errcode_t e2v_load_cert(const char *path, X509 **ret)
{
	STACK_OF(X509) *certs = sk_X509_new_null();
	errcode_t err;

	*ret = NULL;
	if (!certs)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_load_certs(path, certs);
	if (!err)
		*ret = sk_X509_shift(certs);
	sk_X509_pop_free(certs, X509_free);
	return err;
}

/*
 * The certificate that matches the key signs; the others of the file are its
 * chain, so a bundle may list them in any order.
 */
static errcode_t e2v_pick_signer(struct e2verity_signer *s, STACK_OF(X509) * certs)
{
	for (int i = 0; i < sk_X509_num(certs); i++) {
		if (X509_check_private_key(sk_X509_value(certs, i), s->pkey) == 1) {
			s->cert = sk_X509_delete(certs, i);
			s->chain = certs;
			/* a certificate that vouches for itself is what the keyring holds */
			s->embed = X509_self_signed(s->cert, 0) != 1;
			return 0;
		}
	}
	return E2VERITY_ET_KEY_CERT_MISMATCH;
}

errcode_t e2verity_signer_load(const char *keyfile, const char *certfile, const char *key_pass,
			       e2verity_log_fn log, void *log_ctx, struct e2verity_signer **ret)
{
	const struct e2v_log_sink sink = { log, log_ctx };
	STACK_OF(X509) *key_certs = NULL, *certs = NULL;
	struct e2verity_signer *s;
	const char *failed = keyfile;
	int queue_was_empty;
	errcode_t err;

	*ret = NULL;
	if (!keyfile)
		return E2VERITY_ET_KEY_LOAD;
	s = calloc(1, sizeof(*s));
	key_certs = sk_X509_new_null();
	certs = sk_X509_new_null();
	if (!s || !key_certs || !certs) {
		free(s);
		sk_X509_free(key_certs);
		sk_X509_free(certs);
		return E2VERITY_ET_NO_MEMORY;
	}
	/* errors we raise are ours: leave the caller's queue as we found it */
	queue_was_empty = ERR_peek_error() == 0;
	ERR_set_mark();
	err = e2v_load_key(keyfile, key_pass, &s->pkey, key_certs);
	if (err)
		goto out;
	failed = certfile ? certfile : keyfile;
	if (certfile) {
		err = e2v_load_certs(certfile, certs);
	} else if (sk_X509_num(key_certs) > 0) {
		/* a store holds the certificate with the key */
		sk_X509_pop_free(certs, X509_free);
		certs = key_certs;
		key_certs = NULL;
	} else {
		err = e2v_load_certs(keyfile, certs);
	}
	if (err)
		goto out;
	/* no certificate matches the key: the key is what the user chose wrong */
	failed = keyfile;
	err = e2v_pick_signer(s, certs);
	if (err)
		goto out;
	certs = NULL;
	*ret = s;
	s = NULL;
out:
	if (err)
		e2v_log_openssl(&sink, err, failed, queue_was_empty);
	sk_X509_pop_free(key_certs, X509_free);
	sk_X509_pop_free(certs, X509_free);
	e2verity_signer_free(s);
	ERR_pop_to_mark();
	return err;
}

void e2verity_signer_set_embed(struct e2verity_signer *s, int embed)
{
	s->embed = !!embed;
}

int e2verity_signer_embeds(const struct e2verity_signer *s)
{
	return s->embed;
}

int e2verity_signer_kernel_can_chain(const struct e2verity_signer *s)
{
	if (!s->embed || X509_self_signed(s->cert, 0) == 1)
		return 1;
	/* the kernel looks the issuer of the last certificate up by this alone */
	for (int i = sk_X509_num(s->chain) - 1; i >= 0; i--) {
		X509 *x = sk_X509_value(s->chain, i);

		if (X509_self_signed(x, 0) != 1)
			return X509_get_ext_by_NID(x, NID_authority_key_identifier, -1) >= 0;
	}
	return X509_get_ext_by_NID(s->cert, NID_authority_key_identifier, -1) >= 0;
}

void e2verity_signer_free(struct e2verity_signer *s)
{
	if (!s)
		return;
	EVP_PKEY_free(s->pkey);
	X509_free(s->cert);
	sk_X509_pop_free(s->chain, X509_free);
	free(s);
}

static errcode_t e2v_pkcs7_sign(const struct e2verity_signer *s, const EVP_MD *md,
				const uint8_t *msg, size_t msg_len, uint8_t **sig, size_t *sig_size)
{
	const int flags = E2V_PKCS7_SIGN_FLAGS | (s->embed ? 0 : PKCS7_NOCERTS);
	errcode_t err = E2VERITY_ET_SIGN;
	PKCS7 *p7 = NULL;
	uint8_t *p;
	BIO *bio;
	int len;

	bio = BIO_new_mem_buf(msg, msg_len);
	if (!bio)
		return E2VERITY_ET_NO_MEMORY;
	/* with the certificates, the kernel can chain the signer to a CA in its keyring */
	p7 = PKCS7_sign(NULL, NULL, NULL, bio, flags);
	if (!p7 || !PKCS7_sign_add_signer(p7, s->cert, s->pkey, md, flags))
		goto out;
	for (int i = 0; s->embed && i < sk_X509_num(s->chain); i++)
		if (!PKCS7_add_certificate(p7, sk_X509_value(s->chain, i)))
			goto out;
	if (PKCS7_final(p7, bio, flags) != 1)
		goto out;
	len = i2d_PKCS7(p7, NULL);
	if (len <= 0)
		goto out;
	if ((size_t)len > E2VERITY_MAX_SIGNATURE_SIZE) {
		err = s->embed ? E2VERITY_ET_CHAIN_TOO_LARGE : E2VERITY_ET_SIG_TOO_LARGE;
		goto out;
	}
	*sig = malloc(len);
	if (!*sig) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	p = *sig;
	if (i2d_PKCS7(p7, &p) != len) {
		free(*sig);
		*sig = NULL;
		goto out;
	}
	*sig_size = len;
	err = 0;
out:
	PKCS7_free(p7);
	BIO_free(bio);
	return err;
}

errcode_t e2verity_sign_digest(const struct e2verity_signer *s, unsigned int alg,
			       const uint8_t *digest, uint8_t **sig, size_t *sig_size)
{
	uint8_t msg[E2VERITY_FORMATTED_DIGEST_MAX];
	const struct e2verity_hash_alg *a;
	EVP_MD *md = NULL;
	size_t msg_len;
	errcode_t err;

	*sig = NULL;
	*sig_size = 0;
	a = e2verity_hash_alg_by_num(alg);
	if (!a)
		return E2VERITY_ET_BAD_HASH_ALG;
	err = e2verity_formatted_digest(alg, digest, msg, &msg_len);
	if (err)
		return err;
	ERR_set_mark();
	md = EVP_MD_fetch(NULL, a->name, NULL);
	if (!md) {
		err = E2VERITY_ET_CRYPTO;
		goto out;
	}
	err = e2v_pkcs7_sign(s, md, msg, msg_len, sig, sig_size);
out:
	EVP_MD_free(md);
	ERR_pop_to_mark();
	return err;
}
