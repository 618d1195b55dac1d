// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_output.c - what `e2verity seal` prints: digest lines, notes, -v details, and the manifest */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal_output.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "cmd/select.h"
#include "image/image.h"
#include "output/manifest.h"
#include "output/names.h"
#include "output/outfile.h"
#include "seal/seal_pass.h"
#include "seal/seal_run.h"

/*
 * The digest line of a file, and one for each other name of it the command
 * line gave (a hard-linked file is sealed once, but every name asked for
 * gets its line, as `fsverity digest` prints one for each argument)
 */
static void cli_print_digest(const struct cli_seal_run *c, const struct cli_selection *sel,
			     unsigned int alg, const uint8_t *digest, const struct cli_target *t)
{
	const struct cli_target *links;
	size_t n;

	if (c->w.quiet)
		return;
	cli_digest_line(stdout, alg, digest, t->path, 0);
	links = cli_select_links(sel, t->ino, &n);
	for (size_t k = 0; links && k < n; k++)
		if (!links[k].walked)
			cli_digest_line(stdout, alg, digest, links[k].path, 0);
}

/* Keeps one file's digest for the manifest, written only when all went well. */
static int cli_seal_manifest_add(struct cli_seal_run *c, ext2_ino_t ino, const char *path,
				 const struct e2verity_descriptor *desc, const uint8_t *digest)
{
	struct cli_manifest_entry *e;

	if (!c->manifest)
		return 0;
	if (cli_manifest_add(&c->mf, path, ino)) {
		cli_error(ENOMEM, "while writing the manifest '%s'", cli_name(c->manifest));
		return -1;
	}
	e = &c->mf.v[c->mf.n - 1];
	e->m.desc = *desc;
	e->m.digest_size = e2verity_hash_alg_by_num(desc->hash_algorithm)->digest_size;
	memcpy(e->m.digest, digest, e->m.digest_size);
	return 0;
}

/*
 * Every name of the files, sorted (a hard-linked file under each of its
 * names), from the image as it now is.  The lock this process holds keeps
 * anyone else out; a second lock of our own would only wait for ourselves.
 */
static errcode_t cli_seal_manifest_text(struct cli_seal_run *c, char **buf, size_t *len)
{
	struct cli_manifest all = { 0 };
	struct cli_image img;
	FILE *f = NULL;
	errcode_t err;

	err = cli_image_open(&img, c->w.image, CLI_IMAGE_SHARED | CLI_IMAGE_QUIET, NULL);
	if (!err)
		err = cli_manifest_names(img.fs, c->w.image, &c->mf, &all);
	if (err)
		goto out;
	f = open_memstream(buf, len);
	if (!f) {
		err = errno;
		goto out;
	}
	cli_manifest_write(f, c->mformat,
			   c->for_ima_sig	? CLI_FORM_IMA
			   : c->for_builtin_sig ? CLI_FORM_BUILTIN
						: 0,
			   c->w.image, &all);
	if (fclose(f))
		err = errno ? errno : ENOMEM;
out:
	cli_manifest_free(&all);
	cli_image_close(&img);
	return err;
}

int cli_seal_manifest_open(struct cli_seal_run *c)
{
	errcode_t err;

	if (!c->manifest || strcmp(c->manifest, "-") == 0)
		return CLI_EXIT_OK;
	err = cli_outfile_open(&c->mout, c->manifest, 0);
	if (err) {
		cli_error(err, "while writing the manifest '%s'%s", cli_name(c->manifest),
			  c->mout.why);
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}

/* Writes the manifest ("-": standard output); a file gets it whole or not at all. */
int cli_seal_manifest_write(struct cli_seal_run *c, int sealed)
{
	const char *name = strcmp(c->manifest ? c->manifest : "-", "-") ? c->manifest : NULL;
	char *buf = NULL;
	size_t len = 0;
	errcode_t err;

	if (!c->manifest)
		return CLI_EXIT_OK;
	err = cli_seal_manifest_text(c, &buf, &len);
	if (!err && name)
		err = cli_outfile_write(&c->mout, buf, len);
	if (!err && name)
		err = cli_outfile_commit(&c->mout);
	if (!err && !name && (fwrite(buf, 1, len, stdout) != len || fflush(stdout)))
		err = errno ? errno : EIO;
	free(buf);
	if (!err)
		return CLI_EXIT_OK;
	/* the files stay sealed: say so, so that nobody seals the image again for the manifest */
	cli_error(err, "while writing the manifest %s%s%s%s%s", name ? "'" : "to standard output",
		  name ? cli_name(name) : "", name ? "'" : "",
		  sealed ? "; the files are sealed in the image all the same, and " : "",
		  sealed ? "seal -n --manifest writes the manifest again" : "");
	return CLI_EXIT_FAILURE;
}

/*
 * -n --manifest: each file's digest, hashed from the image read-only, as
 * sealing would compute it.  Detached signing starts from these lines.
 */
int cli_seal_digests(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
		     const struct cli_seal_rec *plans)
{
	struct e2verity_seal_plan m;
	struct e2verity_result r;
	int status = CLI_EXIT_OK;
	errcode_t err;

	if (cli_seal_workers_start(c))
		return CLI_EXIT_FAILURE;
	for (size_t i = 0; i < sel->n && status == CLI_EXIT_OK; i++) {
		/* --ima-only signs the digest each file was sealed with, whatever its tree */
		if (c->ima_only) {
			/* a file whose security.ima stays has nothing to sign */
			if (plans[i].ima == E2VERITY_IMA_KEEP)
				continue;
			err = cli_seal_stored(c, fs, sel, i, &m);
			if (err) {
				cli_error(err, "while reading '%s'", cli_name(sel->v[i].path));
				status = CLI_EXIT_FAILURE;
			} else if (cli_seal_manifest_add(c, sel->v[i].ino, sel->v[i].path, &m.desc,
							 m.digest)) {
				status = CLI_EXIT_FAILURE;
			}
			continue;
		}
		/* the signature brought for the file is found by its index */
		c->index = i;
		err = e2verity_seal_digest(fs, sel->v[i].ino, &c->opts, &r);
		if (err) {
			cli_error(err, "while hashing '%s'", cli_name(sel->v[i].path));
			status = CLI_EXIT_FAILURE;
		} else if (cli_seal_manifest_add(c, sel->v[i].ino, sel->v[i].path, &r.desc,
						 r.digest)) {
			status = CLI_EXIT_FAILURE;
		}
	}
	cli_seal_workers_stop(c);
	return status;
}

static void cli_seal_verbose(const char *path, const struct e2verity_seal_result *r,
			     unsigned int bs)
{
	char ima[64] = "";

	if (r->ima == E2VERITY_IMA_WRITE || r->ima == E2VERITY_IMA_REPLACE)
		snprintf(ima, sizeof(ima), ", security.ima of key %08x", r->ima_key_id);
	fprintf(stderr,
		"%s: %s: %s, %llu byte%s, %u-byte tree blocks, metadata at blocks %llu-%llu, "
		"%llu block%s allocated, %llu freed%s%s%s\n",
		cli_prog, cli_name(path),
		r->action == E2VERITY_SEAL_RESEAL   ? "resealed"
		: r->action == E2VERITY_SEAL_RESIGN ? "descriptor and signature rewritten"
						    : "sealed",
		(unsigned long long)r->desc.data_size, cli_s(r->desc.data_size),
		1u << r->desc.log_blocksize, (unsigned long long)(r->layout.merkle_pos / bs),
		(unsigned long long)(r->layout.end / bs - 1),
		(unsigned long long)r->blocks_allocated, cli_s(r->blocks_allocated),
		(unsigned long long)r->blocks_freed,
		r->tail_zeroed ? ", stale bytes after EOF zeroed" : "",
		r->inline_moved ? ", inline data moved to a block" : "", ima);
}

/* A run resumed after an interruption meets thousands: a count, the names with -v. */
static void cli_seal_note_skip(struct cli_seal_run *c, const char *path,
			       enum e2verity_ima_action ima)
{
	if (ima == E2VERITY_IMA_KEEP)
		c->ima_kept++;
	else
		c->skipped++;
	if (c->w.quiet || !c->w.verbose)
		return;
	if (ima == E2VERITY_IMA_KEEP)
		fprintf(stderr, "%s: '%s' has this security.ima already; skipped\n", cli_prog,
			cli_name(path));
	else
		fprintf(stderr, "%s: '%s' is already sealed with these parameters; skipped\n",
			cli_prog, cli_name(path));
}

/*
 * A run that signed files sealed already: what became of every file, in
 * counts that add up to the files selected
 */
static void cli_seal_summary(const struct cli_seal_run *c)
{
	const size_t n = c->sealed + c->signed_added + c->signed_replaced + c->signed_removed +
			 c->ima_written + c->skipped + c->ima_kept;
	const struct {
		size_t n;
		const char *what;
	} parts[] = {
		{ c->sealed, "sealed" },
		{ c->signed_added, "signed (sealed already)" },
		{ c->signed_replaced, "re-signed (signature replaced)" },
		{ c->signed_removed, "with the signature removed" },
		{ c->ima_written, "security.ima written (sealed already)" },
		{ c->skipped + c->ima_kept, "skipped (sealed and signed already)" },
	};
	const char *sep = ": ";

	fprintf(stderr, "%s: %zu file%s", cli_prog, n, cli_s(n));
	for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
		if (!parts[k].n)
			continue;
		fprintf(stderr, "%s%zu %s", sep, parts[k].n, parts[k].what);
		sep = ", ";
	}
	fputc('\n', stderr);
}

void cli_seal_note_skips(const struct cli_seal_run *c)
{
	if (c->w.quiet)
		return;
	if (c->signed_added + c->signed_replaced + c->signed_removed) {
		cli_seal_summary(c);
		return;
	}
	if (c->w.verbose)
		return;
	if (c->skipped)
		fprintf(stderr,
			"%s: %zu file%s already sealed with these parameters; skipped (-v names "
			"them)\n",
			cli_prog, c->skipped, c->skipped == 1 ? " is" : "s are");
	if (c->ima_kept)
		fprintf(stderr,
			"%s: %zu file%s this security.ima already; skipped (-v names them)\n",
			cli_prog, c->ima_kept, c->ima_kept == 1 ? " has" : "s have");
}

void cli_seal_list(const struct cli_selection *sel, size_t i, const char *action, uint64_t blocks,
		   const char *more)
{
	const struct cli_target *links;
	size_t n;

	printf("%s ", action);
	cli_write_name(stdout, sel->v[i].path);
	printf(" (%llu block%s at most%s)\n", (unsigned long long)blocks, cli_s(blocks), more);
	links = cli_select_links(sel, sel->v[i].ino, &n);
	for (size_t k = 0; k < n; k++) {
		fputs("and ", stdout);
		cli_write_name(stdout, links[k].path);
		fputs(" (another name of the same file)\n", stdout);
	}
}

/* What became of security.ima, when it is worth saying: a value replaced or removed is. */
static void cli_seal_note_ima(const struct cli_seal_run *c, const char *path,
			      const struct e2verity_seal_result *r)
{
	if (c->w.quiet)
		return;
	if (r->ima == E2VERITY_IMA_REPLACE)
		fprintf(stderr, "%s: '%s': its security.ima was replaced (--force)\n", cli_prog,
			cli_name(path));
	else if (r->ima == E2VERITY_IMA_REMOVE)
		fprintf(stderr, "%s: '%s': its security.ima signed the digest it had: removed\n",
			cli_prog, cli_name(path));
	else if (r->action == E2VERITY_SEAL_SKIP && r->ima == E2VERITY_IMA_WRITE && c->w.verbose)
		fprintf(stderr, "%s: %s: security.ima of key %08x written\n", cli_prog,
			cli_name(path), r->ima_key_id);
}

/* A file sealed already whose signature alone was written: said for each, as a write */
static void cli_seal_note_resign(struct cli_seal_run *c, const char *path, int signed_before,
				 const struct e2verity_seal_result *r)
{
	const char *what;

	if (!r->desc.sig_size) {
		c->signed_removed++;
		what = "signature removed (--force)";
	} else if (signed_before) {
		c->signed_replaced++;
		what = "signature replaced (--force)";
	} else {
		c->signed_added++;
		what = "signed";
	}
	if (!c->w.quiet)
		fprintf(stderr, "%s: '%s': %s, its seal and digest unchanged\n", cli_prog,
			cli_name(path), what);
}

errcode_t cli_seal_report(struct cli_seal_run *c, const struct cli_target *t,
			  const struct cli_seal_rec *rec, const struct e2verity_seal_result *res,
			  unsigned int bs)
{
	cli_print_digest(c, c->sel, res->desc.hash_algorithm, res->digest, t);
	if (cli_seal_manifest_add(c, t->ino, t->path, &res->desc, res->digest))
		return ENOMEM;
	if (res->action == E2VERITY_SEAL_SKIP &&
	    (res->ima == E2VERITY_IMA_NONE || res->ima == E2VERITY_IMA_KEEP))
		cli_seal_note_skip(c, t->path, res->ima);
	else if (res->action == E2VERITY_SEAL_SKIP)
		c->ima_written++;
	else if (res->action == E2VERITY_SEAL_RESIGN)
		cli_seal_note_resign(c, t->path, rec->signed_before, res);
	else
		c->sealed++;
	if (res->action != E2VERITY_SEAL_SKIP && c->w.verbose)
		cli_seal_verbose(t->path, res, bs);
	cli_seal_note_ima(c, t->path, res);
	return 0;
}

/* Nothing to write: say so for the files that are sealed already. */
int cli_seal_report_skips(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			  const struct cli_seal_rec *plans)
{
	struct e2verity_seal_plan m;
	errcode_t err;

	for (size_t i = 0; i < sel->n; i++) {
		err = cli_seal_stored(c, fs, sel, i, &m);
		if (err) {
			cli_error(err, "while reading '%s'", cli_name(sel->v[i].path));
			return CLI_EXIT_FAILURE;
		}
		cli_print_digest(c, sel, m.desc.hash_algorithm, m.digest, &sel->v[i]);
		cli_seal_manifest_add(c, sel->v[i].ino, sel->v[i].path, &m.desc, m.digest);
		cli_seal_note_skip(c, sel->v[i].path, plans[i].ima);
	}
	return CLI_EXIT_OK;
}
