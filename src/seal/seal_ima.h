/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_ima.h - security.ima, signed here or made elsewhere */
#ifndef CLI_SEAL_IMA_H
#define CLI_SEAL_IMA_H

#include "cmd/select.h"
#include "seal/seal_run.h"

int cli_seal_ima_signer(struct cli_seal_run *c);
int cli_ima_detached_open(struct cli_seal_run *c);
int cli_ima_detached_load(struct cli_seal_run *c, const struct cli_selection *sel);
int cli_ima_detached_verify(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			    const struct cli_seal_rec *plans);
/* --ima-only with -a or -r: the files found that are not sealed are left out */
void cli_ima_only_filter(struct cli_seal_run *c, ext2_filsys fs, struct cli_selection *sel);
void cli_ima_run_free(struct cli_seal_run *c);

#endif /* CLI_SEAL_IMA_H */
