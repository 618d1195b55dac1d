/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sign.h - internal: the PEM loading that verification (verify.c) shares with signing */
#ifndef E2VERITY_SIGN_H
#define E2VERITY_SIGN_H

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "core.h"

/* The pass phrase handed to OpenSSL, and whether OpenSSL wanted one. */
struct e2v_pass {
	const char *pass;
	int asked;
};

/* an OpenSSL pem_password_cb that never prompts: it answers with @u's pass phrase */
int e2v_pass_cb(char *buf, int size, int rwflag, void *u);
/* a BIO over the PEM file @path; an errno value (EISDIR for a directory) if it cannot be read */
errcode_t e2v_open_pem(const char *path, BIO **ret);
/* the first certificate of the PEM file @path */
errcode_t e2v_load_cert(const char *path, X509 **ret);
/*
 * The private key of a PEM file or store URI; a store's certificates go onto
 * @certs.  E2VERITY_ET_KEY_PASS_NEEDED or _KEY_BAD_PASS when the pass phrase
 * is missing or wrong.
 */
errcode_t e2v_load_key(const char *name, const char *key_pass, EVP_PKEY **ret,
		       STACK_OF(X509) * certs);
/* Every certificate of a PEM file or store URI, in order, onto @certs. */
errcode_t e2v_load_certs(const char *name, STACK_OF(X509) * certs);

#endif /* E2VERITY_SIGN_H */
