// SPDX-License-Identifier: GPL-2.0-or-later
/* manifest.c - digest lines in the format of `fsverity digest`, and manifests of sealed files */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "manifest.h"
#include "select.h"

/*
 * One place for the line format, so that a manifest written by one command is
 * read by `fsverity`-based tooling and by the other commands alike.
 */
/* The hex of what a signature of @form signs, or of the digest itself */
static int e2v_signed_hex(unsigned int alg, const uint8_t *digest, int form, char *hex)
{
	uint8_t buf[E2VERITY_FORMATTED_DIGEST_MAX + E2VERITY_IMA_FILE_ID_MAX];
	size_t len;

	if (form == E2V_FORM_BUILTIN ? e2verity_formatted_digest(alg, digest, buf, &len)
	    : form == E2V_FORM_IMA   ? e2verity_ima_file_id(alg, digest, buf, &len)
				     : (len = e2verity_hash_alg_by_num(alg)->digest_size,
					memcpy(buf, digest, len), 0))
		return EINVAL;
	e2v_bin2hex(buf, len, hex);
	return 0;
}

int e2v_digest_line(FILE *f, unsigned int alg, const uint8_t *digest, const char *path, int form)
{
	const struct e2verity_hash_alg *a = e2verity_hash_alg_by_num(alg);
	char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];

	if (!a)
		return EINVAL;
	if (form != E2V_FORM_DIGEST) {
		if (e2v_signed_hex(alg, digest, form, hex))
			return EINVAL;
		fprintf(f, "%s ", hex);
	} else {
		e2v_bin2hex(digest, a->digest_size, hex);
		fprintf(f, "%s:%s ", a->name, hex);
	}
	e2v_write_name(f, path);
	return fputc('\n', f) == EOF || ferror(f) ? EIO : 0;
}

void e2v_manifest_free(struct e2v_manifest *mf)
{
	for (size_t i = 0; i < mf->n; i++)
		free(mf->v[i].path);
	free(mf->v);
	memset(mf, 0, sizeof(*mf));
}

static int e2v_entry_cmp(const void *a, const void *b)
{
	const struct e2v_manifest_entry *x = a, *y = b;

	/* bytes, as `LC_ALL=C sort`: the order cannot depend on a locale */
	return strcmp(x->path, y->path);
}

errcode_t e2v_manifest_collect(ext2_filsys fs, const char *image, ext2fs_inode_bitmap want,
			       struct e2v_manifest *mf)
{
	struct e2v_selection sel;
	errcode_t err;

	memset(mf, 0, sizeof(*mf));
	err = e2v_select_init(&sel, fs, image);
	if (err)
		return err;
	sel.only = want;
	sel.all_names = 1;
	err = e2v_select_all(&sel);
	if (!err && sel.errors)
		err = EXT2_ET_DIR_CORRUPTED; /* each unreadable directory was reported */
	if (err)
		goto out;
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
	qsort(mf->v, mf->n, sizeof(*mf->v), e2v_entry_cmp);
out:
	e2v_select_free(&sel);
	return err;
}

errcode_t e2v_manifest_add(struct e2v_manifest *mf, const char *path, ext2_ino_t ino)
{
	struct e2v_manifest_entry *v = realloc(mf->v, (mf->n + 1) * sizeof(*v));

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

static int e2v_ino_cmp(const void *a, const void *b)
{
	const struct e2v_manifest_entry *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* What security.ima holds; an attribute that cannot be read is as none, for a listing */
static void e2v_manifest_ima(ext2_filsys fs, struct e2v_manifest_entry *e)
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
	e->ima = !err				      ? E2VERITY_CHECK_IMA_VERITY
		 : err == E2VERITY_ET_IMA_NOT_VERITY ? E2VERITY_CHECK_IMA_OTHER
						      : E2VERITY_CHECK_IMA_MALFORMED;
	free(value);
}

errcode_t e2v_manifest_names(ext2_filsys fs, const char *image, const struct e2v_manifest *by_ino,
			     struct e2v_manifest *out)
{
	struct e2v_manifest_entry *sorted = NULL;
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
	qsort(sorted, by_ino->n, sizeof(*sorted), e2v_ino_cmp);
	for (size_t i = 0; i < by_ino->n; i++)
		if (!by_ino->v[i].err)
			ext2fs_mark_inode_bitmap2(want, by_ino->v[i].ino);
	err = e2v_manifest_collect(fs, image, want, out);
	if (err)
		goto out;
	for (size_t i = 0; i < out->n; i++) {
		struct e2v_manifest_entry key = { .ino = out->v[i].ino }, *e;

		e = bsearch(&key, sorted, by_ino->n, sizeof(*sorted), e2v_ino_cmp);
		if (e) /* always: only these inodes were collected */
			out->v[i].m = e->m;
		/* as the image now is: written with the seal, or left */
		e2v_manifest_ima(fs, &out->v[i]);
	}
out:
	free(sorted);
	ext2fs_free_inode_bitmap(want);
	return err;
}

unsigned int e2v_manifest_measure(ext2_filsys fs, struct e2v_manifest *mf)
{
	unsigned int bad = 0;

	for (size_t i = 0; i < mf->n; i++) {
		struct e2v_manifest_entry *e = &mf->v[i];
		struct ext2_inode inode;

		/* the names of one inode are next to each other only by chance: measure each */
		e->err = ext2fs_read_inode(fs, e->ino, &inode);
		/* a directory or a link is not "not sealed": say what it is */
		if (!e->err && !LINUX_S_ISREG(inode.i_mode))
			e->err = LINUX_S_ISDIR(inode.i_mode) ? EISDIR : E2VERITY_ET_NOT_REGULAR;
		if (!e->err)
			e->err = e2verity_measure_inode(fs, e->ino, &e->m);
		if (!e->err)
			e2v_manifest_ima(fs, e);
		if (e->err) {
			e2v_error(e->err, "while measuring '%s'%s", e2v_name(e->path),
				  e->err == E2VERITY_ET_NOT_REGULAR ? e2v_file_kind(fs, e->ino)
								    : "");
			bad++;
		}
	}
	return bad;
}

/* "ima": null, or what security.ima holds: an fs-verity signature's key id and algorithm */
static void e2v_manifest_json_ima(struct e2v_json *j, const struct e2v_manifest_entry *e)
{
	const char *alg;
	char id[9];

	if (e->ima == E2VERITY_CHECK_IMA_NONE) {
		e2v_json_null(j, "ima");
		return;
	}
	e2v_json_begin_object(j, "ima");
	e2v_json_bool(j, "verity_signature", e->ima == E2VERITY_CHECK_IMA_VERITY);
	e2v_json_uint(j, "type", e->ima_type);
	if (e->ima == E2VERITY_CHECK_IMA_VERITY) {
		snprintf(id, sizeof(id), "%08x", e->ima_sig.key_id);
		e2v_json_string(j, "key_id", id);
		alg = e2verity_ima_hash_algo_name(e->ima_sig.hash_algo);
		e2v_json_string(j, "hash_algorithm", alg ? alg : "?");
	}
	e2v_json_uint(j, "size", e->ima_size);
	e2v_json_end_object(j);
}

static void e2v_manifest_json_entry(struct e2v_json *j, const struct e2v_manifest_entry *e)
{
	const struct e2verity_descriptor *d = &e->m.desc;
	char dg[E2V_DIGEST_STRING_MAX], salt[2 * E2VERITY_MAX_SALT_SIZE + 1];

	e2v_json_begin_object(j, NULL);
	e2v_json_name(j, "path", e->path);
	e2v_json_uint(j, "inode", e->ino);
	e2v_json_uint(j, "size", d->data_size);
	e2v_json_string(j, "hash_algorithm", e2verity_hash_alg_by_num(d->hash_algorithm)->name);
	e2v_json_uint(j, "block_size", 1u << d->log_blocksize);
	e2v_bin2hex(d->salt, d->salt_size, salt);
	e2v_json_string(j, "salt", salt);
	e2v_format_digest(d->hash_algorithm, e->m.digest, dg);
	e2v_json_string(j, "digest", dg);
	e2v_json_bool(j, "signed", d->sig_size > 0);
	e2v_json_uint(j, "signature_size", d->sig_size);
	e2v_manifest_json_ima(j, e);
	e2v_json_end_object(j);
}

void e2v_manifest_write(FILE *f, enum e2v_manifest_format format, int form, const char *image,
			const struct e2v_manifest *mf)
{
	struct e2v_json j;

	if (format != E2V_MANIFEST_JSON) {
		for (size_t i = 0; i < mf->n; i++) {
			const struct e2v_manifest_entry *e = &mf->v[i];
			char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];

			if (e->err)
				continue;
			if (format != E2V_MANIFEST_COMPACT) {
				e2v_digest_line(f, e->m.desc.hash_algorithm, e->m.digest, e->path,
						form);
				continue;
			}
			if (e2v_signed_hex(e->m.desc.hash_algorithm, e->m.digest, form, hex))
				continue;
			fprintf(f, "%s\n", hex);
		}
		return;
	}
	e2v_json_init(&j, f);
	e2v_json_begin_object(&j, NULL);
	e2v_json_string(&j, "image", image);
	e2v_json_begin_array(&j, "files");
	for (size_t i = 0; i < mf->n; i++)
		if (!mf->v[i].err)
			e2v_manifest_json_entry(&j, &mf->v[i]);
	e2v_json_end_array(&j);
	e2v_json_end_object(&j);
}
