// SPDX-License-Identifier: GPL-2.0-or-later
/* sign_verify_stub.c - placeholder until lib/sign.c lands: signatures cannot be verified yet */
#include "config.h"

#include "private.h"

/* Delete this file when merging the sign branch, which implements the real function. */
errcode_t e2verity_verify_signature(unsigned int alg, const uint8_t *digest, const uint8_t *sig,
				    size_t sig_size, const char *certfile, const char *cafile)
{
	(void)alg;
	(void)digest;
	(void)sig;
	(void)sig_size;
	(void)certfile;
	(void)cafile;
	return E2VERITY_ET_SIGN_UNAVAILABLE;
}
