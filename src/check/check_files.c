// SPDX-License-Identifier: GPL-2.0-or-later
/* check_files.c - check's records: one per file, found again by inode, and their findings */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check/check_files.h"
#include "check/check_run.h"
#include "cli/util.h"

/* the inodes of the records, for cli_check_file_of(): open addressing */
static struct cli_ino_slot {
	ext2_ino_t ino;
	size_t rec;
} * cli_ino_tab;
static size_t cli_ino_cap, cli_ino_n;

static size_t cli_ino_hash(ext2_ino_t ino)
{
	return (size_t)(ino * 0x9E3779B97F4A7C15ULL >> 20) & (cli_ino_cap - 1);
}

static int cli_ino_put(ext2_ino_t ino, size_t rec)
{
	size_t i;

	if ((cli_ino_n + 1) * 2 > cli_ino_cap) {
		struct cli_ino_slot *old = cli_ino_tab;
		size_t old_cap = cli_ino_cap;

		cli_ino_cap = old_cap ? 2 * old_cap : 256;
		cli_ino_tab = calloc(cli_ino_cap, sizeof(*cli_ino_tab));
		if (!cli_ino_tab) {
			cli_ino_tab = old;
			cli_ino_cap = old_cap;
			return -1;
		}
		cli_ino_n = 0;
		for (size_t k = 0; k < old_cap; k++)
			if (old[k].ino)
				cli_ino_put(old[k].ino, old[k].rec);
		free(old);
	}
	for (i = cli_ino_hash(ino); cli_ino_tab[i].ino; i = (i + 1) & (cli_ino_cap - 1))
		if (cli_ino_tab[i].ino == ino)
			return 0;
	cli_ino_tab[i].ino = ino;
	cli_ino_tab[i].rec = rec;
	cli_ino_n++;
	return 0;
}

struct cli_checked *cli_check_file_of(struct cli_check_run *c, ext2_ino_t ino)
{
	if (!ino || !cli_ino_n)
		return NULL;
	for (size_t i = cli_ino_hash(ino); cli_ino_tab[i].ino; i = (i + 1) & (cli_ino_cap - 1))
		if (cli_ino_tab[i].ino == ino)
			return &c->files[cli_ino_tab[i].rec];
	return NULL;
}

struct cli_checked *cli_check_add_file(struct cli_check_run *c, ext2_ino_t ino, const char *path)
{
	struct cli_checked *r;

	if (cli_grow((void **)&c->files, &c->cap_files, c->nr_files, sizeof(*c->files)))
		return NULL;
	r = &c->files[c->nr_files];
	memset(r, 0, sizeof(*r));
	r->file.ino = ino;
	if (path && !(r->path = strdup(path)))
		return NULL;
	if (ino && cli_ino_put(ino, c->nr_files)) {
		free(r->path);
		return NULL;
	}
	c->nr_files++;
	return r;
}

int cli_check_add_finding(struct cli_check_run *c, struct cli_checked *r, unsigned int code,
			  const struct e2verity_finding *f, const char *path)
{
	struct cli_check_finding *cf;

	if (cli_grow((void **)&c->findings, &c->cap_findings, c->nr_findings, sizeof(*cf)))
		return -1;
	cf = &c->findings[c->nr_findings];
	memset(cf, 0, sizeof(*cf));
	cf->f = *f;
	cf->f.problem = e2verity_problem_lookup(code);
	cf->f.ino = r->file.ino;
	cf->problem = cf->f.problem;
	/* the policy's word on unlisted files: e2fsck.conf's [problems] in one option */
	if (code == E2VERITY_PR_MANIFEST_EXTRA && c->extra == CLI_EXTRA_WARN)
		cf->problem = &c->extra_warn;
	cf->rec = r - c->files;
	cf->after = c->recheck != SIZE_MAX;
	if (path && (!r->path || strcmp(path, r->path)) && !(cf->path = strdup(path)))
		return -1;
	c->nr_findings++;
	if (cf->after)
		r->errors_after += cf->problem->severity == E2VERITY_SEV_ERROR;
	else if (cf->problem->severity == E2VERITY_SEV_ERROR)
		r->errors++;
	else
		r->warnings++;
	return 0;
}

void cli_check_files_free(void)
{
	free(cli_ino_tab);
	cli_ino_tab = NULL;
	cli_ino_cap = cli_ino_n = 0;
}
