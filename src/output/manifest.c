// SPDX-License-Identifier: GPL-2.0-or-later
/* manifest.c - digest lines in the format of `fsverity digest`, and manifests of sealed files */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/manifest.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "cmd/select.h"
#include "output/json.h"
#include "output/names.h"

/*
 * One place for the line format, so that a manifest written by one command is
 * read by `fsverity`-based tooling and by the other commands alike.
 */
/* The hex of what a signature of @form signs, or of the digest itself */
static int cli_signed_hex(unsigned int alg, const uint8_t *digest, int form, char *hex)
{
	uint8_t buf[E2VERITY_FORMATTED_DIGEST_MAX + E2VERITY_IMA_FILE_ID_MAX];
	size_t len;

	if (form == CLI_FORM_BUILTIN ? e2verity_formatted_digest(alg, digest, buf, &len)
	    : form == CLI_FORM_IMA   ? e2verity_ima_file_id(alg, digest, buf, &len)
				     : (len = e2verity_hash_alg_by_num(alg)->digest_size,
					memcpy(buf, digest, len), 0))
		return EINVAL;
	cli_bin2hex(buf, len, hex);
	return 0;
}

int cli_digest_line(FILE *f, unsigned int alg, const uint8_t *digest, const char *path, int form)
{
	const struct e2verity_hash_alg *a = e2verity_hash_alg_by_num(alg);
	char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];

	if (!a)
		return EINVAL;
	if (form != CLI_FORM_DIGEST) {
		if (cli_signed_hex(alg, digest, form, hex))
			return EINVAL;
		fprintf(f, "%s ", hex);
	} else {
		cli_bin2hex(digest, a->digest_size, hex);
		fprintf(f, "%s:%s ", a->name, hex);
	}
	cli_write_name(f, path);
	return fputc('\n', f) == EOF || ferror(f) ? EIO : 0;
}

void cli_manifest_free(struct cli_manifest *mf)
{
	for (size_t i = 0; i < mf->n; i++)
		free(mf->v[i].path);
	free(mf->v);
	memset(mf, 0, sizeof(*mf));
}

/*
 * The targets by the bytes of their paths, as `LC_ALL=C sort`: the order cannot
 * depend on a locale.  They are sorted before the entries are made from them:
 * an entry, with its measurement, is large to move.
 */
static int cli_target_cmp(const void *a, const void *b)
{
	const struct cli_target *x = a, *y = b;

	return strcmp(x->path, y->path);
}

errcode_t cli_manifest_collect(ext2_filsys fs, const char *image, ext2fs_inode_bitmap want,
			       struct cli_manifest *mf)
{
	struct cli_selection sel;
	errcode_t err;

	memset(mf, 0, sizeof(*mf));
	err = cli_select_init(&sel, fs, image);
	if (err)
		return err;
	sel.only = want;
	sel.all_names = 1;
	err = cli_select_all(&sel);
	if (!err && sel.errors)
		err = EXT2_ET_DIR_CORRUPTED; /* each unreadable directory was reported */
	if (err)
		goto out;
	qsort(sel.v, sel.n, sizeof(*sel.v), cli_target_cmp);
	mf->v = calloc(sel.n ? sel.n : 1, sizeof(*mf->v));
	if (!mf->v) {
		err = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < sel.n; i++) {
		mf->v[i].path = sel.v[i].path;
		mf->v[i].ino = sel.v[i].ino;
		sel.v[i].path = NULL;
	}
	mf->n = sel.n;
out:
	cli_select_free(&sel);
	return err;
}

errcode_t cli_manifest_add(struct cli_manifest *mf, const char *path, ext2_ino_t ino)
{
	struct cli_manifest_entry *v = realloc(mf->v, (mf->n + 1) * sizeof(*v));

	if (!v)
		return ENOMEM;
	mf->v = v;
	memset(&v[mf->n], 0, sizeof(*v));
	v[mf->n].path = strdup(path);
	if (!v[mf->n].path)
		return ENOMEM;
	v[mf->n].ino = ino;
	mf->n++;
	return 0;
}

static int cli_ino_cmp(const void *a, const void *b)
{
	const struct cli_manifest_entry *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* What security.ima holds; an attribute that cannot be read is as none, for a listing */
static void cli_manifest_ima(ext2_filsys fs, struct cli_manifest_entry *e)
{
	uint8_t *value;
	size_t len;
	errcode_t err;

	e->ima = E2VERITY_CHECK_IMA_NONE;
	if (e2verity_ima_get(fs, e->ino, &value, &len))
		return;
	e->ima_size = len;
	err = e2verity_ima_parse(value, len, &e->ima_sig);
	e->ima_type = e->ima_sig.type;
	e->ima_sig.sig = NULL;
	e->ima = !err				     ? E2VERITY_CHECK_IMA_VERITY
		 : err == E2VERITY_ET_IMA_NOT_VERITY ? E2VERITY_CHECK_IMA_OTHER
						     : E2VERITY_CHECK_IMA_MALFORMED;
	free(value);
}

errcode_t cli_manifest_names(ext2_filsys fs, const char *image, const struct cli_manifest *by_ino,
			     struct cli_manifest *out)
{
	struct cli_manifest_entry *sorted = NULL;
	ext2fs_inode_bitmap want = NULL;
	errcode_t err;

	memset(out, 0, sizeof(*out));
	err = ext2fs_allocate_inode_bitmap(fs, "manifest inodes", &want);
	if (err)
		return err;
	sorted = malloc((by_ino->n ? by_ino->n : 1) * sizeof(*sorted));
	if (!sorted) {
		err = ENOMEM;
		goto out;
	}
	memcpy(sorted, by_ino->v, by_ino->n * sizeof(*sorted));
	qsort(sorted, by_ino->n, sizeof(*sorted), cli_ino_cmp);
	for (size_t i = 0; i < by_ino->n; i++)
		if (!by_ino->v[i].err)
			ext2fs_mark_inode_bitmap2(want, by_ino->v[i].ino);
	err = cli_manifest_collect(fs, image, want, out);
	if (err)
		goto out;
	for (size_t i = 0; i < out->n; i++) {
		struct cli_manifest_entry key = { .ino = out->v[i].ino }, *e;

		e = bsearch(&key, sorted, by_ino->n, sizeof(*sorted), cli_ino_cmp);
		if (e) /* always: only these inodes were collected */
			out->v[i].m = e->m;
		/* as the image now is: written with the seal, or left */
		cli_manifest_ima(fs, &out->v[i]);
	}
out:
	free(sorted);
	ext2fs_free_inode_bitmap(want);
	return err;
}

/* qsort(): entries by inode number */
static int cli_entry_ino_cmp(const void *a, const void *b)
{
	ext2_ino_t x = (*(struct cli_manifest_entry *const *)a)->ino;
	ext2_ino_t y = (*(struct cli_manifest_entry *const *)b)->ino;

	return x < y ? -1 : x > y;
}

/* e2verity_measure_inodes()' callback: @ctx the entries, by the index of their inode */
static void cli_measured(void *ctx, size_t index, errcode_t err,
			 const struct e2verity_measurement *m)
{
	struct cli_manifest_entry *e = ((struct cli_manifest_entry **)ctx)[index];

	e->m = *m;
	e->err = err;
}

/* A file measure_inodes() refused as unsealed or not regular: a directory or a link says what it is */
static errcode_t cli_not_measured(ext2_filsys fs, ext2_ino_t ino, errcode_t err)
{
	struct ext2_inode inode;

	if ((err != E2VERITY_ET_NOT_SEALED && err != E2VERITY_ET_NOT_REGULAR) ||
	    ext2fs_read_inode(fs, ino, &inode) || LINUX_S_ISREG(inode.i_mode))
		return err;
	return LINUX_S_ISDIR(inode.i_mode) ? EISDIR : E2VERITY_ET_NOT_REGULAR;
}

unsigned int cli_manifest_measure(ext2_filsys fs, struct cli_manifest *mf, int with_ima)
{
	struct cli_manifest_entry **reg = malloc((mf->n ? mf->n : 1) * sizeof(*reg));
	ext2_ino_t *inos = malloc((mf->n ? mf->n : 1) * sizeof(*inos));
	unsigned int bad = 0;
	size_t nreg = 0;
	errcode_t err;

	for (size_t i = 0; i < mf->n; i++) {
		mf->v[i].err = reg && inos ? 0 : EXT2_ET_NO_MEMORY;
		if (!mf->v[i].err)
			reg[nreg++] = &mf->v[i];
	}
	/*
	 * In one call, in inode order: the descriptors are read together, as
	 * they lie in the image, not one read a file
	 */
	if (nreg) {
		qsort(reg, nreg, sizeof(*reg), cli_entry_ino_cmp);
		for (size_t i = 0; i < nreg; i++)
			inos[i] = reg[i]->ino;
		err = e2verity_measure_inodes(fs, inos, nreg, cli_measured, reg);
		for (size_t i = 0; i < nreg; i++) {
			if (err)
				reg[i]->err = err;
			else if (reg[i]->err)
				reg[i]->err = cli_not_measured(fs, reg[i]->ino, reg[i]->err);
			else if (with_ima)
				cli_manifest_ima(fs, reg[i]);
		}
	}
	/* the names of one inode are next to each other only by chance: each is measured */
	for (size_t i = 0; i < mf->n; i++) {
		struct cli_manifest_entry *e = &mf->v[i];

		if (e->err) {
			cli_error(e->err, "while measuring '%s'%s", cli_name(e->path),
				  e->err == E2VERITY_ET_NOT_REGULAR ? cli_file_kind(fs, e->ino)
								    : "");
			bad++;
		}
	}
	free(inos);
	free(reg);
	return bad;
}

/* "ima": null, or what security.ima holds: an fs-verity signature's key id and algorithm */
static void cli_manifest_json_ima(struct cli_json *j, const struct cli_manifest_entry *e)
{
	const char *alg;
	char id[9];

	if (e->ima == E2VERITY_CHECK_IMA_NONE) {
		cli_json_null(j, "ima");
		return;
	}
	cli_json_begin_object(j, "ima");
	cli_json_bool(j, "verity_signature", e->ima == E2VERITY_CHECK_IMA_VERITY);
	cli_json_uint(j, "type", e->ima_type);
	if (e->ima == E2VERITY_CHECK_IMA_VERITY) {
		snprintf(id, sizeof(id), "%08x", e->ima_sig.key_id);
		cli_json_string(j, "key_id", id);
		alg = e2verity_ima_hash_algo_name(e->ima_sig.hash_algo);
		cli_json_string(j, "hash_algorithm", alg ? alg : "?");
	}
	cli_json_uint(j, "size", e->ima_size);
	cli_json_end_object(j);
}

static void cli_manifest_json_entry(struct cli_json *j, const struct cli_manifest_entry *e)
{
	const struct e2verity_descriptor *d = &e->m.desc;
	char dg[CLI_DIGEST_STRING_MAX], salt[2 * E2VERITY_MAX_SALT_SIZE + 1];

	cli_json_begin_object(j, NULL);
	cli_json_name(j, "path", e->path);
	cli_json_uint(j, "inode", e->ino);
	cli_json_uint(j, "size", d->data_size);
	cli_json_string(j, "hash_algorithm", e2verity_hash_alg_by_num(d->hash_algorithm)->name);
	cli_json_uint(j, "block_size", 1u << d->log_blocksize);
	cli_bin2hex(d->salt, d->salt_size, salt);
	cli_json_string(j, "salt", salt);
	cli_format_digest(d->hash_algorithm, e->m.digest, dg);
	cli_json_string(j, "digest", dg);
	cli_json_bool(j, "signed", d->sig_size > 0);
	cli_json_uint(j, "signature_size", d->sig_size);
	cli_manifest_json_ima(j, e);
	cli_json_end_object(j);
}

void cli_manifest_write(FILE *f, enum cli_manifest_format format, int form, const char *image,
			const struct cli_manifest *mf)
{
	struct cli_json j;

	if (format != CLI_MANIFEST_JSON) {
		for (size_t i = 0; i < mf->n; i++) {
			const struct cli_manifest_entry *e = &mf->v[i];
			char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];

			if (e->err)
				continue;
			if (format != CLI_MANIFEST_COMPACT) {
				cli_digest_line(f, e->m.desc.hash_algorithm, e->m.digest, e->path,
						form);
				continue;
			}
			if (cli_signed_hex(e->m.desc.hash_algorithm, e->m.digest, form, hex))
				continue;
			fprintf(f, "%s\n", hex);
		}
		return;
	}
	cli_json_init(&j, f);
	cli_json_begin_object(&j, NULL);
	cli_json_string(&j, "image", image);
	cli_json_begin_array(&j, "files");
	for (size_t i = 0; i < mf->n; i++)
		if (!mf->v[i].err)
			cli_manifest_json_entry(&j, &mf->v[i]);
	cli_json_end_array(&j);
	cli_json_end_object(&j);
}
