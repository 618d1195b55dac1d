/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_options.h - seal's command line, checked whole */
#ifndef CLI_SEAL_OPTIONS_H
#define CLI_SEAL_OPTIONS_H

#include "cli/cli.h"
#include "seal/seal_run.h"

/* CLI_EXIT_OK, or the usage status (said) */
int cli_seal_parse(const struct cli_command *cmd, int argc, char *argv[], struct cli_seal_run *c);
void cli_seal_run_free(struct cli_seal_run *c);

#endif /* CLI_SEAL_OPTIONS_H */
