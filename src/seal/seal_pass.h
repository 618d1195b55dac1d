/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_pass.h - what each pass of seal over the files needs: hashing threads, a sealed file's plan
 */
#ifndef CLI_SEAL_PASS_H
#define CLI_SEAL_PASS_H

#include "seal/seal_run.h"

/* one set of hashing threads (-j) for a pass over the files; reported */
int cli_seal_workers_start(struct cli_seal_run *c);
void cli_seal_workers_stop(struct cli_seal_run *c);

/*
 * A file the pre-flight found sealed already (to skip or to re-sign; the
 * detached signatures look @c->index up): file @i's plan again, for the stored
 * descriptor and digest its record leaves out; @fs the pre-flight's handle,
 * @c->opts.owners still its map
 */
errcode_t cli_seal_stored(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			  size_t i, struct e2verity_seal_plan *plan);
/* an e2verity_seal_opts.ima_keep that keeps every security.ima found (-n --ima-only) */
int cli_seal_no_ima_keep(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *value,
			 size_t len);

#endif /* CLI_SEAL_PASS_H */
