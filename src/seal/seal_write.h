/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_write.h - the writing phase, in journal transactions; the pre-flight has passed */
#ifndef CLI_SEAL_WRITE_H
#define CLI_SEAL_WRITE_H

#include "cmd/select.h"
#include "seal/seal_run.h"

int cli_seal_write(struct cli_seal_run *c, const struct cli_selection *sel,
		   const struct cli_seal_rec *plans);

#endif /* CLI_SEAL_WRITE_H */
