/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txn.h - internal: the superblock write that transactions order */
#ifndef E2VERITY_TXN_H
#define E2VERITY_TXN_H

#include "private.h"

/* Writes the primary superblock alone, now (or into the transaction) */
errcode_t e2v_write_super(ext2_filsys fs);

#endif /* E2VERITY_TXN_H */
