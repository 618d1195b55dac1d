// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_ima.c - seal's security.ima: a key here, or values made elsewhere, verified first */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal/seal_ima.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "cmd/select.h"
#include "cmd/signer.h"
#include "output/names.h"
#include "seal/seal_pass.h"
#include "seal/seal_run.h"

/* ---- signed here ---------------------------------------------------------------------- */

int cli_seal_ima_signer(struct cli_seal_run *c)
{
	c->ima_so.quiet = c->w.quiet;
	if (cli_load_ima_signer(&c->ima_so, &c->ima_signer))
		return CLI_EXIT_FAILURE;
	c->opts.ima_sign = cli_ima_sign_cb;
	c->opts.ima_keep = cli_ima_keep_cb;
	c->opts.ima_ctx = c->ima_signer;
	/* a key signs on any thread; values made elsewhere are looked up by the file's index */
	c->opts.flags |= E2VERITY_SEAL_IMA_SIGN_ANY_THREAD;
	c->opts.ima_size_max = e2verity_ima_signer_max_size(c->ima_signer);
	return CLI_EXIT_OK;
}

/* ---- made elsewhere ------------------------------------------------------------------- */

/*
 * The value for the file being sealed, as verified.  The digest is the one
 * it was verified against, or the image changed under us.
 */
static errcode_t cli_ima_detached_cb(void *ctx, unsigned int alg, const uint8_t *digest,
				     uint8_t **value, size_t *len)
{
	struct cli_seal_run *c = ctx;
	const struct cli_ima_detached *d;

	if (c->index >= c->nima_detached || !c->ima_detached[c->index].value)
		return E2VERITY_ET_SIGN;
	d = &c->ima_detached[c->index];
	if (d->verified && (d->alg != alg ||
			    memcmp(d->digest, digest, e2verity_hash_alg_by_num(alg)->digest_size)))
		return E2VERITY_ET_IMA_MISMATCH;
	*value = malloc(d->len);
	if (!*value)
		return E2VERITY_ET_NO_MEMORY;
	memcpy(*value, d->value, d->len);
	*len = d->len;
	return 0;
}

/* A security.ima the file has is kept if it is what was brought, or carries its signature. */
static int cli_ima_detached_keep(void *ctx, unsigned int alg, const uint8_t *digest,
				 const uint8_t *value, size_t len)
{
	struct cli_seal_run *c = ctx;
	const struct cli_ima_detached *d;
	struct e2verity_ima_sig h;

	(void)alg;
	(void)digest;
	if (c->index >= c->nima_detached)
		return 0;
	d = &c->ima_detached[c->index];
	if (d->value)
		return d->len == len && memcmp(d->value, value, len) == 0;
	if (d->size == len && memcmp(d->bytes, value, len) == 0)
		return 1;
	return !e2verity_ima_parse(value, len, &h) && h.sig_size == d->size &&
	       memcmp(h.sig, d->bytes, d->size) == 0;
}

/* Reads one file whole; one larger than any value is refused unread. */
static errcode_t cli_read_small(const char *path, uint8_t **ret, size_t *size)
{
	errcode_t err = cli_read_whole(path, E2VERITY_IMA_MAX_SIZE, ret, size);

	if (err == EFBIG)
		return E2VERITY_ET_SIG_TOO_LARGE;
	if (!err && !*size) {
		free(*ret);
		*ret = NULL;
		return E2VERITY_ET_IMA_MALFORMED;
	}
	return err;
}

/* one line of `evmctl sign_hash --veritysig`: the line it was given, then the value in hex */
struct cli_ima_line {
	char *path; /* as the manifest printed it: escaped */
	unsigned int alg;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	uint8_t *value;
	size_t len;
	int used;
};

struct cli_ima_lines {
	struct cli_ima_line *v;
	size_t n, cap;
};

static void cli_ima_lines_free(struct cli_ima_lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].value);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * "<alg>:<digest hex> <path> <value hex>": the path is what lies between the
 * first space and the last, so that a name with spaces still reads back.
 */
static int cli_ima_parse_line(char *line, struct cli_ima_line *e)
{
	const struct e2verity_hash_alg *a;
	char *colon, *sp1, *sp2;
	int n;

	memset(e, 0, sizeof(*e));
	colon = strchr(line, ':');
	sp1 = strchr(line, ' ');
	sp2 = strrchr(line, ' ');
	if (!colon || !sp1 || sp2 == sp1 || colon > sp1)
		return -1;
	*colon = *sp1 = *sp2 = '\0';
	a = e2verity_hash_alg_by_name(line);
	if (!a || cli_hex2bin(colon + 1, e->digest, sizeof(e->digest)) != (int)a->digest_size)
		return -1;
	e->alg = a->num;
	e->value = malloc(strlen(sp2 + 1) / 2 + 1);
	e->path = strdup(sp1 + 1);
	if (!e->value || !e->path)
		return -1;
	n = cli_hex2bin(sp2 + 1, e->value, E2VERITY_IMA_MAX_SIZE);
	if (n <= 0)
		return -1;
	e->len = n;
	return 0;
}

/* Every line of the file; a line that is not one of evmctl's is an error naming it. */
static int cli_ima_read_lines(const char *file, struct cli_ima_lines *l)
{
	size_t cap = 0, lineno = 0;
	char *line = NULL;
	ssize_t len;
	FILE *f;
	int status = CLI_EXIT_OK;

	f = fopen(file, "re");
	if (!f) {
		cli_error(errno, "while reading security.ima values from '%s'", cli_name(file));
		return CLI_EXIT_FAILURE;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		if (cli_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v))) {
			cli_error(ENOMEM, "while reading '%s'", cli_name(file));
			status = CLI_EXIT_FAILURE;
			break;
		}
		if (cli_ima_parse_line(line, &l->v[l->n])) {
			fprintf(stderr,
				"%s: '%s', line %zu: not a line of `evmctl sign_hash --veritysig` "
				"(<alg>:<digest> <path> <security.ima in hex>)\n",
				cli_prog, cli_name(file), lineno);
			free(l->v[l->n].path);
			free(l->v[l->n].value);
			status = CLI_EXIT_FAILURE;
			continue;
		}
		l->n++;
	}
	if (ferror(f)) {
		cli_error(errno ? errno : EIO, "while reading '%s'", cli_name(file));
		status = CLI_EXIT_FAILURE;
	}
	free(line);
	fclose(f);
	return status;
}

/*
 * Before the image is opened: where the values come from, and the
 * certificates they are verified against, each named when it cannot be read.
 */
int cli_ima_detached_open(struct cli_seal_run *c)
{
	const char *failed;
	struct stat st;
	errcode_t err;

	if (stat(c->ima_sigsrc, &st)) {
		cli_error(errno, "while reading security.ima values from '%s'",
			  cli_name(c->ima_sigsrc));
		return CLI_EXIT_FAILURE;
	}
	if (!c->ima_so.certfile)
		return CLI_EXIT_OK;
	cli_log_quiet();
	err = e2verity_ima_verifier_load(c->ima_so.certfile, cli_log_note, NULL, &c->ima_verifier);
	if (err) {
		failed = c->ima_so.certfile;
		cli_error(err, "while loading '%s'", cli_name(failed));
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}

/* The line of @path in evmctl's output, taken once */
static struct cli_ima_line *cli_ima_line_of(struct cli_ima_lines *l, const char *path)
{
	char *esc = cli_escape(path);
	struct cli_ima_line *found = NULL;

	for (size_t i = 0; esc && i < l->n && !found; i++)
		if (!l->v[i].used && strcmp(l->v[i].path, esc) == 0)
			found = &l->v[i];
	free(esc);
	if (found)
		found->used = 1;
	return found;
}

/*
 * Reads every file's value before the pre-flight, whose space check needs
 * the largest.  Every missing one is reported.
 */
int cli_ima_detached_load(struct cli_seal_run *c, const struct cli_selection *sel)
{
	struct cli_ima_lines lines = { 0 };
	unsigned int bad = 0;
	size_t max = 0;
	struct stat st;
	errcode_t err;

	if (stat(c->ima_sigsrc, &st)) {
		cli_error(errno, "while reading security.ima values from '%s'",
			  cli_name(c->ima_sigsrc));
		return CLI_EXIT_FAILURE;
	}
	c->ima_detached = calloc(sel->n ? sel->n : 1, sizeof(*c->ima_detached));
	if (!c->ima_detached) {
		cli_error(ENOMEM, "while reading security.ima values");
		return CLI_EXIT_FAILURE;
	}
	c->nima_detached = sel->n;
	if (!S_ISDIR(st.st_mode) && cli_ima_read_lines(c->ima_sigsrc, &lines)) {
		cli_ima_lines_free(&lines);
		return CLI_EXIT_FAILURE;
	}
	for (size_t i = 0; i < sel->n; i++) {
		struct cli_ima_detached *d = &c->ima_detached[i];
		struct cli_ima_line *line;
		char *path;

		if (!S_ISDIR(st.st_mode)) {
			line = cli_ima_line_of(&lines, sel->v[i].path);
			if (!line) {
				fprintf(stderr, "%s: '%s' has no line for '%s'\n", cli_prog,
					cli_name(c->ima_sigsrc), cli_name(sel->v[i].path));
				bad++;
				continue;
			}
			/* the digest evmctl was given is checked against the file's later */
			d->bytes = line->value;
			d->size = line->len;
			line->value = NULL;
			d->alg = line->alg;
			memcpy(d->digest, line->digest, sizeof(d->digest));
			d->verified = -1;
		} else {
			err = cli_detached_path(c->ima_sigsrc, sel->v[i].path, ".ima", &path);
			if (!err)
				err = cli_read_small(path, &d->bytes, &d->size);
			if (err) {
				cli_error(err, "while reading the security.ima value '%s' of '%s'",
					  path ? cli_name(path) : "?", cli_name(sel->v[i].path));
				bad++;
			}
			free(path);
		}
		if (d->size > max)
			max = d->size;
	}
	cli_ima_lines_free(&lines);
	if (bad)
		return CLI_EXIT_FAILURE;
	c->opts.ima_sign = cli_ima_detached_cb;
	c->opts.ima_keep = cli_ima_detached_keep;
	c->opts.ima_ctx = c;
	/* a bare signature gains its header */
	c->opts.ima_size_max = max + E2VERITY_IMA_HEADER_SIZE;
	return CLI_EXIT_OK;
}

/* The digest the value must sign: stored for a file sealed already, else hashed now. */
static errcode_t cli_ima_digest_of(struct cli_seal_run *c, ext2_filsys fs,
				   const struct cli_selection *sel, size_t i,
				   const struct cli_seal_rec *plan, unsigned int *alg,
				   uint8_t *digest)
{
	struct e2verity_seal_plan p;
	struct e2verity_result r;
	errcode_t err;

	/* a file re-signed keeps its digest too */
	if (plan->action == E2VERITY_SEAL_SKIP || plan->action == E2VERITY_SEAL_RESIGN) {
		err = cli_seal_stored(c, fs, sel, i, &p);
		if (err)
			return err;
		*alg = p.desc.hash_algorithm;
		memcpy(digest, p.digest, E2VERITY_MAX_DIGEST_SIZE);
		return 0;
	}
	err = e2verity_seal_digest(fs, sel->v[i].ino, &c->opts, &r);
	if (err)
		return err;
	*alg = r.desc.hash_algorithm;
	memcpy(digest, r.digest, E2VERITY_MAX_DIGEST_SIZE);
	return 0;
}

/* One value made whole and checked: the reason it is refused, reported, or 0. */
static errcode_t cli_ima_detached_check(struct cli_seal_run *c, struct cli_ima_detached *d,
					unsigned int alg, const uint8_t *digest, const char **why)
{
	const unsigned int ds = e2verity_hash_alg_by_num(alg)->digest_size;
	struct e2verity_ima_sig h;
	errcode_t err;

	*why = NULL;
	/* evmctl's line names the digest it signed: the file's must be that one */
	if (d->verified < 0 && (d->alg != alg || memcmp(d->digest, digest, ds))) {
		*why = "it signs another digest than the file's";
		return E2VERITY_ET_IMA_MISMATCH;
	}
	err = e2verity_ima_parse(d->bytes, d->size, &h);
	if (!err) {
		d->value = malloc(d->size);
		if (!d->value)
			return E2VERITY_ET_NO_MEMORY;
		memcpy(d->value, d->bytes, d->size);
		d->len = d->size;
		if (c->ima_verifier)
			return e2verity_ima_verify(c->ima_verifier, alg, digest, d->value, d->len);
		/* the form at least: the kernel hashes with the file's own algorithm */
		if (h.hash_algo != e2verity_ima_hash_algo(alg)) {
			*why = "its hash algorithm is not the file's";
			return E2VERITY_ET_IMA_MISMATCH;
		}
		return 0;
	}
	/* not a value: a bare signature, whose key id only a certificate can give */
	if (!c->ima_verifier) {
		*why = "it is not a security.ima value, and a bare signature needs --ima-cert";
		return E2VERITY_ET_IMA_MALFORMED;
	}
	return e2verity_ima_from_raw(c->ima_verifier, alg, digest, d->bytes, d->size, &d->value,
				     &d->len);
}

/*
 * Each value is made whole and checked against its file's digest (stored
 * for a file sealed already, else hashed from the read-only image now):
 * verified with --ima-cert, its form alone without.  One bad value and
 * nothing is written; every bad one is reported.
 */
int cli_ima_detached_verify(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			    const struct cli_seal_rec *plans)
{
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int bad = 0, alg;
	size_t max = 0;
	const char *why;
	errcode_t err;

	if (cli_seal_workers_start(c))
		return CLI_EXIT_FAILURE;
	for (size_t i = 0; i < sel->n; i++) {
		struct cli_ima_detached *d = &c->ima_detached[i];

		if (plans[i].ima == E2VERITY_IMA_KEEP)
			continue;
		err = cli_ima_digest_of(c, fs, sel, i, &plans[i], &alg, digest);
		if (err) {
			cli_error(err, "while hashing '%s'", cli_name(sel->v[i].path));
			bad++;
			continue;
		}
		err = cli_ima_detached_check(c, d, alg, digest, &why);
		if (err) {
			if (why)
				fprintf(stderr,
					"%s: the security.ima value for '%s' is refused: %s\n",
					cli_prog, cli_name(sel->v[i].path), why);
			else
				cli_error(err, "while verifying the security.ima value of '%s'",
					  cli_name(sel->v[i].path));
			bad++;
			if (err == E2VERITY_ET_NO_MEMORY)
				break;
			continue;
		}
		d->verified = 1;
		d->alg = alg;
		memcpy(d->digest, digest, sizeof(d->digest));
		if (d->len > max)
			max = d->len;
	}
	cli_seal_workers_stop(c);
	return bad ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

/* ---- the selection -------------------------------------------------------------------- */

void cli_ima_only_filter(struct cli_seal_run *c, ext2_filsys fs, struct cli_selection *sel)
{
	struct ext2_inode inode;
	size_t k = 0;

	for (size_t i = 0; i < sel->n; i++) {
		/* a file named on the command line is judged by the pre-flight */
		if (sel->v[i].walked && (ext2fs_read_inode(fs, sel->v[i].ino, &inode) ||
					 !(inode.i_flags & EXT4_VERITY_FL))) {
			if (c->w.verbose)
				fprintf(stderr, "%s: '%s' is not sealed; --ima-only leaves it\n",
					cli_prog, cli_name(sel->v[i].path));
			free(sel->v[i].path);
			continue;
		}
		sel->v[k++] = sel->v[i];
	}
	sel->n = k;
}

void cli_ima_run_free(struct cli_seal_run *c)
{
	for (size_t i = 0; i < c->nima_detached; i++) {
		free(c->ima_detached[i].bytes);
		free(c->ima_detached[i].value);
	}
	free(c->ima_detached);
	c->ima_detached = NULL;
	c->nima_detached = 0;
	e2verity_ima_signer_free(c->ima_signer);
	c->ima_signer = NULL;
	e2verity_ima_verifier_free(c->ima_verifier);
	c->ima_verifier = NULL;
}
