/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.h - digests of sealed files under every name: `fsverity digest` lines, bare hex, JSON */
#ifndef E2VERITY_MANIFEST_H
#define E2VERITY_MANIFEST_H

#include "cli/cmd.h"

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
/* Reads the stored descriptor of every entry; returns how many failed (each reported). */
unsigned int cli_manifest_measure(ext2_filsys fs, struct cli_manifest *mf);
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

/* ---- manifest_read.c: a manifest read back (check --manifest, diff) ------------------------ */

/* One path of a manifest, with what it records */
struct cli_listed {
	char *path;	    /* unescaped: the name's bytes */
	unsigned long line; /* where it is in the manifest */
	unsigned int alg;   /* E2VERITY_HASH_* */
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int block_size; /* JSON: the Merkle tree block size; 0 when not recorded */
	int have_salt;		 /* JSON: @salt is recorded (@salt_size 0: none) */
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	unsigned int salt_size;
	int seen; /* for the reader's user: met in the image */
};

/* What is wrong with a manifest: a malformed line, or a path listed twice */
struct cli_listing_problem {
	unsigned int code; /* E2VERITY_PR_MANIFEST_MALFORMED or _DUPLICATE */
	unsigned long line, first_line;
	char *why;
};

struct cli_listing {
	const char *name; /* as given; "-" is standard input */
	int json;
	struct cli_listed *v; /* sorted by the bytes of the path */
	size_t n;
	struct cli_listing_problem *problems;
	size_t nproblems;
};

/*
 * Reads a manifest: the lines of `seal --manifest` and `measure` ("ALG:HEX
 * PATH", or the hex of a formatted digest with --for-builtin-sig), or their
 * --json (check --json too).  Untrusted: every line that is not exactly an
 * entry, and every path listed twice, is a problem, said on stderr with its
 * line (the first ones) and kept in @l->problems; a manifest with problems is
 * not to be used.  Returns 0, or -1 when it cannot be read at all (said).
 */
int cli_listing_read(const char *name, struct cli_listing *l);
/* The entry of @path, or NULL */
const struct cli_listed *cli_listing_find(const struct cli_listing *l, const char *path);
void cli_listing_free(struct cli_listing *l);

#endif /* E2VERITY_MANIFEST_H */
