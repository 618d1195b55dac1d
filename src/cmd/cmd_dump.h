/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_dump.h - `e2verity dump` */
#ifndef CLI_CMD_DUMP_H
#define CLI_CMD_DUMP_H

#include "cli/cli.h"

int cmd_dump(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_DUMP_H */
