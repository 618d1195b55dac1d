/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_repair.h - check -p and -y: repairs, each committed on its own, then checked again */
#ifndef CLI_CHECK_REPAIR_H
#define CLI_CHECK_REPAIR_H

#include "check/check_run.h"

/*
 * -p and -y: opens the image for writing (the undo file, the transaction) and
 * repairs the files that want it, each committed on its own, then checks each
 * again.  Returns the fsck status bits it adds; c->errbuf says what stopped it.
 */
int cli_check_repair(struct cli_check_run *c);

#endif /* CLI_CHECK_REPAIR_H */
