/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sign.h - internal: the PEM loading that verification (verify.c) shares with signing */
#ifndef E2VERITY_SIGN_H
#define E2VERITY_SIGN_H

#include <openssl/bio.h>
#include <openssl/x509.h>

#include "private.h"

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

#endif /* E2VERITY_SIGN_H */
