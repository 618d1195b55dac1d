// SPDX-License-Identifier: GPL-2.0-or-later
/* manifest.c - digest lines in the format of `fsverity digest`, shared by the commands */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "cmd.h"

/*
 * One place for the line format, so that a manifest written by one command is
 * read by `fsverity`-based tooling and by the other commands alike.
 */
int e2v_digest_line(FILE *f, unsigned int alg, const uint8_t *digest, const char *path,
		    int for_builtin_sig)
{
	const struct e2verity_hash_alg *a = e2verity_hash_alg_by_num(alg);
	char hex[2 * E2VERITY_FORMATTED_DIGEST_MAX + 1];
	uint8_t formatted[E2VERITY_FORMATTED_DIGEST_MAX];
	size_t len;

	if (!a)
		return EINVAL;
	if (for_builtin_sig) {
		if (e2verity_formatted_digest(alg, digest, formatted, &len))
			return EINVAL;
		e2v_bin2hex(formatted, len, hex);
		return fprintf(f, "%s %s\n", hex, path) < 0 ? EIO : 0;
	}
	e2v_bin2hex(digest, a->digest_size, hex);
	return fprintf(f, "%s:%s %s\n", a->name, hex, path) < 0 ? EIO : 0;
}
