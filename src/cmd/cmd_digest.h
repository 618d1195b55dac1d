/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_digest.h - `e2verity digest` */
#ifndef CLI_CMD_DIGEST_H
#define CLI_CMD_DIGEST_H

#include "cli/cli.h"

int cmd_digest(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_DIGEST_H */
