/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_measure.h - `e2verity measure` */
#ifndef CLI_CMD_MEASURE_H
#define CLI_CMD_MEASURE_H

#include "cli/cli.h"

int cmd_measure(const struct cli_command *cmd, int argc, char *argv[]);

#endif /* CLI_CMD_MEASURE_H */
