// SPDX-License-Identifier: GPL-2.0-or-later
/* check_manifest.c - check --manifest and --require-sealed: the image against what the build meant
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_manifest.h"
#include "check/check_files.h"
#include "check/check_run.h"
#include "cmd/select.h"
#include "image/image.h"
#include "output/manifest.h"
#include "output/manifest_read.h"
#include "output/names.h"

/* The record of inode @ino, made (named @path) if the check did not meet it */
static struct cli_checked *cli_record(struct cli_check_run *c, ext2_ino_t ino, const char *path)
{
	struct cli_checked *r = cli_check_file_of(c, ino);

	if (!r)
		return cli_check_add_file(c, ino, path);
	/* a file is named in the report by a name the manifest lists, when it has one */
	if (!r->path && path && !(r->path = strdup(path)))
		return NULL;
	return r;
}

static int cli_add(struct cli_check_run *c, struct cli_checked *r, unsigned int code,
		   const struct e2verity_finding *f, const char *path)
{
	static const struct e2verity_finding none;

	if (cli_check_add_finding(c, r, code, f ? f : &none, path))
		return -1;
	c->manifest_findings++;
	return 0;
}

/*
 * A sealed file against its entry: the digest, and the parameters the
 * manifest records.  A file whose descriptor the check could not read has
 * its own findings already: there is no digest to compare.
 */
static int cli_compare(struct cli_check_run *c, struct cli_checked *r, const struct cli_listed *e,
		       const char *path)
{
	const struct e2verity_check_file *f = &r->file;
	struct e2verity_finding fi = { 0 };

	if (!f->have_descriptor)
		return 0;
	if (f->desc.hash_algorithm != e->alg) {
		fi.value = f->desc.hash_algorithm;
		fi.expected = e->alg;
		return cli_add(c, r, E2VERITY_PR_MANIFEST_HASH_ALG, &fi, path);
	}
	if (memcmp(f->digest, e->digest, f->digest_size) != 0) {
		fi.hash_size = f->digest_size;
		memcpy(fi.stored, f->digest, f->digest_size);
		memcpy(fi.expected_hash, e->digest, f->digest_size);
		if (cli_add(c, r, E2VERITY_PR_MANIFEST_DIGEST, &fi, path))
			return -1;
	}
	if (e->block_size && e->block_size != 1u << f->desc.log_blocksize) {
		fi.value = 1u << f->desc.log_blocksize;
		fi.expected = e->block_size;
		if (cli_add(c, r, E2VERITY_PR_MANIFEST_BLOCK_SIZE, &fi, path))
			return -1;
	}
	if (e->have_salt && (e->salt_size != f->desc.salt_size ||
			     memcmp(e->salt, f->desc.salt, e->salt_size) != 0)) {
		fi.value = f->desc.salt_size;
		fi.expected = e->salt_size;
		if (cli_add(c, r, E2VERITY_PR_MANIFEST_SALT, &fi, path))
			return -1;
	}
	return 0;
}

/* A listed path that is not among the names of the sealed files: missing, or not sealed */
static errcode_t cli_listed_elsewhere(struct cli_check_run *c, ext2_filsys fs,
				      const struct cli_listed *e)
{
	struct ext2_inode inode;
	struct cli_checked *r;
	ext2_ino_t ino;

	if (cli_lookup_path(fs, e->path, &ino) || ext2fs_read_inode(fs, ino, &inode)) {
		r = cli_check_add_file(c, 0, e->path);
		if (!r)
			return ENOMEM;
		r->listed = e;
		return cli_add(c, r, E2VERITY_PR_MANIFEST_MISSING, NULL, e->path) ? ENOMEM : 0;
	}
	r = cli_record(c, ino, e->path);
	if (!r)
		return ENOMEM;
	if (!r->listed)
		r->listed = e;
	/* a sealed file reached by another way (a link in a directory on the path) */
	if (r->checked && LINUX_S_ISREG(inode.i_mode))
		return cli_compare(c, r, e, e->path) ? ENOMEM : 0;
	if (!r->checked)
		r->file.data_size = EXT2_I_SIZE(&inode);
	return cli_add(c, r, E2VERITY_PR_MANIFEST_NOT_SEALED, NULL, e->path) ? ENOMEM : 0;
}

errcode_t cli_check_manifest(struct cli_check_run *c, ext2_filsys fs)
{
	struct cli_manifest names = { 0 };
	ext2fs_inode_bitmap sealed = NULL;
	errcode_t err;
	size_t i, k, nchecked = c->nr_files;

	/* every name of every sealed file: each must be listed */
	err = ext2fs_allocate_inode_bitmap(fs, "sealed inodes", &sealed);
	if (err)
		return err;
	for (i = 0; i < nchecked; i++)
		if (c->files[i].checked)
			ext2fs_mark_inode_bitmap2(sealed, c->files[i].file.ino);
	err = cli_manifest_collect(fs, c->image, sealed, &names);
	if (err)
		goto out;
	/* both sorted by the bytes of the path: one merge */
	for (i = 0, k = 0; i < c->listing.n || k < names.n;) {
		int cmp = i == c->listing.n ? 1
			  : k == names.n    ? -1
					    : strcmp(c->listing.v[i].path, names.v[k].path);
		struct cli_checked *r;

		if (cmp < 0) {
			err = cli_listed_elsewhere(c, fs, &c->listing.v[i++]);
		} else if (cmp > 0) {
			if (c->extra != CLI_EXTRA_IGNORE) {
				r = cli_record(c, names.v[k].ino, names.v[k].path);
				err = !r || cli_add(c, r, E2VERITY_PR_MANIFEST_EXTRA, NULL,
						    names.v[k].path)
					      ? ENOMEM
					      : 0;
			}
			k++;
		} else {
			r = cli_record(c, names.v[k].ino, names.v[k].path);
			if (r && !r->listed)
				r->listed = &c->listing.v[i];
			err = !r || cli_compare(c, r, &c->listing.v[i], names.v[k].path) ? ENOMEM
											 : 0;
			i++;
			k++;
		}
		if (err)
			break;
	}
out:
	cli_manifest_free(&names);
	ext2fs_free_inode_bitmap(sealed);
	return err;
}

int cli_check_manifest_again(struct cli_check_run *c, struct cli_checked *r)
{
	if (!r->listed)
		return 0;
	if (!(r->file.ino && r->file.have_descriptor))
		return cli_add(c, r, E2VERITY_PR_MANIFEST_NOT_SEALED, NULL, r->listed->path);
	return cli_compare(c, r, r->listed, r->listed->path);
}

/* A regular file that a policy wants sealed and is not: said once, whichever policies want it */
static errcode_t cli_not_sealed(struct cli_check_run *c, const struct cli_target *t,
				const struct ext2_inode *inode, int in_store)
{
	struct cli_checked *r = cli_record(c, t->ino, t->path);

	if (!r)
		return ENOMEM;
	/* a file of the store is one of its findings, whichever policy said it first */
	if (in_store && !r->in_store_counted) {
		r->in_store_counted = 1;
		c->name_findings++;
	}
	if (r->said_not_sealed)
		return 0;
	r->said_not_sealed = 1;
	c->not_sealed++;
	/* the manifest said it first (MANIFEST_NOT_SEALED), and more */
	if (r->listed)
		return 0;
	r->file.data_size = EXT2_I_SIZE(inode);
	return cli_check_add_finding(c, r, E2VERITY_PR_NOT_SEALED, &(struct e2verity_finding){ 0 },
				     t->path)
		       ? ENOMEM
		       : 0;
}

/* One regular file the policy covers */
static errcode_t cli_require_one(struct cli_check_run *c, ext2_filsys fs,
				 const struct cli_target *t)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(fs, t->ino, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISREG(inode.i_mode) || (inode.i_flags & EXT4_VERITY_FL))
		return 0;
	return cli_not_sealed(c, t, &inode, 0);
}

errcode_t cli_check_required(struct cli_check_run *c, ext2_filsys fs)
{
	struct cli_selection sel;
	errcode_t err;

	err = cli_select_init(&sel, fs, c->image);
	if (err)
		return err;
	sel.recursive = 1;
	sel.verb = "requires sealed";
	sel.excludes = c->excludes;
	sel.nexcludes = c->nexcludes;
	if (!c->nrequired)
		err = cli_select_all(&sel);
	for (size_t i = 0; i < c->nrequired && !err; i++)
		err = cli_select_path(&sel, c->required[i]);
	/* a path that is not there was said, and counts as a path not checked */
	c->missing += sel.errors;
	for (size_t i = 0; i < sel.n && !err; i++)
		if (!cli_select_excluded(&sel, sel.v[i].path))
			err = cli_require_one(c, fs, &sel.v[i]);
	cli_select_free(&sel);
	return err;
}

/*
 * The digest a name in a store stands for: @rel is "XX/REST" (composefs'
 * objects/ layout), 2 * @size lowercase hex digits in all, the first two
 * the directory.  -1 for any other name: a store finds objects by exactly
 * that name, so another spelling of the same digest is no name for it.
 */
static int cli_digest_of_name(const char *rel, size_t size, uint8_t *out)
{
	size_t len = strlen(rel), k = 0;

	if (len != 2 * size + 1 || rel[2] != '/')
		return -1;
	for (size_t i = 0; i < len; i++) {
		int d = cli_hex_digit(rel[i]);

		if (i == 2)
			continue;
		if (d < 0 || (rel[i] >= 'A' && rel[i] <= 'F'))
			return -1;
		if (k % 2 == 0)
			out[k / 2] = (uint8_t)(d << 4);
		else
			out[k / 2] |= (uint8_t)d;
		k++;
	}
	return 0;
}

/* One regular file of the store: sealed, and named by the digest it has */
static errcode_t cli_digest_name_one(struct cli_check_run *c, ext2_filsys fs,
				     const struct cli_target *t, size_t dirlen)
{
	struct e2verity_finding fi = { 0 };
	uint8_t want[E2VERITY_MAX_DIGEST_SIZE];
	struct ext2_inode inode;
	struct cli_checked *r;
	errcode_t err;
	size_t size;

	err = ext2fs_read_inode(fs, t->ino, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISREG(inode.i_mode))
		return 0;
	c->named_files++;
	if (!(inode.i_flags & EXT4_VERITY_FL))
		return cli_not_sealed(c, t, &inode, 1);
	/* a file whose descriptor could not be read has its findings: it has no digest */
	r = cli_check_file_of(c, t->ino);
	if (!r || !r->checked || !r->file.have_descriptor)
		return 0;
	size = r->file.digest_size;
	if (cli_digest_of_name(t->path + dirlen + 1, size, want)) {
		c->name_findings++;
		fi.value = 2 * size;
		return cli_check_add_finding(c, r, E2VERITY_PR_DIGEST_NAME_FORM, &fi, t->path)
			       ? ENOMEM
			       : 0;
	}
	if (!memcmp(want, r->file.digest, size))
		return 0;
	c->name_findings++;
	fi.hash_size = size;
	memcpy(fi.stored, r->file.digest, size);
	memcpy(fi.expected_hash, want, size);
	return cli_check_add_finding(c, r, E2VERITY_PR_DIGEST_NAME_MISMATCH, &fi, t->path) ? ENOMEM
											   : 0;
}

errcode_t cli_check_digest_names(struct cli_check_run *c, ext2_filsys fs)
{
	/* "/" is the store: names are then "/XX/REST" */
	size_t dirlen = strcmp(c->digest_names, "/") ? strlen(c->digest_names) : 0;
	struct cli_selection sel;
	errcode_t err;

	err = cli_select_init(&sel, fs, c->image);
	if (err)
		return err;
	sel.recursive = 1;
	sel.verb = "checks the names of";
	sel.all_names = 1;
	err = cli_select_path(&sel, c->digest_names);
	/* a store that is not there was said, and counts as a path not checked */
	c->missing += sel.errors;
	for (size_t i = 0; i < sel.n && !err; i++)
		if (strlen(sel.v[i].path) > dirlen)
			err = cli_digest_name_one(c, fs, &sel.v[i], dirlen);
	cli_select_free(&sel);
	return err;
}
