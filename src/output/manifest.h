/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.h - digests of sealed files under every name: `fsverity digest` lines, bare hex, JSON */
#ifndef E2VERITY_MANIFEST_H
#define E2VERITY_MANIFEST_H

#include <stdio.h>

#include "e2verity.h"

enum cli_manifest_format {
	CLI_MANIFEST_TEXT,    /* "sha256:<hex> <path>", as `fsverity digest` */
	CLI_MANIFEST_COMPACT, /* "<hex>", as `fsverity digest --compact` */
	CLI_MANIFEST_JSON,
};

struct cli_manifest_entry {
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

struct cli_manifest {
	struct cli_manifest_entry *v;
	size_t n;
};

/*
 * Every name of every inode marked in @want (a hard-linked file is listed
 * under each of its names), sorted by the bytes of the path.
 */
errcode_t cli_manifest_collect(ext2_filsys fs, const char *image, ext2fs_inode_bitmap want,
			       struct cli_manifest *mf);
/* Appends one entry (in the caller's order). */
errcode_t cli_manifest_add(struct cli_manifest *mf, const char *path, ext2_ino_t ino);
/*
 * Reads the stored descriptor of every entry, and with @with_ima what its
 * security.ima holds (the JSON form lists it); returns how many failed (each
 * reported).
 */
unsigned int cli_manifest_measure(ext2_filsys fs, struct cli_manifest *mf, int with_ima);
/*
 * Writes the entries measured without error: lines by cli_digest_line() in
 * its @form, bare hex (of what a signature of @form signs), or one JSON
 * document.
 */
void cli_manifest_write(FILE *f, enum cli_manifest_format format, int form, const char *image,
			const struct cli_manifest *mf);
/*
 * @by_ino holds one measured entry per inode; @out gets every name of each of
 * them in @fs, sorted, with the measurement copied.
 */
errcode_t cli_manifest_names(ext2_filsys fs, const char *image, const struct cli_manifest *by_ino,
			     struct cli_manifest *out);
void cli_manifest_free(struct cli_manifest *mf);

/* cli_digest_line()'s forms: the digest, or the bytes a signature signs, in hex */
#define CLI_FORM_DIGEST 0
#define CLI_FORM_BUILTIN 1 /* struct fsverity_formatted_digest: a built-in signature's */
#define CLI_FORM_IMA 2	   /* the ima_file_id an IMA fs-verity signature signs the hash of */

/*
 * Writes one line as `fsverity digest` prints it: "<alg>:<hex> <path>", or
 * with @form CLI_FORM_BUILTIN or CLI_FORM_IMA "<hex of what is signed>
 * <path>".  Returns 0 or an errno value.
 */
int cli_digest_line(FILE *f, unsigned int alg, const uint8_t *digest, const char *path, int form);

#endif /* E2VERITY_MANIFEST_H */
