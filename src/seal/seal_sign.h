/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_sign.h - the signing key, or signatures made elsewhere */
#ifndef CLI_SEAL_SIGN_H
#define CLI_SEAL_SIGN_H

#include "cmd/select.h"
#include "seal/seal_run.h"

errcode_t cli_seal_signer(struct cli_seal_run *c, const char **doing);
int cli_detached_open(struct cli_seal_run *c);
int cli_detached_load(struct cli_seal_run *c, const struct cli_selection *sel);
int cli_detached_verify(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			const struct cli_seal_rec *plans);

#endif /* CLI_SEAL_SIGN_H */
