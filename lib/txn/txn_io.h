/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txn_io.h - internal: the transaction channel, which holds metadata writes until the commit */
#ifndef E2VERITY_TXN_IO_H
#define E2VERITY_TXN_IO_H

#include "private.h"

/* a metadata block held for the transaction */
struct e2v_held {
	blk64_t blk;
	uint8_t *buf; /* one filesystem block */
};

errcode_t e2v_txn_io_wrap(ext2_filsys fs);
int e2v_txn_io_is(ext2_filsys fs);
io_channel e2v_txn_io_inner(io_channel c);
/* the held blocks (a malloc'ed copy of the table in *@v when @v); (size_t)-1 without memory */
size_t e2v_txn_io_held(io_channel c, struct e2v_held **v);
void e2v_txn_io_drop_all(io_channel c);
/*
 * Empties the block cache of @io, the channel below: unix_io (1.47.0) writes
 * a run of more than four blocks past its cache and drops only the dirty
 * copies, so a clean copy of a block of the run would be read back stale.
 */
errcode_t e2v_io_drop_cache(io_channel io);
void e2v_txn_io_set_dropping(io_channel c, int on);
/*
 * The image file behind the channel (@fd, owned by it from now on; the
 * filesystem at byte @base): each run of data written is handed to the
 * kernel's writeback at once, so that the commit's fsync() waits for less.
 */
void e2v_txn_io_set_image_fd(io_channel c, int fd, uint64_t base);

/*
 * The writes that follow are file data (@on = 1), which go
 * straight to disk, or metadata (0), which a transaction holds until it
 * commits.  Nothing happens outside a journaled transaction.
 */
void e2v_io_data(ext2_filsys fs, int on);

/*
 * Writes the file data the transaction channel of @fs gathered into one run
 * (nothing else is pending): before the image is read other than through
 * the channel, and before a commit's ordered flush.  0 outside a transaction.
 */
errcode_t e2v_txn_io_settle(ext2_filsys fs);

#endif /* E2VERITY_TXN_IO_H */
