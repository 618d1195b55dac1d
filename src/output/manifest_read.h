/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest_read.h - a manifest read back (check --manifest, diff) */
#ifndef CLI_MANIFEST_READ_H
#define CLI_MANIFEST_READ_H

#include "e2verity.h"

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
void cli_listing_free(struct cli_listing *l);

#endif /* CLI_MANIFEST_READ_H */
