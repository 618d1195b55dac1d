/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_unseal.h - `e2verity unseal` */
#ifndef CLI_CMD_UNSEAL_H
#define CLI_CMD_UNSEAL_H

#include "cli/cli.h"

int cmd_unseal(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_UNSEAL_H */
