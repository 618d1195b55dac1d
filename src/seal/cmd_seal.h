/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_seal.h - `e2verity seal` */
#ifndef CLI_CMD_SEAL_H
#define CLI_CMD_SEAL_H

#include "cli/cli.h"

int cmd_seal(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_SEAL_H */
