/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_sign.h - `e2verity sign` */
#ifndef CLI_CMD_SIGN_H
#define CLI_CMD_SIGN_H

#include "cli/cli.h"

int cmd_sign(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_SIGN_H */
