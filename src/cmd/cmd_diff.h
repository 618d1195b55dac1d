/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_diff.h - `e2verity diff` */
#ifndef CLI_CMD_DIFF_H
#define CLI_CMD_DIFF_H

#include "cli/cli.h"

int cmd_diff(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_DIFF_H */
