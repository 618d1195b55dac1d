/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_check.h - `e2verity check` */
#ifndef CLI_CMD_CHECK_H
#define CLI_CMD_CHECK_H

#include "cli/cli.h"

int cmd_check(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_CHECK_H */
