// SPDX-License-Identifier: GPL-2.0-or-later
/* signer.c - loading a signing key for sign and seal, and the seal's signer callback */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "cmd/signer.h"
#include "cli/cli.h"
#include "output/names.h"

#define CLI_PASS_MAX 1024

/* the library names the file that failed, so nothing is reopened to guess */
const char *cli_failed_file(errcode_t err, const char *keyfile, const char *certfile)
{
	if (cli_log_object(err))
		return cli_log_object(err);
	return certfile && err == E2VERITY_ET_CERT_LOAD ? certfile : keyfile;
}

/* The first line of @fd, without its newline; read a byte at a time so nothing more is taken. */
static errcode_t cli_read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	char ch;

	for (;;) {
		r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0 || ch == '\n')
			break;
		if (n + 1 >= size)
			return E2VERITY_ET_KEY_PASS_SOURCE;
		buf[n++] = ch;
	}
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return 0;
}

/*
 * The pass phrase forms of openssl(1)'s -passin: pass:, env:, file:, fd:,
 * stdin.  Anything else is the pass phrase itself, as --key-pass always took.
 */
static errcode_t cli_pass_from(const char *spec, char *buf, size_t size)
{
	const char *v;
	errcode_t err;
	char *end;
	long fd;
	int f;

	if (strncmp(spec, "pass:", 5) == 0) {
		v = spec + 5;
	} else if (strncmp(spec, "env:", 4) == 0) {
		v = getenv(spec + 4);
		if (!v)
			return E2VERITY_ET_KEY_PASS_SOURCE;
	} else if (strncmp(spec, "file:", 5) == 0) {
		f = open(spec + 5, O_RDONLY | O_CLOEXEC);
		if (f < 0)
			return errno;
		err = cli_read_line(f, buf, size);
		close(f);
		return err;
	} else if (strncmp(spec, "fd:", 3) == 0) {
		errno = 0;
		fd = strtol(spec + 3, &end, 10);
		if (errno || end == spec + 3 || *end || fd < 0 || fd > INT_MAX)
			return E2VERITY_ET_KEY_PASS_SOURCE;
		return cli_read_line(fd, buf, size);
	} else if (strcmp(spec, "stdin") == 0) {
		return cli_read_line(STDIN_FILENO, buf, size);
	} else {
		v = spec;
	}
	if (strlen(v) >= size)
		return E2VERITY_ET_KEY_PASS_SOURCE;
	strcpy(buf, v);
	return 0;
}

/* what a loader of a key (and certificate) looks like: the fs-verity signer's or IMA's */
typedef errcode_t (*cli_key_loader)(const char *keyfile, const char *certfile, const char *pass,
				    void *ret);

static errcode_t cli_load_fsverity(const char *keyfile, const char *certfile, const char *pass,
				   void *ret)
{
	return e2verity_signer_load(keyfile, certfile, pass, cli_log_note, NULL, ret);
}

static errcode_t cli_load_ima(const char *keyfile, const char *certfile, const char *pass,
			      void *ret)
{
	return e2verity_ima_signer_load(keyfile, certfile, pass, cli_log_note, NULL, ret);
}

/*
 * Loads the key, asking for its pass phrase on the terminal when it is
 * encrypted and none was given, as openssl(1) does.  Only an interactive user
 * is asked: a script gets the error.  Errors are reported here.
 */
static errcode_t cli_load_with_pass(const struct cli_signer_opts *o, cli_key_loader load, void *ret)
{
	char prompt[256], pass[CLI_PASS_MAX];
	errcode_t err;

	cli_log_listen();
	if (o->key_pass) {
		err = cli_pass_from(o->key_pass, pass, sizeof(pass));
		if (err) {
			cli_error(err, "while reading the pass phrase from '%s'",
				  cli_name(o->key_pass));
			goto out;
		}
		err = load(o->keyfile, o->certfile, pass, ret);
	} else {
		err = load(o->keyfile, o->certfile, NULL, ret);
		if (err == E2VERITY_ET_KEY_PASS_NEEDED && isatty(STDIN_FILENO)) {
			snprintf(prompt, sizeof(prompt), "Enter pass phrase for %s:", o->keyfile);
			if (EVP_read_pw_string(pass, sizeof(pass), prompt, 0) == 0)
				err = load(o->keyfile, o->certfile, pass, ret);
		}
	}
	if (err)
		cli_error(err, "while loading '%s'",
			  cli_name(cli_failed_file(err, o->keyfile, o->certfile)));
out:
	OPENSSL_cleanse(pass, sizeof(pass));
	return err;
}

errcode_t cli_load_signer(const struct cli_signer_opts *o, struct e2verity_signer **signer)
{
	errcode_t err;

	*signer = NULL;
	err = cli_load_with_pass(o, cli_load_fsverity, signer);
	if (err)
		return err;
	if (o->embed >= 0)
		e2verity_signer_set_embed(*signer, o->embed);
	if (!o->quiet && !e2verity_signer_kernel_can_chain(*signer))
		fprintf(stderr,
			"%s: warning: '%s' has no Authority Key Identifier: the kernel cannot "
			"chain it to a CA in its keyring\n",
			cli_prog, cli_name(o->certfile ? o->certfile : o->keyfile));
	return 0;
}

errcode_t cli_load_ima_signer(const struct cli_signer_opts *o, struct e2verity_ima_signer **signer)
{
	int from_cert;
	errcode_t err;

	*signer = NULL;
	err = cli_load_with_pass(o, cli_load_ima, signer);
	if (err)
		return err;
	e2verity_ima_signer_key_id(*signer, &from_cert);
	/* the kernel finds the key of "id:%08x" by its certificate's subject key identifier */
	if (!o->quiet && o->certfile && !from_cert)
		fprintf(stderr,
			"%s: warning: '%s' has no subject key identifier: the key id is derived "
			"from the key, as evmctl derives it, and the kernel may not find the key\n",
			cli_prog, cli_name(o->certfile));
	return 0;
}

errcode_t cli_load_verifier(const char *certfile, const char *cafile, struct e2verity_verifier **v,
			    const char **failed)
{
	errcode_t err;

	cli_log_listen();
	err = e2verity_verifier_load(certfile, cafile, cli_log_note, NULL, v);
	if (!err)
		return 0;
	if (cli_log_object(err))
		*failed = cli_log_object(err);
	else
		*failed = certfile ? certfile : cafile;
	cli_error(err, "while loading '%s'", cli_name(*failed));
	return err;
}

int cli_parse_signer_option(int opt, const char *arg, struct cli_signer_opts *o)
{
	switch (opt) {
	case OPT_KEY:
		o->keyfile = arg;
		return 1;
	case OPT_CERT:
		o->certfile = arg;
		return 1;
	case OPT_KEY_PASS:
		o->key_pass = arg;
		return 1;
	case OPT_EMBED_CERT:
		o->embed = 1;
		return 1;
	case OPT_NO_EMBED_CERT:
		o->embed = 0;
		return 1;
	}
	return 0;
}

errcode_t cli_ima_sign_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **value,
			  size_t *len)
{
	return e2verity_ima_sign(ctx, alg, digest, value, len);
}

int cli_ima_keep_cb(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *value,
		    size_t len)
{
	return e2verity_ima_signer_verify(ctx, alg, digest, value, len) == 0;
}
