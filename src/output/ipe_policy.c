// SPDX-License-Identifier: GPL-2.0-or-later
/* ipe_policy.c - an IPE policy that lets exactly the measured files execute (security/ipe/) */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "output/ipe_policy.h"
#include "output/names.h"

/* What ends or splits a token in IPE's parser (IPE_POLICY_DELIM, IPE_LINE_DELIM, START_COMMENT) */
static int cli_ipe_byte_ok(unsigned char c)
{
	return c > ' ' && c != 0x7f && c != '#';
}

int cli_ipe_name_ok(const char *name)
{
	if (!*name)
		return EINVAL;
	for (const char *p = name; *p; p++)
		if (!cli_ipe_byte_ok(*p))
			return EINVAL;
	return 0;
}

int cli_ipe_version_ok(const char *version)
{
	const char *p = version;

	/* parse_version(): exactly three kstrtou16() numbers, base 10 */
	for (int i = 0; i < 3; i++) {
		unsigned long v = 0;
		const char *start = p;

		while (*p >= '0' && *p <= '9' && p - start < 6)
			v = v * 10 + (unsigned long)(*p++ - '0');
		if (p == start || v > 65535 || (i < 2 && *p++ != '.'))
			return EINVAL;
	}
	return *p ? EINVAL : 0;
}

char *cli_ipe_default_name(const char *image)
{
	const char *base = strrchr(image, '/');
	char *name;

	base = base && base[1] ? base + 1 : image;
	name = strdup(*base ? base : "image");
	if (!name)
		return NULL;
	for (char *p = name; *p; p++)
		if (!cli_ipe_byte_ok(*p) || *p == '/')
			*p = '_';
	return name;
}

int cli_ipe_policy_write(FILE *f, const char *name, const char *version,
			 const struct cli_manifest *mf)
{
	fprintf(f, "policy_name=%s policy_version=%s\n", name, version);
	/* validate_policy() wants a default for every operation: one for all, one for EXECUTE */
	fputs("DEFAULT action=ALLOW\nDEFAULT op=EXECUTE action=DENY\n", f);
	for (size_t i = 0; i < mf->n; i++) {
		const struct cli_manifest_entry *e = &mf->v[i];
		char dg[CLI_DIGEST_STRING_MAX];

		if (e->err)
			continue;
		/* "ALG:HEX" with the kernel's hash_algo_name[], as ipe_digest_parse() reads it */
		cli_format_digest(e->m.desc.hash_algorithm, e->m.digest, dg);
		fputs("# ", f);
		cli_write_name(f, e->path);
		fprintf(f, "\nop=EXECUTE fsverity_digest=%s action=ALLOW\n", dg);
	}
	return ferror(f) ? EIO : 0;
}
