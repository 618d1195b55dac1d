/* SPDX-License-Identifier: GPL-2.0-or-later */
/* signer.h - the signing options of sign and seal, and loading keys and certificates */
#ifndef CLI_SIGNER_H
#define CLI_SIGNER_H

#include "cli/cli.h"

/* the signing options of sign and seal */
struct cli_signer_opts {
	const char *keyfile, *certfile;
	const char *key_pass; /* openssl's -passin forms, or the pass phrase itself */
	int embed;	      /* -1: the library decides; 0 or 1: --no-embed-cert, --embed-cert */
	int quiet;	      /* no warnings */
};

#define CLI_SIGNER_LONG_OPTIONS                                                                    \
	{ "key", required_argument, NULL, OPT_KEY },                                               \
		{ "cert", required_argument, NULL, OPT_CERT },                                     \
		{ "key-pass", required_argument, NULL, OPT_KEY_PASS },                             \
		{ "embed-cert", no_argument, NULL, OPT_EMBED_CERT },                               \
	{                                                                                          \
		"no-embed-cert", no_argument, NULL, OPT_NO_EMBED_CERT                              \
	}

/* 1 if @opt was a signer option (stored in @o), else 0 */
int cli_parse_signer_option(int opt, const char *arg, struct cli_signer_opts *o);

/*
 * Loads a signing key (the pass phrase from --key-pass's source, or asked for
 * on a terminal when needed) and reports an error naming the file or source.
 */
errcode_t cli_load_signer(const struct cli_signer_opts *o, struct e2verity_signer **signer);
const char *cli_failed_file(errcode_t err, const char *keyfile, const char *certfile);
/* The same for a key that signs security.ima (--ima-key, --ima-cert, --ima-key-pass). */
errcode_t cli_load_ima_signer(const struct cli_signer_opts *o, struct e2verity_ima_signer **signer);
/* e2verity_seal_opts.ima_sign and .ima_keep over an IMA signer (@ctx) */
errcode_t cli_ima_sign_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **value,
			  size_t *len);
int cli_ima_keep_cb(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *value,
		    size_t len);
/*
 * Loads the certificate and CA that signatures are verified against, before
 * any image is opened; reports an error naming the file (*@failed).
 */
errcode_t cli_load_verifier(const char *certfile, const char *cafile, struct e2verity_verifier **v,
			    const char **failed);

#endif /* CLI_SIGNER_H */
