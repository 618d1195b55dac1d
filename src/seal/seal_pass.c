// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_pass.c - what each pass of seal over the files needs: hashing threads, a sealed file's plan
 */
#include "config.h"

#include "seal/seal_pass.h"
#include "cli/cli.h"
#include "cmd/select.h"
#include "output/names.h"
#include "seal/seal_run.h"

int cli_seal_workers_start(struct cli_seal_run *c)
{
	errcode_t err;

	if (c->opts.params.threads.count <= 1)
		return 0;
	err = e2verity_workers_new(c->opts.params.threads.count, &c->opts.params.threads.workers);
	if (err) {
		cli_error(err, "while starting hashing threads for '%s'", cli_name(c->w.image));
		return -1;
	}
	return 0;
}

void cli_seal_workers_stop(struct cli_seal_run *c)
{
	e2verity_workers_free(c->opts.params.threads.workers);
	c->opts.params.threads.workers = NULL;
}

/*
 * -n --ima-only without a key: a file that has a security.ima already is left
 * out of the list, unless --force replaces it
 */
int cli_seal_no_ima_keep(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *value,
			 size_t len)
{
	(void)ctx;
	(void)alg;
	(void)digest;
	(void)value;
	(void)len;
	return 1;
}

errcode_t cli_seal_stored(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			  size_t i, struct e2verity_seal_plan *plan)
{
	struct e2verity_seal_opts o = c->opts;
	errcode_t err;

	/* the signature brought for the file, which the options find by its index */
	c->index = i;
	/* what becomes of security.ima is in the record: a value kept here refuses nothing */
	o.ima_keep = cli_seal_no_ima_keep;
	err = e2verity_seal_prepare(fs, sel->v[i].ino, &o, plan);
	/* the read-only handle saw the same file a moment ago */
	if (!err && plan->action != E2VERITY_SEAL_SKIP && plan->action != E2VERITY_SEAL_RESIGN)
		err = E2VERITY_ET_CORRUPT;
	return err;
}
