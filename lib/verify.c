// SPDX-License-Identifier: GPL-2.0-or-later
/* verify.c - check built-in signatures: PKCS#7 form, signer, chain to a CA, as the kernel would */
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

static errcode_t e2v_parse_pkcs7(const uint8_t *sig, size_t sig_size, PKCS7 **ret)
{
	const unsigned char *p = sig;
	PKCS7 *p7;

	*ret = NULL;
	if (sig_size == 0 || sig_size > LONG_MAX)
		return E2VERITY_ET_SIG_MALFORMED;
	p7 = d2i_PKCS7(NULL, &p, sig_size);
	if (!p7)
		return E2VERITY_ET_SIG_MALFORMED;
	/*
	 * The kernel supplies the signed data itself and refuses a message that
	 * already carries some; trailing bytes are not part of any DER message.
	 */
	if (p != sig + sig_size || !PKCS7_type_is_signed(p7) || !PKCS7_get_detached(p7) ||
	    sk_PKCS7_SIGNER_INFO_num(PKCS7_get_signer_info(p7)) <= 0) {
		PKCS7_free(p7);
		return E2VERITY_ET_SIG_MALFORMED;
	}
	*ret = p7;
	return 0;
}

/*
 * The kernel finds the CA of the last certificate it can chain only through
 * that certificate's Authority Key Identifier, never by name as OpenSSL can:
 * a certificate issued by a trusted CA without one is refused at open.
 */
static errcode_t e2v_kernel_can_chain(STACK_OF(X509) * chain)
{
	int n = sk_X509_num(chain);

	if (n < 2)
		return 0;
	if (X509_get_ext_by_NID(sk_X509_value(chain, n - 2), NID_authority_key_identifier, -1) < 0)
		return E2VERITY_ET_CERT_UNTRUSTED;
	return 0;
}

/* What signatures are verified against: the signer's certificate, the trust anchors, or both */
struct e2verity_verifier {
	X509 *cert;
	X509_STORE *store;
};

/*
 * Like the kernel's .fs-verity keyring, any certificate in @cafile is a trust
 * anchor (an intermediate will do), and validity dates are not checked: an
 * image is often verified long after it was signed.
 */
static errcode_t e2v_load_store(const char *cafile, X509_STORE **ret)
{
	struct e2v_pass no_pass = { 0 };
	X509_STORE *store;
	unsigned int n = 0;
	BIO *bio = NULL;
	errcode_t err;
	X509 *ca;

	*ret = NULL;
	store = X509_STORE_new();
	if (!store)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_open_pem(cafile, &bio);
	if (err)
		goto out;
	while ((ca = PEM_read_bio_X509(bio, NULL, e2v_pass_cb, &no_pass))) {
		int ok = X509_STORE_add_cert(store, ca);

		X509_free(ca);
		if (!ok) {
			err = E2VERITY_ET_CA_LOAD;
			goto out;
		}
		n++;
	}
	if (!n) {
		err = E2VERITY_ET_CA_LOAD;
		goto out;
	}
	X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_NO_CHECK_TIME);
	*ret = store;
	store = NULL;
out:
	X509_STORE_free(store);
	BIO_free(bio);
	return err;
}

/* As e2verity_verifier_load(); *@ca_failed says the failure was @cafile's. */
static errcode_t e2v_verifier_load(const char *certfile, const char *cafile,
				   struct e2verity_verifier **ret, int *ca_failed)
{
	struct e2verity_verifier *v;
	const char *failed = certfile;
	int queue_was_empty;
	errcode_t err = 0;

	*ret = NULL;
	*ca_failed = 0;
	if (!certfile && !cafile)
		return E2VERITY_ET_CERT_LOAD;
	v = calloc(1, sizeof(*v));
	if (!v)
		return E2VERITY_ET_NO_MEMORY;
	queue_was_empty = ERR_peek_error() == 0;
	ERR_set_mark();
	if (certfile)
		err = e2v_load_cert(certfile, &v->cert);
	if (!err && cafile) {
		failed = cafile;
		err = e2v_load_store(cafile, &v->store);
	}
	if (err) {
		*ca_failed = failed == cafile;
		e2v_log_openssl(err, failed, queue_was_empty);
		e2verity_verifier_free(v);
		v = NULL;
	}
	ERR_pop_to_mark();
	*ret = v;
	return err;
}

errcode_t e2verity_verifier_load(const char *certfile, const char *cafile,
				 struct e2verity_verifier **ret)
{
	int ca_failed;

	return e2v_verifier_load(certfile, cafile, ret, &ca_failed);
}

void e2verity_verifier_free(struct e2verity_verifier *v)
{
	if (!v)
		return;
	X509_free(v->cert);
	X509_STORE_free(v->store);
	free(v);
}

static errcode_t e2v_check_chain(X509_STORE *store, X509 *cert, STACK_OF(X509) * untrusted)
{
	X509_STORE_CTX *ctx;
	errcode_t err = E2VERITY_ET_NO_MEMORY;

	ctx = X509_STORE_CTX_new();
	/* the certificates the signature carries may link the signer to the CA */
	if (!ctx || X509_STORE_CTX_init(ctx, store, cert, untrusted) != 1)
		goto out;
	err = X509_verify_cert(ctx) == 1 ? 0 : E2VERITY_ET_CERT_UNTRUSTED;
	if (!err)
		err = e2v_kernel_can_chain(X509_STORE_CTX_get0_chain(ctx));
out:
	X509_STORE_CTX_free(ctx);
	return err;
}

/* The signer, found among the certificates the signature carries. */
static errcode_t e2v_signer_in_message(PKCS7 *p7, X509 **signer)
{
	STACK_OF(X509) * signers;

	*signer = NULL;
	signers = PKCS7_get0_signers(p7, NULL, PKCS7_BINARY);
	if (!signers || sk_X509_num(signers) != 1) {
		sk_X509_free(signers);
		return E2VERITY_ET_SIGNER_NOT_FOUND;
	}
	*signer = sk_X509_value(signers, 0);
	X509_up_ref(*signer);
	sk_X509_free(signers);
	return 0;
}

errcode_t e2verity_verifier_verify(const struct e2verity_verifier *v, unsigned int alg,
				   const uint8_t *digest, const uint8_t *sig, size_t sig_size)
{
	/* the signer is the certificate given, or else the one the message carries */
	const int flags = PKCS7_BINARY | PKCS7_NOVERIFY | (v->cert ? PKCS7_NOINTERN : 0);
	uint8_t msg[E2VERITY_FORMATTED_DIGEST_MAX];
	STACK_OF(X509) *certs = NULL;
	X509 *cert = NULL;
	PKCS7 *p7 = NULL;
	BIO *data = NULL;
	size_t msg_len;
	errcode_t err;

	err = e2verity_formatted_digest(alg, digest, msg, &msg_len);
	if (err)
		return err;
	ERR_set_mark();
	err = e2v_parse_pkcs7(sig, sig_size, &p7);
	if (err)
		goto out;
	if (v->cert) {
		cert = v->cert;
		X509_up_ref(cert);
	} else {
		err = e2v_signer_in_message(p7, &cert);
		if (err)
			goto out;
	}
	err = E2VERITY_ET_NO_MEMORY;
	certs = sk_X509_new_null();
	data = BIO_new_mem_buf(msg, msg_len);
	if (!certs || !data || !sk_X509_push(certs, cert))
		goto out;
	if (PKCS7_verify(p7, certs, NULL, data, NULL, flags) != 1) {
		err = E2VERITY_ET_SIG_INVALID;
		goto out;
	}
	err = v->store ? e2v_check_chain(v->store, cert, p7->d.sign->cert) : 0;
out:
	BIO_free(data);
	sk_X509_free(certs);
	X509_free(cert);
	PKCS7_free(p7);
	ERR_pop_to_mark();
	return err;
}

errcode_t e2verity_verify_signature(unsigned int alg, const uint8_t *digest, const uint8_t *sig,
				    size_t sig_size, const char *certfile, const char *cafile)
{
	struct e2verity_verifier *v;
	int ca_failed;
	errcode_t err;

	if (!certfile && !cafile)
		return E2VERITY_ET_CERT_LOAD;
	/* a malformed signature is that, whatever the files */
	err = e2verity_signature_parse(sig, sig_size);
	if (err)
		return err;
	err = e2v_verifier_load(certfile, cafile, &v, &ca_failed);
	/* the caller could not tell an errno about @cafile from one about @certfile */
	if (err)
		return ca_failed && err != E2VERITY_ET_NO_MEMORY ? E2VERITY_ET_CA_LOAD : err;
	err = e2verity_verifier_verify(v, alg, digest, sig, sig_size);
	e2verity_verifier_free(v);
	return err;
}

errcode_t e2verity_signature_parse(const uint8_t *sig, size_t sig_size)
{
	PKCS7 *p7;
	errcode_t err;

	ERR_set_mark();
	err = e2v_parse_pkcs7(sig, sig_size, &p7);
	PKCS7_free(p7);
	ERR_pop_to_mark();
	return err;
}
