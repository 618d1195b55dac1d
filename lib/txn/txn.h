/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txn.h - internal: the superblock write that transactions order */
#ifndef E2VERITY_TXN_H
#define E2VERITY_TXN_H

#include "private.h"

/* Writes the primary superblock alone, now (or into the transaction) */
errcode_t e2v_write_super(ext2_filsys fs);

/*
 * Whether a transaction without a journal is open on @fs: its commit makes
 * each inode's change atomic only if no block the inode already points to
 * changes in place (see e2v_extent_tree_renew()).
 */
int e2v_txn_unjournaled(ext2_filsys fs);

/*
 * Within one value of this, no block of @fs marked in use in its bitmap
 * becomes free (a transaction holds what it frees until its commit); 0
 * outside a transaction, where nothing can be said.
 */
unsigned long e2v_txn_free_epoch(ext2_filsys fs);

#endif /* E2VERITY_TXN_H */
