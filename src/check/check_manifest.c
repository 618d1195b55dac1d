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

/* One regular file the policy covers */
static errcode_t cli_require_one(struct cli_check_run *c, ext2_filsys fs,
				 const struct cli_target *t)
{
	struct ext2_inode inode;
	struct cli_checked *r;
	errcode_t err;

	err = ext2fs_read_inode(fs, t->ino, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISREG(inode.i_mode) || (inode.i_flags & EXT4_VERITY_FL))
		return 0;
	r = cli_record(c, t->ino, t->path);
	if (!r)
		return ENOMEM;
	c->not_sealed++;
	/* the manifest said it first (MANIFEST_NOT_SEALED), and more */
	if (r->listed)
		return 0;
	r->file.data_size = EXT2_I_SIZE(&inode);
	return cli_check_add_finding(c, r, E2VERITY_PR_NOT_SEALED, &(struct e2verity_finding){ 0 },
				     t->path)
		       ? ENOMEM
		       : 0;
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
