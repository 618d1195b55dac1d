/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jbd2.h - internal: an internal ext4 journal, as the kernel's jbd2 writes it */
#ifndef E2VERITY_JBD2_H
#define E2VERITY_JBD2_H

#include "txn_io.h"

/* a transaction's blocks, struct e2v_held, come from the transaction channel */
struct e2v_jbd2 {
	ext2_filsys fs;
	io_channel io; /* the channel below the transaction channel */
	ext2_ino_t ino;
	uint8_t *sb; /* the journal superblock's block */
	blk64_t sb_pblk;
	uint32_t first, last; /* the log: [first, last) */
	uint32_t sequence;
	uint32_t incompat;
	uint32_t seed; /* crc32c of the journal's UUID */
};

errcode_t e2v_jbd2_open(ext2_filsys fs, io_channel io, struct e2v_jbd2 *j);
void e2v_jbd2_close(struct e2v_jbd2 *j);
/* journal blocks a transaction of @nblocks metadata blocks takes */
uint64_t e2v_jbd2_txn_blocks(const struct e2v_jbd2 *j, uint64_t nblocks);
static inline uint64_t e2v_jbd2_capacity(const struct e2v_jbd2 *j)
{
	return j->last - j->first;
}
/* Writes the transaction's log blocks and its commit block, and makes the log start there. */
errcode_t e2v_jbd2_commit(struct e2v_jbd2 *j, const struct e2v_held *v, size_t n);
/* After the checkpoint: the log is empty again. */
errcode_t e2v_jbd2_empty(struct e2v_jbd2 *j);
/* Sets or clears needs_recovery in the superblock on disk (not the in-memory one). */
errcode_t e2v_jbd2_mark_recovery(struct e2v_jbd2 *j, int on);

#endif /* E2VERITY_JBD2_H */
