/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.h - digests of sealed files under every name: `fsverity digest` lines, bare hex, JSON */
#ifndef E2VERITY_MANIFEST_H
#define E2VERITY_MANIFEST_H

#include "cmd.h"

enum e2v_manifest_format {
	E2V_MANIFEST_TEXT,    /* "sha256:<hex> <path>", as `fsverity digest` */
	E2V_MANIFEST_COMPACT, /* "<hex>", as `fsverity digest --compact` */
	E2V_MANIFEST_JSON,
};

struct e2v_manifest_entry {
	char *path;
	ext2_ino_t ino;
	struct e2verity_measurement m;
	errcode_t err; /* measuring failed (reported): left out of the output */
	/* security.ima: E2VERITY_CHECK_IMA_* (what it holds), and an fs-verity signature's header */
	int ima;
	uint8_t ima_type;
	struct e2verity_ima_sig ima_sig; /* its sig pointer is not kept */
	size_t ima_size;
};

struct e2v_manifest {
	struct e2v_manifest_entry *v;
	size_t n;
};

/*
 * Every name of every inode marked in @want (a hard-linked file is listed
 * under each of its names), sorted by the bytes of the path.
 */
errcode_t e2v_manifest_collect(ext2_filsys fs, const char *image, ext2fs_inode_bitmap want,
			       struct e2v_manifest *mf);
/* Appends one entry (in the caller's order). */
errcode_t e2v_manifest_add(struct e2v_manifest *mf, const char *path, ext2_ino_t ino);
/* Reads the stored descriptor of every entry; returns how many failed (each reported). */
unsigned int e2v_manifest_measure(ext2_filsys fs, struct e2v_manifest *mf);
/*
 * Writes the entries measured without error: lines by e2v_digest_line() in
 * its @form, bare hex (of what a signature of @form signs), or one JSON
 * document.
 */
void e2v_manifest_write(FILE *f, enum e2v_manifest_format format, int form, const char *image,
			const struct e2v_manifest *mf);
/*
 * @by_ino holds one measured entry per inode; @out gets every name of each of
 * them in @fs, sorted, with the measurement copied.
 */
errcode_t e2v_manifest_names(ext2_filsys fs, const char *image, const struct e2v_manifest *by_ino,
			     struct e2v_manifest *out);
void e2v_manifest_free(struct e2v_manifest *mf);

#endif /* E2VERITY_MANIFEST_H */
