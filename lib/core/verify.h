/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify.h - internal: a built-in signature judged as the kernel judges it, finding by finding */
#ifndef E2VERITY_VERIFY_H
#define E2VERITY_VERIFY_H

#include "core.h"

#define E2V_SIG_MAX_FINDINGS 12

/* check's problems (E2VERITY_PR_SIG_*) a signature has, errors and warnings */
struct e2v_sig_report {
	unsigned int count;
	struct {
		unsigned int code;
		uint64_t value, expected;
	} f[E2V_SIG_MAX_FINDINGS];
	int verified; /* a certificate was given, and the kernel would take the signature */
};

/**
 * e2v_signature_check() - what the kernel would say of a built-in signature
 * @alg: the file's hash algorithm
 * @digest: the file digest, or NULL to judge what needs no key
 * @sig: DER (or BER) PKCS#7 signature
 * @sig_size: its size
 * @ver: the keyring (e2verity_verifier_load()), or NULL to judge what needs no key
 * @rep: the findings, errors (the kernel refuses the file) and warnings
 *
 * The message is read with the kernel's BER rules and pkcs7.asn1, then the
 * rules of pkcs7_parser.c, pkcs7_verify.c, pkcs7_trust.c and public_key.c
 * are applied as Linux 6.1 to 6.12 apply them: what one of them refuses is an
 * error.
 *
 * Return: 0 (then @rep holds the verdict), E2VERITY_ET_BAD_HASH_ALG or
 * E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2v_signature_check(unsigned int alg, const uint8_t *digest, const uint8_t *sig,
			      size_t sig_size, const struct e2verity_verifier *ver,
			      struct e2v_sig_report *rep);

#endif /* E2VERITY_VERIFY_H */
