// SPDX-License-Identifier: GPL-2.0-or-later
/* signer.c - loading a signing key for sign and seal, and the seal's signer callback */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "cmd.h"

/* The library reports errno values without saying which file they concern. */
const char *e2v_failed_file(errcode_t err, const char *keyfile, const char *certfile)
{
	int fd;

	if (!certfile || err == E2VERITY_ET_KEY_LOAD || err == E2VERITY_ET_KEY_PASS_NEEDED ||
	    err == E2VERITY_ET_KEY_BAD_PASS || err == E2VERITY_ET_KEY_CERT_MISMATCH)
		return keyfile;
	if (err == E2VERITY_ET_CERT_LOAD)
		return certfile;
	/* the key is read first: if it opens, the certificate was at fault */
	fd = open(keyfile, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return keyfile;
	close(fd);
	return certfile;
}

/*
 * Loads the key, asking for its pass phrase on the terminal when it is
 * encrypted and none was given, as openssl(1) does.  Only an interactive user
 * is asked: a script gets the error.
 */
errcode_t e2v_load_signer(const char *keyfile, const char *certfile, const char *key_pass,
			  struct e2verity_signer **signer)
{
	char prompt[256], pass[1024];
	errcode_t err;

	err = e2verity_signer_load(keyfile, certfile, key_pass, signer);
	if (err != E2VERITY_ET_KEY_PASS_NEEDED || key_pass || !isatty(STDIN_FILENO))
		return err;
	snprintf(prompt, sizeof(prompt), "Enter pass phrase for %s:", keyfile);
	if (EVP_read_pw_string(pass, sizeof(pass), prompt, 0) != 0)
		err = E2VERITY_ET_KEY_PASS_NEEDED;
	else
		err = e2verity_signer_load(keyfile, certfile, pass, signer);
	OPENSSL_cleanse(pass, sizeof(pass));
	return err;
}

errcode_t e2v_sign_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
		      size_t *sig_size)
{
	return e2verity_sign_digest(ctx, alg, digest, sig, sig_size);
}
