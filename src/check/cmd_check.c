// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_check.c - `e2verity check`: the fsck pass over every sealed file of an image */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/cmd_check.h"
#include "check/check_files.h"
#include "check/check_lookup.h"
#include "check/check_manifest.h"
#include "check/check_repair.h"
#include "check/check_run.h"
#include "check/fsck.h"
#include "cli/cancel.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "cli/util.h"
#include "cmd/select.h"
#include "cmd/signer.h"
#include "image/image.h"
#include "image/same_file.h"
#include "output/json.h"
#include "output/manifest_read.h"
#include "output/names.h"

#define CLI_MSG_NO_REPLAY                                                                          \
	"%s: warning: '%s' needs journal recovery; skipping it, as e2fsck -n does: the files are " \
	"checked without what the journal holds (e2fsck -f replays it)\n"
/* the command line was answered whole (-V): nothing to check */
#define CLI_CHECK_DONE (-1)

enum {
	OPT_CA = OPT_FIRST_PRIVATE,
	OPT_REQUIRE_SIGNATURES,
	OPT_JSON,
	OPT_PROGRESS,
	OPT_MIN_KERNEL,
	OPT_IMA_CERT,
	OPT_REQUIRE_IMA,
	OPT_MANIFEST,
	OPT_MANIFEST_EXTRA,
	OPT_REQUIRE_SEALED,
	OPT_DIGEST_NAMES,
};

static errcode_t cli_on_finding(void *ctx, const struct e2verity_finding *f)
{
	struct cli_check_run *c = ctx;
	struct cli_check_finding *cf;

	if (cli_grow((void **)&c->findings, &c->cap_findings, c->nr_findings, sizeof(*cf)))
		return ENOMEM;
	cf = &c->findings[c->nr_findings++];
	memset(cf, 0, sizeof(*cf));
	cf->f = *f;
	cf->problem = f->problem;
	/* the file's record comes after its findings; a repair's check has one already */
	cf->rec = c->recheck != SIZE_MAX ? c->recheck : c->nr_files;
	cf->after = c->recheck != SIZE_MAX;
	c->pending_findings++;
	return 0;
}

static unsigned int cli_file_kernel(const struct cli_check_run *c,
				    const struct e2verity_check_file *f);

/* Every file needs a record when every file is listed, or compared with a manifest */
static int cli_keeps_clean(const struct cli_check_run *c)
{
	return c->json || c->verbose || c->manifest || c->digest_names;
}

static errcode_t cli_on_file(void *ctx, const struct e2verity_check_file *file)
{
	struct cli_check_run *c = ctx;
	const size_t findings = c->pending_findings;
	struct cli_checked *r;
	unsigned int k;

	c->pending_findings = 0;
	if (c->recheck != SIZE_MAX) {
		/* after a repair: what the file is now */
		r = &c->files[c->recheck];
		r->file = *file;
		r->errors_after += file->errors;
		return 0;
	}
	if (!findings && !file->errors && !file->warnings && file->have_descriptor &&
	    !cli_keeps_clean(c)) {
		k = cli_file_kernel(c, file);
		c->nr_clean++;
		if (!k)
			c->clean_kernel_none = 1;
		else if (k > c->clean_kernel)
			c->clean_kernel = k;
	} else {
		r = cli_check_add_file(c, file->ino, c->next_path);
		if (!r)
			return ENOMEM;
		r->file = *file;
		r->checked = 1;
		r->errors = file->errors;
		r->warnings = file->warnings;
	}
	if (cli_progress_active(&c->progress))
		cli_progress_file(&c->progress, file->data_size, NULL);
	return 0;
}

static void cli_on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct cli_check_run *c = ctx;
	uint64_t base = c->npaths ? 0 : c->progress.bytes_done;

	(void)total; /* the bar's total was set by cli_progress_total() */
	/* the whole image counts from its first file; one PATH from its own start */
	cli_progress_bytes(&c->progress, done > base ? done - base : 0, c->next_path);
}

/* security.ima is looked at, and reported, with the IMA options only */
static int cli_ima_asked(const struct cli_check_run *c)
{
	return c->opts.ima_certfile || c->opts.require_ima;
}

/* Which files the output lists: all of them in JSON or with -v, else those with findings */
static int cli_listed(const struct cli_check_run *c, const struct cli_checked *r)
{
	return c->json || c->verbose || r->count || r->repair != CLI_REPAIR_NONE;
}

/* Names the files found by scanning the image, in one walk of its directories. */
static errcode_t cli_name_files(struct cli_check_run *c, ext2_filsys fs)
{
	ext2_ino_t *inos;
	char **paths;
	size_t n = 0;
	errcode_t err;

	inos = malloc((c->nr_files + 1) * sizeof(*inos));
	paths = malloc((c->nr_files + 1) * sizeof(*paths));
	if (!inos || !paths) {
		err = ENOMEM;
		goto out;
	}
	/* only what will be printed: every file with -v or --json, else those with findings */
	for (size_t i = 0; i < c->nr_files; i++)
		if (!c->files[i].path && c->files[i].file.ino && cli_listed(c, &c->files[i]))
			inos[n++] = c->files[i].file.ino;
	err = e2verity_inode_paths(fs, inos, n, paths);
	if (err)
		goto out;
	n = 0;
	for (size_t i = 0; i < c->nr_files; i++)
		if (!c->files[i].path && c->files[i].file.ino && cli_listed(c, &c->files[i]))
			c->files[i].path = paths[n++];
out:
	free(inos);
	free(paths);
	return err;
}

/* Groups the findings by file (c->order, each file's first and count) */
static int cli_check_group(struct cli_check_run *c)
{
	size_t *next;

	free(c->order);
	c->order = malloc((c->nr_findings + 1) * sizeof(*c->order));
	next = calloc(c->nr_files + 1, sizeof(*next));
	if (!c->order || !next) {
		free(next);
		return -1;
	}
	/* a counting sort: each file's findings together, in the order they were found */
	for (size_t i = 0; i < c->nr_files; i++)
		c->files[i].count = 0;
	for (size_t k = 0; k < c->nr_findings; k++)
		c->files[c->findings[k].rec].count++;
	for (size_t i = 0, at = 0; i < c->nr_files; i++) {
		c->files[i].first = next[i] = at;
		at += c->files[i].count;
	}
	for (size_t k = 0; k < c->nr_findings; k++)
		c->order[next[c->findings[k].rec]++] = k;
	free(next);
	return 0;
}

/* The errors a file has now: after its repair, what the check then found */
static unsigned int cli_errors_now(const struct cli_checked *r)
{
	return r->repair == CLI_REPAIR_DONE ? r->errors_after : r->errors;
}

/* A problem of check's policies (a manifest, a store's names), not of the file's verity metadata */
static int cli_policy_problem(unsigned int code)
{
	return (code >> 8) == (E2VERITY_PR_MANIFEST_MISSING >> 8) ||
	       (code >> 8) == (E2VERITY_PR_DIGEST_NAME_FORM >> 8);
}

/*
 * Files checked that passed and that failed, by every finding: one whose
 * verity metadata passed but that the manifest or its name in a store
 * fails has failed too, so that the counts agree with the exit status.
 */
static void cli_pass_fail(const struct cli_check_run *c, const struct e2verity_check_stats *st,
			  uint64_t *passed, uint64_t *failed)
{
	uint64_t more = 0;

	for (size_t i = 0; i < c->nr_files; i++) {
		const struct cli_checked *r = &c->files[i];
		int verity = 0, policy = 0;

		if (!r->checked || r->file.skipped)
			continue;
		/* what the first check found: the library's errors, and the policies' */
		for (size_t k = 0; k < r->count; k++) {
			const struct cli_check_finding *f = &c->findings[c->order[r->first + k]];

			if (f->after || f->problem->severity != E2VERITY_SEV_ERROR)
				continue;
			if (cli_policy_problem(f->problem->code))
				policy = 1;
			else
				verity = 1;
		}
		if (policy && !verity)
			more++;
	}
	more = more < st->passed ? more : st->passed;
	*passed = st->passed - more;
	*failed = st->failed + more;
}

static const char *cli_status_word(const struct cli_checked *r)
{
	if (cli_errors_now(r))
		return "failed";
	if (r->repair == CLI_REPAIR_DONE)
		return "repaired";
	return r->file.skipped ? "skipped" : "ok";
}

static void cli_digest_string(const struct e2verity_check_file *f, char *out)
{
	cli_format_digest(f->desc.hash_algorithm, f->digest, out);
}

/*
 * The oldest kernel that reads a file of this format (its block sizes): 0 when
 * none with this page size does, or the descriptor is unknown.
 */
static unsigned int cli_file_kernel(const struct cli_check_run *c,
				    const struct e2verity_check_file *f)
{
	if (!f->have_descriptor)
		return 0;
	return e2verity_kernel_min(c->fs_block_size, 1u << f->desc.log_blocksize,
				   c->kernel.page_size);
}

/*
 * The oldest kernel that reads every file that passed: 0 with *@none set when
 * no kernel of this page size reads one, 0 alone when none passed.
 */
static unsigned int cli_image_kernel(const struct cli_check_run *c, int *none)
{
	unsigned int oldest = c->clean_kernel, k;

	*none = c->clean_kernel_none;
	for (size_t i = 0; i < c->nr_files; i++) {
		const struct e2verity_check_file *f = &c->files[i].file;

		if (!f->have_descriptor || cli_errors_now(&c->files[i]))
			continue;
		k = cli_file_kernel(c, f);
		if (!k)
			*none = 1;
		else if (k > oldest)
			oldest = k;
	}
	return *none ? 0 : oldest;
}

/* " (signed, verified; Linux 6.3 or later)": what -v adds after a file's line */
static void cli_file_notes(const struct cli_check_run *c, const struct cli_checked *r, char *out,
			   size_t size)
{
	const char *sig = r->file.signature_verified ? "signed, verified"
			  : r->file.signed_file	     ? "signed"
						     : NULL;
	unsigned int k = cli_file_kernel(c, &r->file);
	char v[CLI_KERNEL_STRING_MAX], kern[64] = "";

	/* files every kernel with fs-verity reads say nothing more */
	if (r->file.have_descriptor && !cli_errors_now(r)) {
		cli_kernel_string(k, v, sizeof(v));
		if (!k)
			snprintf(kern, sizeof(kern), "no Linux with %u-byte pages reads it",
				 c->kernel.page_size);
		else if (k > E2VERITY_KERNEL_VERSION(5, 4))
			snprintf(kern, sizeof(kern), "Linux %s or later", v);
	}
	const char *ima = !cli_ima_asked(c)			     ? NULL
			  : r->file.ima_verified		     ? "security.ima verified"
			  : r->file.ima == E2VERITY_CHECK_IMA_VERITY ? "security.ima"
								     : NULL;
	const char *parts[] = { sig, ima, *kern ? kern : NULL };
	size_t len = 0;

	*out = 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (!parts[i] || len >= size)
			continue;
		len += snprintf(out + len, size - len, "%s%s", len ? "; " : " (", parts[i]);
	}
	if (len && len + 1 < size)
		strcat(out, ")");
}

/* "/path (inode 12)", "/path (not in the image)", or "/path (cannot be looked up)" */
static void cli_file_label(const struct cli_checked *r, const char *path, char *out, size_t size)
{
	if (r->file.ino)
		snprintf(out, size, "%s (inode %u)", path, r->file.ino);
	else
		snprintf(out, size, "%s (%s)", path,
			 r->unreachable ? "cannot be looked up" : "not in the image");
}

static void cli_print_finding(const struct cli_checked *r, const struct cli_check_finding *cf)
{
	char msg[1024], label[4200];

	e2verity_finding_format(&cf->f, msg, sizeof(msg));
	cli_file_label(r,
		       cf->path	 ? cli_name(cf->path)
		       : r->path ? cli_name(r->path)
				 : "(no name)",
		       label, sizeof(label));
	printf("%s: %s%s %s: %s\n", label, cf->after ? "after the repair: " : "",
	       e2verity_severity_name(cf->problem->severity), cf->problem->id, msg);
}

/* What -p or -y did with a file, in words */
static void cli_print_repair(const struct cli_checked *r, const char *label)
{
	char digest[CLI_DIGEST_STRING_MAX];

	if (r->repair == CLI_REPAIR_LEFT) {
		printf("%s: not repaired: %s\n", label,
		       r->repair_why ? r->repair_why : error_message(r->repair_err));
		return;
	}
	if (!r->resealed) {
		printf("%s: repaired: %llu of %llu Merkle tree block%s rewritten from the data; "
		       "the digest, descriptor and signature are unchanged\n",
		       label, (unsigned long long)r->rres.blocks_rewritten,
		       (unsigned long long)r->rres.tree_blocks, cli_s(r->rres.tree_blocks));
		return;
	}
	cli_format_digest(r->rres.desc.hash_algorithm, r->rres.digest, digest);
	printf("%s: repaired: resealed to %s, which %s%s\n", label, digest,
	       r->rres.trusted_by == E2VERITY_TRUST_SIGNATURE ? "its signature verifies"
							      : "the manifest lists",
	       r->rres.signature_kept	   ? "; its signature kept"
	       : r->rres.signature_dropped ? "; its signature dropped (it does not verify)"
					   : "");
}

static void cli_print_text(struct cli_check_run *c, const struct e2verity_check_stats *st)
{
	char digest[CLI_DIGEST_STRING_MAX], label[4200], notes[128], v[CLI_KERNEL_STRING_MAX];
	char msg[64];
	unsigned int oldest;
	uint64_t passed, failed;
	int none;

	for (size_t i = 0; i < c->nr_files; i++) {
		const struct cli_checked *r = &c->files[i];
		const char *path = r->path ? cli_name(r->path) : "(no name)";

		for (size_t k = 0; k < r->count; k++)
			if (!c->findings[c->order[r->first + k]].after)
				cli_print_finding(r, &c->findings[c->order[r->first + k]]);
		if (r->repair != CLI_REPAIR_NONE) {
			cli_file_label(r, path, label, sizeof(label));
			cli_print_repair(r, label);
		}
		for (size_t k = 0; k < r->count; k++)
			if (c->findings[c->order[r->first + k]].after)
				cli_print_finding(r, &c->findings[c->order[r->first + k]]);
		if (!c->verbose)
			continue;
		if (r->file.have_descriptor)
			cli_digest_string(&r->file, digest);
		else
			strcpy(digest, "-");
		cli_file_notes(c, r, notes, sizeof(notes));
		printf("%s %s %s%s%s\n", cli_status_word(r), digest, path,
		       r->file.ino	? ""
		       : r->unreachable ? " (cannot be looked up)"
					: " (not in the image)",
		       notes);
	}
	if (c->quiet)
		return;
	if (cli_ima_asked(c))
		snprintf(msg, sizeof(msg), ", %llu with security.ima",
			 (unsigned long long)st->ima_files);
	else
		msg[0] = '\0';
	cli_pass_fail(c, st, &passed, &failed);
	printf("%s: %llu file%s checked, %llu passed, %llu failed, %llu skipped, %llu signed%s; "
	       "%llu byte%s hashed%s",
	       cli_name(c->image), (unsigned long long)st->files, cli_s(st->files),
	       (unsigned long long)passed, (unsigned long long)failed,
	       (unsigned long long)st->skipped, (unsigned long long)st->signed_files, msg,
	       (unsigned long long)st->bytes_hashed, cli_s(st->bytes_hashed),
	       c->needs_recovery ? "; journal not replayed" : "");
	if (c->manifest)
		printf("; manifest: %zu path%s, %llu finding%s", c->listing.n, cli_s(c->listing.n),
		       (unsigned long long)c->manifest_findings, cli_s(c->manifest_findings));
	if (c->require_sealed || c->digest_names)
		printf("; %u file%s not sealed", c->not_sealed, cli_s(c->not_sealed));
	if (c->digest_names)
		printf("; digest names: %u file%s, %llu finding%s", c->named_files,
		       cli_s(c->named_files), (unsigned long long)c->name_findings,
		       cli_s(c->name_findings));
	if (c->mode != CLI_CHECK_READ)
		printf("; %u file%s repaired, %u left with errors", c->repaired, cli_s(c->repaired),
		       c->left);
	oldest = cli_image_kernel(c, &none);
	cli_kernel_string(oldest, v, sizeof(v));
	/* said when asked (-v), or when it is news: not every kernel with fs-verity reads them */
	if (!c->verbose && !none && oldest <= E2VERITY_KERNEL_VERSION(5, 4))
		;
	else if (none)
		printf("; no Linux with %u-byte pages reads them all", c->kernel.page_size);
	else if (oldest)
		printf("; Linux %s or later with %u-byte pages reads them all", v,
		       c->kernel.page_size);
	putchar('\n');
}

/* The row says which of the finding's values mean something. */
static void cli_json_finding(struct cli_json *j, const struct cli_check_finding *cf)
{
	const struct e2verity_finding *f = &cf->f;
	const unsigned int fields = f->problem->fields;
	char msg[1024], hex[2 * E2VERITY_MAX_DIGEST_SIZE + 1];

	e2verity_finding_format(f, msg, sizeof(msg));
	cli_json_begin_object(j, NULL);
	cli_json_uint(j, "code", f->problem->code);
	cli_json_string(j, "id", f->problem->id);
	cli_json_string(j, "severity", e2verity_severity_name(cf->problem->severity));
	cli_json_string(j, "message", msg);
	if (cf->path)
		cli_json_name(j, "path", cf->path);
	if (fields & E2VERITY_FIELD_VALUE)
		cli_json_uint(j, "value", f->value);
	if (fields & E2VERITY_FIELD_EXPECTED)
		cli_json_uint(j, "expected", f->expected);
	if (fields & E2VERITY_FIELD_OFFSET)
		cli_json_uint(j, "offset", f->offset);
	if (fields & E2VERITY_FIELD_LEVEL)
		cli_json_uint(j, "level", f->level);
	if (fields & E2VERITY_FIELD_BLOCK)
		cli_json_uint(j, "block", f->block);
	if (fields & E2VERITY_FIELD_COUNT)
		cli_json_uint(j, "count", f->count);
	if (fields & E2VERITY_FIELD_STORED) {
		cli_bin2hex(f->stored, f->hash_size, hex);
		cli_json_string(j, "stored_hash", hex);
	}
	if (fields & E2VERITY_FIELD_COMPUTED) {
		cli_bin2hex(f->computed, f->hash_size, hex);
		cli_json_string(j, "computed_hash", hex);
	}
	if (fields & E2VERITY_FIELD_EXPECTED_HASH) {
		cli_bin2hex(f->expected_hash, f->hash_size, hex);
		cli_json_string(j, "expected_hash", hex);
	}
	if (fields & E2VERITY_FIELD_ERR)
		cli_json_string(j, "error", error_message(f->err));
	cli_json_end_object(j);
}

/* "ima": null, or what security.ima holds and whether it was verified */
static void cli_json_ima(struct cli_json *j, const struct e2verity_check_file *f)
{
	char id[9];

	if (f->ima == E2VERITY_CHECK_IMA_NONE) {
		cli_json_null(j, "ima");
		return;
	}
	cli_json_begin_object(j, "ima");
	cli_json_bool(j, "verity_signature", f->ima == E2VERITY_CHECK_IMA_VERITY);
	if (f->ima == E2VERITY_CHECK_IMA_VERITY) {
		snprintf(id, sizeof(id), "%08x", f->ima_key_id);
		cli_json_string(j, "key_id", id);
	}
	cli_json_bool(j, "verified", f->ima_verified);
	cli_json_end_object(j);
}

/* "6.3", or null: no kernel with the page size, or a file that failed */
static void cli_json_kernel(struct cli_json *j, const char *key, unsigned int version)
{
	char v[CLI_KERNEL_STRING_MAX];

	if (!version) {
		cli_json_null(j, key);
		return;
	}
	cli_kernel_string(version, v, sizeof(v));
	cli_json_string(j, key, v);
}

static void cli_json_repair(struct cli_json *j, const struct cli_checked *r)
{
	char digest[CLI_DIGEST_STRING_MAX];

	if (r->repair == CLI_REPAIR_NONE) {
		cli_json_null(j, "repair");
		return;
	}
	cli_json_begin_object(j, "repair");
	cli_json_string(j, "result", r->repair == CLI_REPAIR_DONE ? "repaired" : "left");
	if (r->repair == CLI_REPAIR_LEFT) {
		cli_json_string(j, "reason",
				r->repair_why ? r->repair_why : error_message(r->repair_err));
	} else if (!r->resealed) {
		cli_json_string(j, "action", "tree_rewritten");
		cli_json_uint(j, "blocks_rewritten", r->rres.blocks_rewritten);
		cli_json_uint(j, "tree_blocks", r->rres.tree_blocks);
	} else {
		cli_json_string(j, "action", "resealed");
		cli_format_digest(r->rres.desc.hash_algorithm, r->rres.digest, digest);
		cli_json_string(j, "digest", digest);
		cli_json_string(j, "trusted_by",
				r->rres.trusted_by == E2VERITY_TRUST_SIGNATURE ? "signature"
									       : "manifest");
		cli_json_bool(j, "signature_kept", r->rres.signature_kept);
		cli_json_bool(j, "signature_dropped", r->rres.signature_dropped);
	}
	cli_json_end_object(j);
}

static void cli_json_findings(struct cli_check_run *c, struct cli_json *j, const char *key,
			      const struct cli_checked *r, int after)
{
	cli_json_begin_array(j, key);
	for (size_t k = 0; k < r->count; k++)
		if (c->findings[c->order[r->first + k]].after == after)
			cli_json_finding(j, &c->findings[c->order[r->first + k]]);
	cli_json_end_array(j);
}

static void cli_json_file(struct cli_check_run *c, struct cli_json *j, const struct cli_checked *r)
{
	const struct e2verity_check_file *f = &r->file;
	char digest[CLI_DIGEST_STRING_MAX], salt[2 * E2VERITY_MAX_SALT_SIZE + 1];

	cli_json_begin_object(j, NULL);
	if (f->ino)
		cli_json_uint(j, "inode", f->ino);
	else
		cli_json_null(j, "inode");
	if (r->path)
		cli_json_name(j, "path", r->path);
	else
		cli_json_null(j, "path");
	cli_json_string(j, "status", cli_status_word(r));
	cli_json_bool(j, "sealed", r->checked);
	cli_json_uint(j, "data_size", f->data_size);
	if (f->have_descriptor) {
		cli_digest_string(f, digest);
		cli_json_string(j, "digest", digest);
		cli_json_string(j, "hash_algorithm",
				e2verity_hash_alg_by_num(f->desc.hash_algorithm)->name);
		cli_json_uint(j, "block_size", 1u << f->desc.log_blocksize);
		cli_bin2hex(f->desc.salt, f->desc.salt_size, salt);
		cli_json_string(j, "salt", salt);
	} else {
		cli_json_null(j, "digest");
	}
	cli_json_bool(j, "signed", f->signed_file);
	cli_json_bool(j, "signature_verified", f->signature_verified);
	cli_json_kernel(j, "min_kernel", cli_file_kernel(c, f));
	if (cli_ima_asked(c))
		cli_json_ima(j, f);
	if (c->manifest) {
		if (r->listed)
			cli_json_uint(j, "manifest_line", r->listed->line);
		else
			cli_json_null(j, "manifest_line");
	}
	cli_json_findings(c, j, "findings", r, 0);
	if (c->mode != CLI_CHECK_READ) {
		cli_json_repair(j, r);
		cli_json_findings(c, j, "findings_after_repair", r, 1);
	}
	cli_json_end_object(j);
}

/* What is wrong with the manifest, when that stopped the run */
static void cli_json_manifest_problems(struct cli_check_run *c, struct cli_json *j)
{
	cli_json_begin_array(j, "manifest_problems");
	for (size_t i = 0; i < c->listing.nproblems; i++) {
		const struct cli_listing_problem *p = &c->listing.problems[i];
		struct e2verity_finding f = { .value = p->line, .expected = p->first_line };
		char msg[256];

		f.problem = e2verity_problem_lookup(p->code);
		e2verity_finding_format(&f, msg, sizeof(msg));
		cli_json_begin_object(j, NULL);
		cli_json_uint(j, "code", p->code);
		cli_json_string(j, "id", f.problem->id);
		cli_json_string(j, "severity", e2verity_severity_name(f.problem->severity));
		cli_json_string(j, "message", msg);
		cli_json_uint(j, "line", p->line);
		if (p->code == E2VERITY_PR_MANIFEST_DUPLICATE)
			cli_json_uint(j, "first_line", p->first_line);
		cli_json_string(j, "reason", p->why ? p->why : "");
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}

static void cli_print_json(struct cli_check_run *c, const struct e2verity_check_stats *st,
			   const char *error, int status)
{
	struct cli_json j;
	uint64_t passed, failed;
	int none;

	cli_json_init(&j, stdout);
	cli_json_begin_object(&j, NULL);
	cli_json_string(&j, "image", c->image);
	cli_json_string(&j, "mode",
			c->mode == CLI_CHECK_YES     ? "yes"
			: c->mode == CLI_CHECK_PREEN ? "preen"
						     : "read-only");
	if (c->manifest) {
		cli_json_name(&j, "manifest", c->manifest);
		if (c->listing.nproblems)
			cli_json_manifest_problems(c, &j);
	}
	cli_json_begin_array(&j, "files");
	for (size_t i = 0; i < c->nr_files; i++)
		cli_json_file(c, &j, &c->files[i]);
	cli_json_end_array(&j);
	cli_json_begin_object(&j, "summary");
	cli_json_uint(&j, "files", st->files);
	cli_pass_fail(c, st, &passed, &failed);
	cli_json_uint(&j, "passed", passed);
	cli_json_uint(&j, "failed", failed);
	cli_json_uint(&j, "skipped", st->skipped);
	cli_json_uint(&j, "signed", st->signed_files);
	if (cli_ima_asked(c))
		cli_json_uint(&j, "ima_signed", st->ima_files);
	cli_json_uint(&j, "bytes_hashed", st->bytes_hashed);
	cli_json_uint(&j, "errors", st->errors);
	cli_json_uint(&j, "warnings", st->warnings);
	cli_json_bool(&j, "needs_recovery", c->needs_recovery);
	cli_json_kernel(&j, "min_kernel", cli_image_kernel(c, &none));
	cli_json_uint(&j, "kernel_page_size", c->kernel.page_size);
	if (c->manifest) {
		cli_json_uint(&j, "manifest_paths", c->listing.n);
		cli_json_uint(&j, "manifest_findings", c->manifest_findings);
	}
	if (c->require_sealed || c->digest_names)
		cli_json_uint(&j, "not_sealed", c->not_sealed);
	if (c->digest_names) {
		cli_json_uint(&j, "digest_named_files", c->named_files);
		cli_json_uint(&j, "digest_name_findings", c->name_findings);
	}
	if (c->mode != CLI_CHECK_READ) {
		cli_json_uint(&j, "repaired", c->repaired);
		cli_json_uint(&j, "left", c->left);
	}
	cli_json_end_object(&j);
	if (error)
		cli_json_string(&j, "error", error);
	cli_json_uint(&j, "exit_status", status);
	cli_json_end_object(&j);
}

/* A file met under a directory given with -r is checked when it is sealed, as in a whole image. */
static int cli_sealed(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_inode inode;

	return ext2fs_read_inode(fs, ino, &inode) || (inode.i_flags & EXT4_VERITY_FL);
}

/* What the progress goes through: @n inodes (all the sealed ones without @inos), and their data. */
static errcode_t cli_check_totals(struct cli_check_run *c, ext2_filsys fs, const ext2_ino_t *inos,
				  size_t n)
{
	struct ext2_inode inode;
	ext2_ino_t *all = NULL;
	uint64_t bytes = 0;
	size_t files = 0;
	errcode_t err = 0;

	if (!cli_progress_active(&c->progress))
		return 0;
	if (!inos) {
		err = e2verity_list_verity_inodes(fs, &all, &n);
		if (err)
			return err;
		inos = all;
	}
	for (size_t i = 0; i < n && !err; i++) {
		if (!inos[i])
			continue;
		err = ext2fs_read_inode(fs, inos[i], &inode);
		bytes += EXT2_I_SIZE(&inode);
		files++;
	}
	free(all);
	cli_progress_total(&c->progress, files, bytes);
	return err;
}

/*
 * Checks the named files (with -r, the sealed files under a directory), or
 * the whole image; *@doing/@what name a failure that stops the run.  A path
 * that cannot be selected is reported and counted in *@missing, and the
 * others are checked all the same.
 */
static errcode_t cli_run_check(struct cli_check_run *c, ext2_filsys fs, char **paths, int npaths,
			       struct e2verity_check_stats *st, unsigned int *missing,
			       const char **doing, const char **what)
{
	struct e2verity_owners *owners = NULL;
	struct cli_selection sel;
	ext2_ino_t *inos = NULL;
	errcode_t err = 0;

	*what = c->image;
	if (!npaths) {
		*doing = "checking";
		err = cli_check_totals(c, fs, NULL, 0);
		return err ? err : e2verity_check_image(fs, &c->opts, st);
	}
	*doing = "reading";
	err = cli_select_init(&sel, fs, c->image);
	if (err)
		return err;
	sel.recursive = c->recursive;
	sel.verb = "checks";
	/* every path first: a typo is reported before minutes of hashing */
	for (int i = 0; i < npaths && !err; i++) {
		unsigned int before = sel.errors;
		int damaged = cli_check_lookup_damage(c, fs, paths[i]);

		if (damaged < 0)
			err = ENOMEM;
		if (damaged)
			continue;
		err = cli_select_path(&sel, paths[i]);
		if (sel.errors > before)
			(*missing)++;
	}
	/* what is checked: the files named, and the sealed ones found under a directory */
	inos = calloc(sel.n ? sel.n : 1, sizeof(*inos));
	if (!err && !inos)
		err = ENOMEM;
	for (size_t i = 0; i < sel.n && !err; i++)
		if (!sel.v[i].walked || cli_sealed(fs, sel.v[i].ino))
			inos[i] = sel.v[i].ino;
	*doing = "checking";
	if (!err)
		err = cli_check_totals(c, fs, inos, sel.n);
	/* one scan of every inode proves the blocks past EOF of all the files checked */
	if (!err && sel.n) {
		*doing = "reading the block maps of";
		err = e2verity_owners_scan(fs, &owners);
		/* bitmaps that cannot be read: the files are checked all the same, as the library does */
		if (err != E2VERITY_ET_NO_MEMORY && err != EXT2_ET_NO_MEMORY)
			err = 0;
		c->opts.owners = owners;
		*doing = "checking";
	}
	for (size_t i = 0; i < sel.n && !err; i++) {
		if (!inos[i])
			continue;
		*what = sel.v[i].path;
		c->next_path = sel.v[i].path;
		err = e2verity_check_path(fs, sel.v[i].path, inos[i], &c->opts, st);
	}
	c->next_path = NULL;
	c->opts.owners = NULL;
	e2verity_owners_free(owners);
	if (err)
		*what = c->image; /* the selection's paths go with it */
	free(inos);
	cli_select_free(&sel);
	return err;
}

/* -C FD: 0 draws a bar on a terminal, any other number gets e2fsck's machine lines */
static int cli_parse_fd(const char *arg, int *fd)
{
	uint64_t v;

	if (cli_parse_u64(arg, 1 << 20, &v))
		return -1;
	*fd = v;
	return 0;
}

/* Collects a repeated option's values; -1 without memory */
static int cli_push(const char ***v, size_t *n, const char *arg)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	nv[(*n)++] = arg;
	*v = nv;
	return 0;
}

/* -n, -p, -y: one of them */
static int cli_set_mode(const struct cli_command *cmd, struct cli_check_run *c, int opt,
			int *letter)
{
	enum cli_check_mode m = opt == 'y'   ? CLI_CHECK_YES
				: opt == 'n' ? CLI_CHECK_READ
					     : CLI_CHECK_PREEN;

	if (*letter && *letter != opt)
		return cli_usage_error(cmd, "-%c and -%c exclude each other", *letter, opt);
	*letter = opt;
	c->mode = m;
	return 0;
}

/*
 * -p and -y may write the image: what they read meanwhile is not the image,
 * and the undo file is neither the image nor what they read.  -n writes
 * nothing, so nothing it names can be lost.
 */
static int cli_check_names(const struct cli_command *cmd, const struct cli_check_run *c)
{
	struct cli_names names = { 0 };

	if (c->mode == CLI_CHECK_READ)
		return 0;
	cli_names_add(&names, c->image, "the image", CLI_NAMED_IMAGE | CLI_NAMED_WRITTEN);
	cli_names_add(&names, c->manifest, "the manifest (--manifest)", 0);
	cli_names_add(&names, c->opts.certfile, "the certificate (--cert)", 0);
	cli_names_add(&names, c->opts.cafile, "the CA certificates (--ca)", 0);
	cli_names_add(&names, c->opts.ima_certfile, "the IMA certificate (--ima-cert)", 0);
	cli_names_add(&names, c->undo_file, "the undo file (-z)",
		      CLI_NAMED_UNDO | CLI_NAMED_WRITTEN);
	return cli_names_check(cmd, &names);
}

/* What the options say together, once all are read */
static int cli_check_combinations(const struct cli_command *cmd, struct cli_check_run *c)
{
	if (c->quiet && c->verbose)
		return cli_usage_error(cmd, "-q and -v exclude each other");
	if (c->undo_file && c->mode == CLI_CHECK_READ)
		return cli_usage_error(cmd, "-z needs -p or -y: without them check writes nothing");
	if (c->extra != CLI_EXTRA_ERROR && !c->manifest)
		return cli_usage_error(cmd, "--manifest-extra needs --manifest");
	if (c->manifest && c->npaths)
		return cli_usage_error(cmd, "--manifest checks the whole image: no PATH with it");
	if (c->digest_names && c->npaths)
		return cli_usage_error(cmd,
				       "--digest-names checks the whole image: no PATH with it");
	if (c->digest_names && cli_normalize_path((char *)c->digest_names))
		return cli_usage_error(cmd, CLI_MSG_RELATIVE, cli_name(c->digest_names));
	if (c->nexcludes && !c->require_sealed)
		return cli_usage_error(cmd, "--exclude says what --require-sealed leaves out: "
					    "give --require-sealed");
	for (size_t i = 0; i < c->nrequired; i++)
		if (cli_normalize_path((char *)c->required[i]))
			return cli_usage_error(cmd, CLI_MSG_RELATIVE, cli_name(c->required[i]));
	return cli_check_names(cmd, c);
}

static int cli_check_parse(const struct cli_command *cmd, int argc, char *argv[],
			   struct cli_check_run *c)
{
	static const struct option longopts[] = {
		{ "cert", required_argument, NULL, OPT_CERT },
		{ "ca", required_argument, NULL, OPT_CA },
		{ "require-signatures", no_argument, NULL, OPT_REQUIRE_SIGNATURES },
		{ "ima-cert", required_argument, NULL, OPT_IMA_CERT },
		{ "require-ima", no_argument, NULL, OPT_REQUIRE_IMA },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "threads", required_argument, NULL, 'j' },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "min-kernel", required_argument, NULL, OPT_MIN_KERNEL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "manifest", required_argument, NULL, OPT_MANIFEST },
		{ "manifest-extra", required_argument, NULL, OPT_MANIFEST_EXTRA },
		{ "require-sealed", optional_argument, NULL, OPT_REQUIRE_SEALED },
		{ "digest-names", required_argument, NULL, OPT_DIGEST_NAMES },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		CLI_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	static const int repeatable[] = { OPT_REQUIRE_SEALED, OPT_EXCLUDE, 0 };
	struct cli_getopt g;
	int opt, status, bar = 0, progress_fd = -1, letter = 0;

	c->opts.threads.count = cli_default_threads();
	c->kernel.page_size = 4096;
	c->recheck = SIZE_MAX;
	/*
	 * e2fsck's letters where they mean the same: -n, -p, -y, -f, -C, -v, -V, -z.
	 * Not e2fsck's -a (its old -p): seal -a and measure -a mean "all files",
	 * and one who meant that must not get writes.
	 */
	cli_getopt_init(&g, cmd, argc, argv, "j:C:nfpayqrvVz:", longopts);
	g.repeatable = repeatable;
	while ((opt = cli_getopt(&g)) != -1) {
		switch (opt) {
		case OPT_CERT:
			c->opts.certfile = optarg;
			break;
		case OPT_CA:
			c->opts.cafile = optarg;
			break;
		case OPT_REQUIRE_SIGNATURES:
			c->opts.require_signatures = 1;
			break;
		case OPT_IMA_CERT:
			c->opts.ima_certfile = optarg;
			break;
		case OPT_REQUIRE_IMA:
			c->opts.require_ima = 1;
			break;
		case OPT_JSON:
			c->json = 1;
			break;
		case OPT_MANIFEST:
			c->manifest = optarg;
			break;
		case OPT_MANIFEST_EXTRA:
			CLI_ANALYZER_ASSUME(optarg); /* required_argument: getopt_long() sets it */
			if (strcmp(optarg, "error") == 0)
				c->extra = CLI_EXTRA_ERROR;
			else if (strcmp(optarg, "warn") == 0)
				c->extra = CLI_EXTRA_WARN;
			else if (strcmp(optarg, "ignore") == 0)
				c->extra = CLI_EXTRA_IGNORE;
			else
				return cli_usage_error(cmd,
						       "--manifest-extra is ignore, warn or error, "
						       "not '%s'",
						       optarg);
			break;
		case OPT_DIGEST_NAMES:
			c->digest_names = optarg;
			break;
		case OPT_REQUIRE_SEALED:
			c->require_sealed = 1;
			if (optarg && cli_push(&c->required, &c->nrequired, optarg))
				return cli_usage_error(cmd, "out of memory");
			break;
		case OPT_EXCLUDE:
			if (cli_push(&c->excludes, &c->nexcludes, optarg))
				return cli_usage_error(cmd, "out of memory");
			break;
		case 'j':
			if (cli_parse_threads(optarg, &c->opts.threads.count))
				return cli_usage_error(cmd, "invalid thread count '%s' (1 to %d)",
						       optarg, CLI_THREADS_MAX);
			break;
		case 'C':
			if (cli_parse_fd(optarg, &progress_fd))
				return cli_usage_error(cmd, "invalid file descriptor '%s'", optarg);
			if (progress_fd == 0) {
				bar = 1;
				progress_fd = -1;
			}
			break;
		case OPT_PROGRESS:
			bar = 1;
			break;
		case 'f':
			/* e2fsck's "even if clean": every sealed file is always checked */
			break;
		case 'a':
			return cli_usage_error(cmd,
					       "-a is not an option of check: -p repairs what is "
					       "safe unattended, the default -n only reads; "
					       "check always checks every sealed file");
		case 'n':
		case 'p':
		case 'y':
			status = cli_set_mode(cmd, c, opt, &letter);
			if (status)
				return status;
			break;
		case 'z':
			c->undo_file = optarg;
			break;
		case 'q':
			c->quiet = 1;
			break;
		case 'v':
			c->verbose = 1;
			break;
		case OPT_MIN_KERNEL:
			if (cli_parse_min_kernel(optarg, &c->kernel) ||
			    c->kernel.version < E2VERITY_KERNEL_VERSION(5, 4))
				return cli_usage_error(cmd,
						       "invalid kernel version '%s' (MAJOR.MINOR "
						       "from 5.4, when ext4 gained fs-verity, then "
						       ":16k or :64k for larger pages)",
						       optarg);
			c->opts.min_kernel = c->kernel.version;
			c->opts.kernel_page_size = c->kernel.page_size;
			break;
		case 'r':
			c->recursive = 1;
			break;
		case 'V':
			printf("%s %s\n", cli_prog, PACKAGE_VERSION);
			return cli_flush_stdout() ? FSCK_ERROR : CLI_CHECK_DONE;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	status = cli_image_operands(cmd, argc, argv, &c->image, &c->paths, &c->npaths);
	if (!status)
		status = cli_image_paths(cmd, c->paths, c->npaths);
	if (!status)
		status = cli_check_combinations(cmd, c);
	if (status)
		return status;
	if (progress_fd >= 0 && fcntl(progress_fd, F_GETFD) < 0)
		return cli_usage_error(cmd, "-C %d: no such open file descriptor", progress_fd);
	cli_progress_init(&c->progress, bar, progress_fd, c->image);
	c->opts.finding = cli_on_finding;
	c->opts.file_done = cli_on_file;
	/* a signal stops the run between files: what was checked is still reported */
	c->opts.cancel = &cli_cancel;
	c->opts.ctx = c;
	if (cli_progress_active(&c->progress))
		c->opts.progress = cli_on_progress;
	c->extra_warn = *e2verity_problem_lookup(E2VERITY_PR_MANIFEST_EXTRA);
	c->extra_warn.severity = E2VERITY_SEV_WARNING;
	return 0;
}

/* Files with errors left, and the files repaired: fsck's bits 4 and 1 */
static int cli_findings_status(struct cli_check_run *c)
{
	c->left = 0;
	for (size_t i = 0; i < c->nr_files; i++)
		c->left += cli_errors_now(&c->files[i]) > 0;
	return (c->left || c->needs_recovery ? FSCK_UNCORRECTED : FSCK_OK) |
	       (c->repaired ? FSCK_NONDESTRUCT : FSCK_OK);
}

/* The fsck status of a run that ended with @err (while @doing @what); c->errbuf says why. */
static int cli_check_status(struct cli_check_run *c, errcode_t err, const char *doing,
			    const char *what)
{
	int status = FSCK_OK;

	if (c->missing) {
		snprintf(c->errbuf, sizeof(c->errbuf), "%u of the given paths not checked in '%s'",
			 c->missing, cli_name(c->image));
		status |= FSCK_ERROR;
	}
	if (err == E2VERITY_ET_CANCELLED) {
		fprintf(stderr, "%s: %s: check of '%s' cancelled\n", cli_prog,
			strsignal(cli_cancel), cli_name(c->image));
		snprintf(c->errbuf, sizeof(c->errbuf), "cancelled by %s", strsignal(cli_cancel));
		status |= FSCK_CANCELED;
	} else if (err) {
		cli_error(err, "while %s '%s'", doing, cli_name(what));
		snprintf(c->errbuf, sizeof(c->errbuf), "%s while %s '%s'", error_message(err),
			 doing, cli_name(what));
		status |= FSCK_ERROR;
	}
	return status;
}

/* The manifest, read before the image: one that cannot be trusted stops the run. */
static int cli_check_read_manifest(struct cli_check_run *c)
{
	if (!c->manifest)
		return 0;
	if (cli_listing_read(c->manifest, &c->listing)) {
		snprintf(c->errbuf, sizeof(c->errbuf), "cannot read the manifest '%s'",
			 cli_name(c->manifest));
		return FSCK_ERROR;
	}
	if (!c->listing.nproblems)
		return 0;
	snprintf(c->errbuf, sizeof(c->errbuf),
		 "the manifest '%s' cannot be trusted (%zu problem%s): nothing was checked",
		 cli_name(c->manifest), c->listing.nproblems, cli_s(c->listing.nproblems));
	fprintf(stderr, "%s: %s\n", cli_prog, c->errbuf);
	return FSCK_ERROR;
}

/* Opens the image, checks it, names what was checked; returns the fsck status. */
static int cli_check_image(struct cli_check_run *c, struct e2verity_check_stats *st)
{
	const char *doing = "opening", *what = c->image;
	ext2_filsys fs = NULL;
	const char *failed;
	int status;
	errcode_t err;

	/* the certificates before the image: a wrong name is about them, signed files or not */
	if (c->opts.certfile || c->opts.cafile) {
		err = cli_load_verifier(c->opts.certfile, c->opts.cafile, &c->verifier, &failed);
		if (err) {
			snprintf(c->errbuf, sizeof(c->errbuf), "%s while loading '%s'",
				 error_message(err), cli_name(failed));
			return FSCK_ERROR;
		}
		c->opts.verifier = c->verifier;
	}
	if (c->opts.ima_certfile) {
		err = e2verity_ima_verifier_load(c->opts.ima_certfile, cli_log_note, NULL,
						 &c->ima_verifier);
		if (err) {
			cli_error(err, "while loading '%s'", cli_name(c->opts.ima_certfile));
			snprintf(c->errbuf, sizeof(c->errbuf), "%s while loading '%s'",
				 error_message(err), cli_name(c->opts.ima_certfile));
			return FSCK_ERROR;
		}
		c->opts.ima_verifier = c->ima_verifier;
	}
	status = cli_check_read_manifest(c);
	if (status)
		return status;
	err = cli_open_image(c->image, 0, &fs);
	if (err) {
		/* reported by the opening: not twice, and in its words */
		snprintf(c->errbuf, sizeof(c->errbuf), "%s", cli_image_last_message());
		return FSCK_ERROR;
	}
	c->fs_block_size = fs->blocksize;
	/*
	 * As e2fsck -n: the journal is not replayed, so what it would change is
	 * not what is checked; said, and counted in the status.
	 */
	if (ext2fs_has_feature_journal_needs_recovery(fs->super)) {
		c->needs_recovery = 1;
		if (!c->quiet)
			fprintf(stderr, CLI_MSG_NO_REPLAY, cli_prog, cli_name(c->image));
	}
	/* one set of hashing threads for all the files, the repairs' too */
	if (c->opts.threads.count > 1) {
		doing = "starting hashing threads for";
		err = e2verity_workers_new(c->opts.threads.count, &c->opts.threads.workers);
	}
	if (!err)
		err = cli_run_check(c, fs, c->paths, c->npaths, st, &c->missing, &doing, &what);
	cli_progress_clear(&c->progress);
	if (!err && c->manifest) {
		doing = "comparing with the manifest";
		what = c->image;
		err = cli_check_manifest(c, fs);
	}
	if (!err && c->require_sealed) {
		doing = "looking for unsealed files in";
		what = c->image;
		err = cli_check_required(c, fs);
	}
	if (!err && c->digest_names) {
		doing = "checking the names of the files under";
		what = c->digest_names;
		err = cli_check_digest_names(c, fs);
	}
	status = cli_check_status(c, err, doing, what);
	/* name what was checked, even after a failure, so that it can be reported */
	err = cli_check_group(c) ? ENOMEM : cli_name_files(c, fs);
	if (err && !(status & FSCK_ERROR)) {
		cli_error(err, "while naming the files of '%s'", cli_name(c->image));
		snprintf(c->errbuf, sizeof(c->errbuf), "%s while naming the files of '%s'",
			 error_message(err), cli_name(c->image));
		status |= FSCK_ERROR;
	}
	cli_close_image(c->image, &fs);
	/* what was found is judged whole first; the image is opened for writing only if need be */
	if (!(status & (FSCK_ERROR | FSCK_CANCELED)) && c->mode != CLI_CHECK_READ)
		status |= cli_check_repair(c);
	e2verity_workers_free(c->opts.threads.workers);
	if (cli_check_group(c) && !(status & FSCK_ERROR)) {
		cli_error(ENOMEM, "while reporting on '%s'", cli_name(c->image));
		status |= FSCK_ERROR;
	}
	return status | cli_findings_status(c);
}

int cmd_check(const struct cli_command *cmd, int argc, char *argv[])
{
	struct cli_check_run c = { 0 };
	struct e2verity_check_stats st = { 0 };
	int status;

	status = cli_check_parse(cmd, argc, argv, &c);
	if (status) {
		free(c.required);
		free(c.excludes);
		return status == CLI_CHECK_DONE ? FSCK_OK : status;
	}
	cli_catch_signals();
	status = cli_check_image(&c, &st);
	if (c.json)
		cli_print_json(&c, &st, status & FSCK_ERROR ? c.errbuf : NULL, status);
	else if (!(status & FSCK_ERROR) || c.nr_files || c.nr_clean || c.missing)
		cli_print_text(&c, &st);
	if (cli_flush_stdout())
		status |= FSCK_ERROR;
	for (size_t i = 0; i < c.nr_files; i++)
		free(c.files[i].path);
	for (size_t k = 0; k < c.nr_findings; k++)
		free(c.findings[k].path);
	free(c.files);
	free(c.findings);
	free(c.order);
	free(c.required);
	free(c.excludes);
	cli_check_files_free();
	cli_listing_free(&c.listing);
	e2verity_verifier_free(c.verifier);
	e2verity_ima_verifier_free(c.ima_verifier);
	return status;
}
