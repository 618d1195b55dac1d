// SPDX-License-Identifier: GPL-2.0-or-later
/* check_repair.c - check -p and -y: what may be mended is, each file in a commit of its own */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_repair.h"
#include "check/check_manifest.h"
#include "check/check_run.h"
#include "check/fsck.h"
#include "cli/cancel.h"
#include "cli/cli.h"
#include "image/image.h"
#include "output/names.h"

/* the group of a problem code: 02 location, 03 descriptor, 04 Merkle tree, 09 manifest */
#define CLI_GROUP(code) ((code) >> 8)

/* What a file's findings (before any repair) say about it */
struct cli_damage {
	int tree;     /* the Merkle tree or the root hash disagrees with the data */
	int metadata; /* where the metadata is, the descriptor, or the tree is wrong */
	int listed;   /* the manifest lists it with another digest, or it is not sealed */
};

static void cli_damage_of(const struct cli_check_run *c, const struct cli_checked *r,
			  struct cli_damage *d)
{
	memset(d, 0, sizeof(*d));
	for (size_t k = 0; k < r->count; k++) {
		const struct cli_check_finding *cf = &c->findings[c->order[r->first + k]];
		unsigned int code = cf->f.problem->code;

		if (cf->after || cf->problem->severity != E2VERITY_SEV_ERROR)
			continue;
		if (CLI_GROUP(code) == 0x04)
			d->tree = 1;
		if (CLI_GROUP(code) >= 0x02 && CLI_GROUP(code) <= 0x04)
			d->metadata = 1;
		switch (code) {
		case E2VERITY_PR_MANIFEST_NOT_SEALED:
		case E2VERITY_PR_MANIFEST_DIGEST:
		case E2VERITY_PR_MANIFEST_HASH_ALG:
		case E2VERITY_PR_MANIFEST_BLOCK_SIZE:
		case E2VERITY_PR_MANIFEST_SALT:
			d->listed = 1;
			break;
		}
	}
}

/* -p: the stored tree can be rewritten from the data (e2verity_repair_tree() decides) */
static int cli_wants_tree(const struct cli_checked *r, const struct cli_damage *d)
{
	return r->checked && r->file.have_descriptor && d->tree;
}

/*
 * -y: resealed when its metadata is damaged, or the manifest says otherwise,
 * and a digest can be trusted; a file with only a bad signature, or an
 * extent tree the kernel refuses, is not the metadata's damage.
 */
static int cli_wants_reseal(const struct cli_check_run *c, const struct cli_checked *r,
			    const struct cli_damage *d)
{
	if (c->mode != CLI_CHECK_YES || !r->file.ino)
		return 0;
	if (r->listed)
		return d->metadata || d->listed;
	return c->verifier && r->checked && d->metadata;
}

/* Whether a file's findings ask for a repair that the mode may make */
static int cli_check_wants_repair(const struct cli_check_run *c, const struct cli_checked *r)
{
	struct cli_damage d;

	if (c->mode == CLI_CHECK_READ || !r->file.ino || !r->errors)
		return 0;
	cli_damage_of(c, r, &d);
	return cli_wants_tree(r, &d) || cli_wants_reseal(c, r, &d);
}

/*
 * What stops the run, rather than leaving one file as it is: the image
 * cannot be written or read, memory, a signal.  A refusal (the data does
 * not give the digest, the blocks are not the file's own ...) is the file's.
 */
static int cli_fatal(errcode_t err)
{
	switch (err) {
	case E2VERITY_ET_CANCELLED:
	case E2VERITY_ET_NO_MEMORY:
	case E2VERITY_ET_TXN_ABORTED:
	case E2VERITY_ET_JOURNAL_FULL:
	case EXT2_ET_SHORT_READ:
	case EXT2_ET_SHORT_WRITE:
	case EXT2_ET_RO_FILSYS:
		return 1;
	}
	/* an errno value: EIO, ENOSPC, ENOMEM from the io channel */
	return err > 0 && err < 4096;
}

/* The options of one repair: threads, the transaction, and what is trusted for the file */
static void cli_repair_opts(struct cli_check_run *c, struct cli_image *img,
			    const struct cli_checked *r, struct e2verity_repair_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = c->opts.threads;
	o->txn = img->txn;
	o->cancel = &cli_cancel;
	o->verifier = c->verifier;
	if (r && r->listed) {
		o->hash_alg = r->listed->alg;
		o->digest = r->listed->digest;
		o->block_size = r->listed->block_size;
		o->have_salt = r->listed->have_salt;
		o->salt = r->listed->salt;
		o->salt_size = r->listed->salt_size;
	}
}

/* After a repair: commits it, then checks the file again, as it is on disk now */
static errcode_t cli_repaired(struct cli_check_run *c, struct cli_image *img, size_t i)
{
	struct e2verity_check_opts o = c->opts;
	struct e2verity_check_stats st = { 0 };
	errcode_t err;

	err = cli_image_commit(img);
	if (err)
		return err;
	c->files[i].repair = CLI_REPAIR_DONE;
	c->repaired++;
	o.progress = NULL;
	c->recheck = i;
	err = e2verity_check_inode(img->fs, c->files[i].file.ino, &o, &st);
	if (!err && cli_check_manifest_again(c, &c->files[i]))
		err = ENOMEM;
	c->recheck = SIZE_MAX;
	return err;
}

/* Notes a refusal (the file is left as it is), or returns what stops the run */
static errcode_t cli_left(struct cli_checked *r, errcode_t err)
{
	if (cli_fatal(err))
		return err;
	r->repair = CLI_REPAIR_LEFT;
	r->repair_err = err;
	return 0;
}

/*
 * Every tree first, with one map of the owners of the blocks (valid while
 * nothing is allocated), then the reseals, each proving its blocks anew.
 */
static errcode_t cli_repair_all(struct cli_check_run *c, struct cli_image *img, const char **what)
{
	struct e2verity_owners *owners = NULL;
	struct e2verity_repair_opts o;
	struct cli_damage d;
	errcode_t err = 0;
	size_t n = c->nr_files;

	for (size_t i = 0; i < n && !err && !cli_cancel; i++) {
		struct cli_checked *r = &c->files[i];

		if (!cli_check_wants_repair(c, r))
			continue;
		cli_damage_of(c, r, &d);
		if (!cli_wants_tree(r, &d))
			continue;
		*what = r->path ? r->path : c->image;
		if (!owners) {
			err = e2verity_owners_scan(img->fs, &owners);
			if (err)
				break;
		}
		cli_repair_opts(c, img, r, &o);
		o.owners = owners;
		err = e2verity_repair_tree(img->fs, r->file.ino, &o, &r->rres);
		if (!err && r->rres.blocks_rewritten)
			err = cli_repaired(c, img, i);
		else if (err)
			err = cli_left(r, err);
	}
	e2verity_owners_free(owners);
	for (size_t i = 0; i < n && !err && !cli_cancel; i++) {
		struct cli_checked *r = &c->files[i];

		if (r->repair == CLI_REPAIR_DONE || !cli_check_wants_repair(c, r))
			continue;
		cli_damage_of(c, r, &d);
		if (!cli_wants_reseal(c, r, &d))
			continue;
		*what = r->path ? r->path : c->image;
		cli_repair_opts(c, img, r, &o);
		err = e2verity_repair_reseal(img->fs, r->file.ino, &o, &r->rres);
		if (!err) {
			r->resealed = 1;
			err = cli_repaired(c, img, i);
		} else {
			err = cli_left(r, err);
		}
	}
	return err ? err : cli_cancel ? E2VERITY_ET_CANCELLED : 0;
}

/* Why a file with errors was not even tried: said, as e2fsck -p says what it leaves */
static void cli_not_tried(struct cli_check_run *c)
{
	struct cli_damage d;

	for (size_t i = 0; i < c->nr_files; i++) {
		struct cli_checked *r = &c->files[i];

		if (!r->errors || r->repair != CLI_REPAIR_NONE)
			continue;
		cli_damage_of(c, r, &d);
		r->repair = CLI_REPAIR_LEFT;
		if (!r->file.ino)
			r->repair_why = "it is not in the image";
		else if (c->mode == CLI_CHECK_PREEN)
			r->repair_why = "-p only rewrites a damaged Merkle tree whose data still "
					"gives the root hash (-y reseals to a trusted digest)";
		else if ((d.metadata || d.listed) && !r->listed)
			r->repair_why = "no trusted digest: no manifest lists it (--manifest), "
					"and no certificate verifies its signature (--cert, --ca)";
		else
			r->repair_why = "-y only reseals damaged verity metadata, to a trusted "
					"digest";
	}
}

int cli_check_repair(struct cli_check_run *c)
{
	unsigned int flags = CLI_IMAGE_WRITE | (c->quiet || c->json ? CLI_IMAGE_QUIET : 0);
	const char *what = c->image;
	struct cli_image img;
	int status = 0, any = 0;
	errcode_t err;

	for (size_t i = 0; i < c->nr_files && !any; i++)
		any = cli_check_wants_repair(c, &c->files[i]);
	/* nothing to mend: the image is not even opened for writing */
	if (!any) {
		cli_not_tried(c);
		return 0;
	}
	err = cli_image_open(&img, c->image, flags, c->undo_file);
	if (err) {
		cli_image_report(&img, err);
		snprintf(c->errbuf, sizeof(c->errbuf), "%s while %s '%s' for repairs",
			 error_message(err), img.doing, cli_name(img.what));
		cli_image_abandon(&img);
		cli_image_close(&img);
		return FSCK_ERROR;
	}
	err = cli_repair_all(c, &img, &what);
	if (err) {
		/* the image keeps its last commit: every repair reported was committed */
		cli_image_abandon(&img);
		if (err == E2VERITY_ET_CANCELLED) {
			fprintf(stderr, "%s: %s: repairs of '%s' stopped\n", cli_prog,
				strsignal(cli_cancel), cli_name(c->image));
			snprintf(c->errbuf, sizeof(c->errbuf), "cancelled by %s",
				 strsignal(cli_cancel));
			status |= FSCK_CANCELED;
		} else {
			cli_error(err, "while repairing '%s' in '%s'", cli_name(what),
				  cli_name(c->image));
			snprintf(c->errbuf, sizeof(c->errbuf), "%s while repairing '%s'",
				 error_message(err), cli_name(what));
			status |= FSCK_ERROR;
		}
	}
	cli_not_tried(c);
	err = cli_image_close(&img);
	if (err && !(status & FSCK_ERROR)) {
		cli_error(err, "while %s '%s'", img.doing, cli_name(img.what));
		snprintf(c->errbuf, sizeof(c->errbuf), "%s while %s '%s'", error_message(err),
			 img.doing, cli_name(img.what));
		status |= FSCK_ERROR;
	}
	return status;
}
