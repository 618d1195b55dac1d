// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_sign.c - seal's signatures: a key here, or detached ones read and verified first */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal/seal_sign.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "cmd/select.h"
#include "cmd/signer.h"
#include "output/names.h"
#include "seal/seal_pass.h"
#include "seal/seal_run.h"

/* The seal's signer for --key: the key loaded, on any thread */
static errcode_t cli_seal_sign_key(void *ctx, unsigned int alg, const uint8_t *digest,
				   uint8_t **sig, size_t *sig_size)
{
	const struct cli_seal_run *c = ctx;

	return e2verity_sign_digest(c->signer, alg, digest, sig, sig_size);
}

/*
 * A sealed file's signature is --key's when it verifies against its
 * certificate: then the file is signed already (an ECDSA signature differs
 * each time it is made, so the bytes cannot tell).
 */
static int cli_seal_keep_key(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *sig,
			     size_t sig_size)
{
	const struct cli_seal_run *c = ctx;

	return c->key_verifier &&
	       e2verity_verifier_verify(c->key_verifier, alg, digest, sig, sig_size) == 0;
}

/*
 * Loads the signing key before the image is touched.  The space check needs
 * the signature's size before any digest is known: one signature of a dummy
 * digest gives it (ECDSA's DER varies by a few bytes, hence the margin).
 */
errcode_t cli_seal_signer(struct cli_seal_run *c, const char **doing)
{
	uint8_t zero[E2VERITY_MAX_DIGEST_SIZE] = { 0 }, *sig = NULL;
	size_t sig_size = 0;
	errcode_t err;

	*doing = NULL;
	c->so.quiet = c->w.quiet;
	err = cli_load_signer(&c->so, &c->signer);
	if (err)
		return err;
	*doing = "signing with";
	err = e2verity_sign_digest(c->signer, c->opts.params.hash_alg, zero, &sig, &sig_size);
	free(sig);
	if (err)
		return err;
	c->opts.sign = cli_seal_sign_key;
	c->opts.sig_keep = cli_seal_keep_key;
	c->opts.sign_ctx = c;
	/*
	 * Without a verifier (a certificate the kernel would not load), no
	 * signature a file has is taken for this key's: --force replaces it
	 */
	if (e2verity_verifier_load(c->so.certfile ? c->so.certfile : c->so.keyfile, NULL,
				   cli_log_note, NULL, &c->key_verifier))
		c->key_verifier = NULL;
	/* one loaded key signs on every hashing thread at once (OpenSSL 3 keys are shared read-only) */
	c->opts.flags |= E2VERITY_SEAL_SIGN_ANY_THREAD;
	c->opts.sig_size_max = sig_size + 16;
	return 0;
}

/*
 * The seal's signer for detached signatures: the bytes read for the file being
 * sealed.  The digest is the one the signature was verified against, or the
 * image changed under us.
 */
static errcode_t cli_detached_cb(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
				 size_t *sig_size)
{
	struct cli_seal_run *c = ctx;
	const struct cli_detached *d;

	if (c->index >= c->ndetached)
		return E2VERITY_ET_SIGN;
	d = &c->detached[c->index];
	if (d->verified && (d->alg != alg ||
			    memcmp(d->digest, digest, e2verity_hash_alg_by_num(alg)->digest_size)))
		return E2VERITY_ET_SIG_INVALID;
	*sig = malloc(d->size);
	if (!*sig)
		return E2VERITY_ET_NO_MEMORY;
	memcpy(*sig, d->sig, d->size);
	*sig_size = d->size;
	return 0;
}

/* A sealed file's signature is kept when it is the one brought for it, byte for byte. */
static int cli_detached_keep(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *sig,
			     size_t sig_size)
{
	const struct cli_seal_run *c = ctx;
	const struct cli_detached *d;

	(void)alg;
	(void)digest;
	if (c->index >= c->ndetached)
		return 0;
	d = &c->detached[c->index];
	return d->sig && d->size == sig_size && memcmp(d->sig, sig, sig_size) == 0;
}

/* Reads one signature file whole; a file larger than any signature is refused unread. */
static errcode_t cli_read_sig(const char *path, struct cli_detached *d)
{
	uint8_t *buf = NULL;
	size_t n = 0;
	errcode_t err;

	err = cli_read_whole(path, E2VERITY_MAX_SIGNATURE_SIZE, &buf, &n);
	if (err == EFBIG)
		return E2VERITY_ET_SIG_TOO_LARGE;
	if (!err)
		err = e2verity_signature_parse(buf, n);
	if (err) {
		free(buf);
		return err;
	}
	d->sig = buf;
	d->size = n;
	return 0;
}

/*
 * DIR/<path inside the image without its leading '/'>.sig
 * (cli_detached_path()), or the one --signature file.  The selection never
 * makes a path with a "." or ".." component: names are normalised, and a
 * directory entry that is not a name is not followed.
 */
static errcode_t cli_sig_path(const struct cli_seal_run *c, const char *path, char **out)
{
	if (c->sigfile) {
		*out = strdup(c->sigfile);
		return *out ? 0 : ENOMEM;
	}
	return cli_detached_path(c->sigdir, path, ".sig", out);
}

/*
 * Before the image is opened: the certificate and CA the signatures are
 * verified against, and the directory or file they come from, each named in
 * the message when it cannot be read.
 */
int cli_detached_open(struct cli_seal_run *c)
{
	const char *src = c->sigdir ? c->sigdir : c->sigfile, *failed;
	struct stat st;
	errcode_t err = 0;
	int fd;

	fd = open(src, O_RDONLY | O_CLOEXEC | (c->sigdir ? O_DIRECTORY : 0));
	if (fd < 0)
		err = errno;
	else if (fstat(fd, &st))
		err = errno;
	else if (c->sigfile && S_ISDIR(st.st_mode))
		err = EISDIR;
	if (fd >= 0)
		close(fd);
	if (err) {
		cli_error(err, "while reading signatures from '%s'", cli_name(src));
		return CLI_EXIT_FAILURE;
	}
	if (!c->so.certfile && !c->cafile)
		return CLI_EXIT_OK;
	err = cli_load_verifier(c->so.certfile, c->cafile, &c->verifier, &failed);
	return err ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

/*
 * Reads every file's signature before the pre-flight, whose space check
 * needs the largest.  Every missing or malformed one is reported.
 */
int cli_detached_load(struct cli_seal_run *c, const struct cli_selection *sel)
{
	unsigned int bad = 0;
	size_t max = 0;
	errcode_t err;

	c->detached = calloc(sel->n ? sel->n : 1, sizeof(*c->detached));
	if (!c->detached) {
		cli_error(ENOMEM, "while reading signatures");
		return CLI_EXIT_FAILURE;
	}
	c->ndetached = sel->n;
	for (size_t i = 0; i < sel->n; i++) {
		char *path;

		err = cli_sig_path(c, sel->v[i].path, &path);
		if (!err)
			err = cli_read_sig(path, &c->detached[i]);
		if (err) {
			cli_error(err, "while reading the signature '%s' of '%s'",
				  path ? cli_name(path) : "?", cli_name(sel->v[i].path));
			bad++;
		} else if (c->detached[i].size > max) {
			max = c->detached[i].size;
		}
		free(path);
	}
	if (bad)
		return CLI_EXIT_FAILURE;
	c->opts.sign = cli_detached_cb;
	c->opts.sig_keep = cli_detached_keep;
	c->opts.sign_ctx = c;
	c->opts.sig_size_max = max;
	return CLI_EXIT_OK;
}

/*
 * With --cert or --ca, each signature is verified against its file's digest,
 * hashed from the read-only image now: one bad signature and nothing is
 * written.  Every bad one is reported.
 */
int cli_detached_verify(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			const struct cli_seal_rec *plans)
{
	struct e2verity_seal_plan stored;
	struct e2verity_result r;
	unsigned int bad = 0;
	errcode_t err;

	if (!c->verifier)
		return CLI_EXIT_OK;
	if (cli_seal_workers_start(c))
		return CLI_EXIT_FAILURE;
	for (size_t i = 0; i < sel->n; i++) {
		struct cli_detached *d = &c->detached[i];
		char *path;

		if (plans[i].action == E2VERITY_SEAL_SKIP)
			continue;
		/* a file sealed already is signed with the digest it has: nothing is hashed */
		if (plans[i].action == E2VERITY_SEAL_RESIGN) {
			err = cli_seal_stored(c, fs, sel, i, &stored);
			r.desc = stored.desc;
			memcpy(r.digest, stored.digest, sizeof(r.digest));
		} else {
			err = e2verity_seal_digest(fs, sel->v[i].ino, &c->opts, &r);
		}
		if (err) {
			cli_error(err, "while hashing '%s'", cli_name(sel->v[i].path));
			bad++;
			continue;
		}
		err = e2verity_verifier_verify(c->verifier, r.desc.hash_algorithm, r.digest, d->sig,
					       d->size);
		if (err) {
			cli_sig_path(c, sel->v[i].path, &path);
			cli_error(err, "while verifying the signature '%s' of '%s'",
				  path ? cli_name(path) : "?", cli_name(sel->v[i].path));
			free(path);
			bad++;
			if (err == E2VERITY_ET_NO_MEMORY)
				break;
			continue;
		}
		d->verified = 1;
		d->alg = r.desc.hash_algorithm;
		memcpy(d->digest, r.digest, sizeof(d->digest));
	}
	cli_seal_workers_stop(c);
	return bad ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
