// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_seal.c - `e2verity seal`: enable fs-verity on files inside an unmounted ext4 image */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "seal/cmd_seal.h"
#include "cli/cancel.h"
#include "cli/util.h"
#include "cli/cli.h"
#include "cmd/select.h"
#include "cmd/signer.h"
#include "image/image.h"
#include "output/names.h"
#include "seal/seal_ima.h"
#include "seal/seal_options.h"
#include "seal/seal_output.h"
#include "seal/seal_pass.h"
#include "seal/seal_run.h"
#include "seal/seal_sign.h"
#include "seal/seal_write.h"

/*
 * What the kernel the image is for cannot read is refused (--min-kernel);
 * without one, what Linux before 6.3 cannot read is a warning.
 */
static int cli_fs_kernel(const struct cli_seal_run *c, ext2_filsys fs)
{
	const unsigned int bs = fs->blocksize, tbs = c->opts.params.block_size;
	const unsigned int page = c->kernel.version ? c->kernel.page_size : 4096;
	char k[CLI_KERNEL_STRING_MAX];
	unsigned int need;

	if (!c->kernel.version) {
		if (c->w.quiet)
			return 0;
		if (bs != 4096)
			fprintf(stderr,
				"%s: warning: '%s' has %u-byte blocks; Linux before 6.3 refuses "
				"to mount a filesystem with fs-verity unless its block size is the "
				"page size (4096); --min-kernel=6.3 says the image is for 6.3 or "
				"later\n",
				cli_prog, cli_name(c->w.image), bs);
		if (tbs != 4096)
			fprintf(stderr,
				"%s: warning: %u-byte Merkle tree blocks; Linux before 6.3 only "
				"reads 4096-byte ones; --min-kernel=6.3 says the image is for 6.3 "
				"or later\n",
				cli_prog, tbs);
		return 0;
	}
	cli_kernel_string(c->kernel.version, k, sizeof(k));
	need = e2verity_kernel_min(bs, bs < page ? bs : page, page);
	if (!need || need > c->kernel.version) {
		fprintf(stderr,
			"%s: '%s' has %u-byte blocks, and Linux %s with %u-byte pages does not "
			"mount it with fs-verity: %s\n",
			cli_prog, cli_name(c->w.image), bs, k, page,
			need ? "before 6.3 the block size must be the page size"
			     : "no kernel mounts blocks larger than its page");
		return CLI_EXIT_FAILURE;
	}
	need = e2verity_kernel_min(bs, tbs, page);
	if (!need || need > c->kernel.version) {
		fprintf(stderr,
			"%s: %u-byte Merkle tree blocks: Linux %s with %u-byte pages does not read "
			"them (%s); sealing nothing in '%s'\n",
			cli_prog, tbs, k, page,
			need ? "before 6.3 they must be the page size"
			     : "no kernel reads tree blocks larger than its page",
			cli_name(c->w.image));
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

static const char *cli_action_word(const struct cli_seal_run *c, const struct e2verity_seal_plan *p)
{
	if (p->action == E2VERITY_SEAL_SKIP && p->ima == E2VERITY_IMA_WRITE)
		return c->ima_only ? "write security.ima of"
				   : "already sealed, write security.ima of";
	if (p->action == E2VERITY_SEAL_SKIP && p->ima == E2VERITY_IMA_REPLACE)
		return c->ima_only ? "replace security.ima of"
				   : "already sealed, replace security.ima of";
	if (p->action == E2VERITY_SEAL_SKIP && p->ima == E2VERITY_IMA_KEEP)
		return c->ima_only ? "keep security.ima of"
				   : "already sealed with this security.ima, skip";
	if (p->action == E2VERITY_SEAL_RESIGN)
		return !p->desc.sig_size	     ? "already sealed, sign"
		       : c->opts.sign || c->opts.sig ? "already sealed, replace the signature of"
						     : "already sealed, remove the signature of";
	return p->action == E2VERITY_SEAL_SKIP	   ? "already sealed, skip"
	       : p->action == E2VERITY_SEAL_RESEAL ? "reseal"
						   : "seal";
}

/* a refusal of many files is named this many times, then counted (-v names every one) */
#define CLI_SEAL_REFUSALS_NAMED 10

/* what would let the files refused for @err be sealed, or NULL */
static const char *cli_refusal_way_out(errcode_t err)
{
	switch (err) {
	case E2VERITY_ET_SEALED_OTHER_PARAMS:
	case E2VERITY_ET_SEALED_CORRUPT:
		return "--force reseals them";
	case E2VERITY_ET_SIGNED_OTHER:
		return "--force replaces their signatures";
	case E2VERITY_ET_SEALED_SIGNED:
		return "--force removes their signatures";
	case E2VERITY_ET_IMA_EXISTS:
		return "--force replaces their security.ima";
	default:
		return NULL;
	}
}

/* Counts a refusal; 1 if it is to be named */
static int cli_refusal_note(struct cli_seal_run *c, errcode_t err)
{
	struct cli_seal_refusals *r = &c->refused;
	size_t k;

	r->n++;
	for (k = 0; k < r->nwhy && r->why[k].err != err; k++)
		;
	if (k < sizeof(r->why) / sizeof(r->why[0])) {
		r->why[k].err = err;
		r->why[k].n++;
		if (k == r->nwhy)
			r->nwhy++;
	} else {
		r->other++;
	}
	if (!c->w.verbose && r->named >= CLI_SEAL_REFUSALS_NAMED)
		return 0;
	r->named++;
	return 1;
}

/*
 * The reason of @err as the summary says it: its message without "File is"
 * and the parenthesis (the way out is said once for all)
 */
static void cli_refusal_reason(errcode_t err, char *buf, size_t size)
{
	const char *m = error_message(err);
	char *paren;

	if (strncmp(m, "File is ", 8) == 0)
		m += 8;
	else if (strncmp(m, "File ", 5) == 0)
		m += 5;
	snprintf(buf, size, "%s", m);
	paren = strstr(buf, " (");
	if (paren)
		*paren = '\0';
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = buf[0] - 'A' + 'a';
}

/* Many files refused: how many, why, and the option that would let them be sealed */
static void cli_refusal_summary(const struct cli_seal_run *c, size_t total)
{
	const struct cli_seal_refusals *r = &c->refused;
	char reason[256];

	if (r->n < 2)
		return;
	fprintf(stderr, "%s: %zu of %zu file%s refused, nothing written", cli_prog, r->n, total,
		cli_s(total));
	if (r->named < r->n)
		fprintf(stderr, " (%zu named above; -v names every one)", r->named);
	for (size_t k = 0; k < r->nwhy; k++) {
		const char *way = cli_refusal_way_out(r->why[k].err);

		cli_refusal_reason(r->why[k].err, reason, sizeof(reason));
		fprintf(stderr, "%s %zu %s%s%s%s", k ? "," : ":", r->why[k].n, reason,
			way ? " (" : "", way ? way : "", way ? ")" : "");
	}
	if (r->other)
		fprintf(stderr, ", %zu for other reasons", r->other);
	fputc('\n', stderr);
}

/* what a file to (re)seal does with its security.ima, for the dry run's line */
static const char *cli_ima_words(const struct e2verity_seal_plan *p)
{
	if (p->action == E2VERITY_SEAL_SKIP)
		return "";
	switch (p->ima) {
	case E2VERITY_IMA_WRITE:
		return ", with security.ima";
	case E2VERITY_IMA_REPLACE:
		return ", replacing its security.ima";
	case E2VERITY_IMA_REMOVE:
		return ", removing its security.ima if the digest changes";
	default:
		return "";
	}
}

/* -n --ima-only without a key: the pre-flight plans security.ima, nothing signs it */
static errcode_t cli_no_ima_sign(void *ctx, unsigned int alg, const uint8_t *digest,
				 uint8_t **value, size_t *len)
{
	(void)ctx;
	(void)alg;
	(void)digest;
	*value = NULL;
	*len = 0;
	return E2VERITY_ET_SIGN;
}

/* what the pre-flight says of each file, as the library judges them */
struct cli_seal_judge {
	struct cli_seal_run *c;
	ext2_filsys fs;
	const struct cli_selection *sel;
	struct cli_seal_rec *recs;
};

/* the callbacks of values made elsewhere find the file's by its index */
static void cli_seal_begin(void *ctx, size_t i)
{
	struct cli_seal_judge *j = ctx;

	j->c->index = i;
}

static errcode_t cli_seal_judged(void *ctx, size_t i, errcode_t err,
				 const struct e2verity_seal_plan *plan)
{
	struct cli_seal_judge *j = ctx;
	const struct cli_seal_run *c = j->c;

	if (!err) {
		j->recs[i].data_size = plan->data_size;
		j->recs[i].action = plan->action;
		j->recs[i].ima = plan->ima;
		j->recs[i].signed_before = plan->desc.sig_size != 0;
	}
	/* thousands of files refused alike say it in a few lines and a count */
	if (err && cli_refusal_note(j->c, err))
		cli_error(err, "while checking '%s'%s", cli_name(j->sel->v[i].path),
			  err == E2VERITY_ET_NOT_REGULAR ? cli_file_kind(j->fs, j->sel->v[i].ino)
							 : cli_log_detail(err));
	else if (c->w.dry_run && !c->w.quiet)
		cli_seal_list(j->sel, i, cli_action_word(c, plan), plan->blocks_needed,
			      cli_ima_words(plan));
	return 0;
}

/*
 * The pre-flight: every file, and the space for all of them, before any byte
 * is written.  Returns 0 when sealing may go ahead.
 */
static int cli_seal_preflight(struct cli_seal_run *c, ext2_filsys fs,
			      const struct cli_selection *sel, struct cli_seal_rec *recs, int *work)
{
	struct cli_seal_judge j = { .c = c, .fs = fs, .sel = sel, .recs = recs };
	const struct e2verity_seal_files_cb cb = {
		.begin = cli_seal_begin,
		.judged = cli_seal_judged,
		.ctx = &j,
	};
	struct e2verity_files_totals tot;
	ext2_ino_t *inos;
	errcode_t err;

	*work = 0;
	inos = cli_select_inos(sel);
	if (!inos) {
		cli_error(ENOMEM, "while checking '%s'", cli_name(c->w.image));
		return CLI_EXIT_FAILURE;
	}
	/* each plan is kept only as the callback's record: a plan is 424 bytes */
	err = e2verity_seal_preflight(fs, inos, sel->n, &c->opts, &cb, NULL, &tot);
	free(inos);
	*work = tot.todo > 0;
	cli_refusal_summary(c, sel->n);
	if (tot.refused || sel->errors)
		return CLI_EXIT_FAILURE;
	if (err == E2VERITY_ET_NO_SPACE) {
		cli_error(E2VERITY_ET_NO_SPACE,
			  "while checking '%s' (%llu blocks needed, %llu free)",
			  cli_name(c->w.image),
			  (unsigned long long)(tot.blocks_needed - tot.blocks_freed),
			  (unsigned long long)tot.blocks_free);
		return CLI_EXIT_FAILURE;
	}
	if (err) {
		cli_error(err, "while reading the block maps of '%s'", cli_name(c->w.image));
		return CLI_EXIT_FAILURE;
	}
	if (c->w.dry_run && !c->w.quiet)
		printf("%zu file%s, %llu block%s needed, %llu free\n", sel->n, cli_s(sel->n),
		       (unsigned long long)tot.blocks_needed, cli_s(tot.blocks_needed),
		       (unsigned long long)tot.blocks_free);
	return CLI_EXIT_OK;
}

int cmd_seal(const struct cli_command *cmd, int argc, char *argv[])
{
	struct cli_seal_run c = { 0 };
	struct cli_selection sel = { 0 };
	struct cli_seal_rec *plans = NULL;
	struct cli_image pre = { 0 };
	struct e2verity_owners *owners = NULL;
	ext2_filsys fs = NULL;
	int status, work = 0;
	errcode_t err;

	status = cli_seal_parse(cmd, argc, argv, &c);
	if (status != CLI_EXIT_OK)
		goto out;
	cli_catch_signals();
	status = CLI_EXIT_FAILURE;
	if (c.so.keyfile) {
		const char *doing;

		err = cli_seal_signer(&c, &doing);
		if (err) {
			/* a loading error was reported where it happened */
			if (doing)
				cli_error(err, "while %s '%s'", doing,
					  cli_name(cli_failed_file(err, c.so.keyfile,
								   c.so.certfile)));
			goto out;
		}
	}
	if (c.sigdir || c.sigfile) {
		status = cli_detached_open(&c);
		if (status != CLI_EXIT_OK)
			goto out;
		status = CLI_EXIT_FAILURE;
	}
	/* a manifest that cannot be written is found out before the image is */
	if (cli_seal_manifest_open(&c) != CLI_EXIT_OK)
		goto out;
	if (c.ima_so.keyfile && cli_seal_ima_signer(&c))
		goto out;
	if (c.ima_sigsrc && cli_ima_detached_open(&c))
		goto out;
	/* -n --ima-only --for-ima-sig without a key: nothing is signed, what to sign is listed */
	if (c.ima_only && !c.opts.ima_sign) {
		c.opts.ima_sign = cli_no_ima_sign;
		c.opts.ima_keep = c.w.force ? NULL : cli_seal_no_ima_keep;
		c.opts.ima_size_max = E2VERITY_IMA_MAX_SIZE;
	}
	/* the pre-flight reads a read-only handle: a refusal cannot write a byte */
	err = cli_write_image_open(&pre, &c.w, 1);
	if (err) {
		cli_image_report(&pre, err);
		goto out;
	}
	fs = pre.fs;
	err = e2verity_seal_check_fs(fs, &c.opts);
	if (err) {
		/* a page (4096 bytes) works with every kernel; smaller blocks since Linux 6.3 */
		if (err == E2VERITY_ET_BLOCK_SIZE_EXCEEDS_FS && fs->blocksize >= 4096)
			cli_error(err,
				  "while checking '%s' (--block-size=4096 works with every kernel)",
				  cli_name(c.w.image));
		else if (err == E2VERITY_ET_BLOCK_SIZE_EXCEEDS_FS)
			cli_error(err,
				  "while checking '%s' (--block-size=%u works with Linux 6.3 "
				  "and later)",
				  cli_name(c.w.image), fs->blocksize);
		else
			cli_error(err, "while checking '%s'", cli_name(c.w.image));
		goto out;
	}
	status = cli_fs_kernel(&c, fs);
	if (status != CLI_EXIT_OK)
		goto out;
	/*
	 * a hard-linked file is sealed once; a dry run lists every name of it,
	 * a seal prints the digest under each name the command line gave
	 */
	c.w.sel.keep_links = 1;
	status = cli_select_run(&sel, fs, c.w.image, "seals", &c.w.sel, c.w.verbose);
	if (status != CLI_EXIT_OK)
		goto out;
	if (c.ima_only)
		cli_ima_only_filter(&c, fs, &sel);
	if (!sel.n && !sel.errors) {
		/* -r on an empty directory, or everything excluded: nothing to do is no failure */
		if (!c.w.quiet)
			fprintf(stderr, "%s: no regular file selected in '%s'\n", cli_prog,
				cli_name(c.w.image));
		status = CLI_EXIT_OK;
		goto out;
	}
	plans = calloc(sel.n ? sel.n : 1, sizeof(*plans));
	if (!plans) {
		cli_error(ENOMEM, "while checking '%s'", cli_name(c.w.image));
		status = CLI_EXIT_FAILURE;
		goto out;
	}
	if (c.sigdir || c.sigfile) {
		status = cli_detached_load(&c, &sel);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	if (c.ima_sigsrc) {
		status = cli_ima_detached_load(&c, &sel);
		if (status != CLI_EXIT_OK)
			goto out;
	}
	/* one scan of every inode proves what each seal writes into its file's alone */
	err = e2verity_owners_scan(fs, &owners);
	if (err) {
		cli_error(err, "while reading the block maps of '%s'", cli_name(c.w.image));
		status = CLI_EXIT_FAILURE;
		goto out;
	}
	c.opts.owners = owners;
	/* the library names the blocks and inodes of a refusal in its log */
	cli_log_listen();
	status = cli_seal_preflight(&c, fs, &sel, plans, &work);
	if (status == CLI_EXIT_OK && c.detached)
		status = cli_detached_verify(&c, fs, &sel, plans);
	if (status == CLI_EXIT_OK && c.ima_detached)
		status = cli_ima_detached_verify(&c, fs, &sel, plans);
	if (status != CLI_EXIT_OK)
		goto out;
	if (c.w.dry_run) {
		if (c.manifest) {
			status = cli_seal_digests(&c, fs, &sel, plans);
			if (status == CLI_EXIT_OK)
				status = cli_seal_manifest_write(&c, 0);
		}
		if (status == CLI_EXIT_OK && cli_flush_stdout())
			status = CLI_EXIT_FAILURE;
		goto out;
	}
	/* nothing to write: the digests are read again from the read-only handle */
	if (!work)
		status = cli_seal_report_skips(&c, fs, &sel, plans);
	/* the map is the read-only handle's: the writes make their own */
	c.opts.owners = NULL;
	e2verity_owners_free(owners);
	owners = NULL;
	cli_image_close(&pre);
	if (work && status == CLI_EXIT_OK)
		status = cli_seal_write(&c, &sel, plans);
	/* a stopped run's summary counts them already */
	if (status == CLI_EXIT_OK)
		cli_seal_note_skips(&c);
	if (status == CLI_EXIT_OK)
		status = cli_seal_manifest_write(&c, work);
	if (status == CLI_EXIT_OK && cli_flush_stdout())
		status = CLI_EXIT_FAILURE;
out:
	c.opts.owners = NULL;
	e2verity_owners_free(owners);
	cli_image_close(&pre);
	if (sel.seen)
		cli_select_free(&sel);
	free(plans);
	cli_seal_run_free(&c);
	return status;
}
