/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_blocks.h - internal: the block-level steps of sealing an inode */
#ifndef E2VERITY_SEAL_BLOCKS_H
#define E2VERITY_SEAL_BLOCKS_H

#include "ext4/ext4_file.h"

/*
 * Moves an inline-data file's bytes into freshly allocated blocks and turns
 * the inode into an extent-mapped one, with one inode write, then drops the
 * system.data attribute.  @f is (re)opened on the converted inode.
 * *@allocated counts the data blocks.
 */
errcode_t e2v_move_inline_data(ext2_filsys fs, ext2_ino_t ino, struct e2v_ext4_file *f,
			       blk64_t *allocated);

/* Releases every block at or after logical block @first (and rereads @f). */
errcode_t e2v_punch_from(struct e2v_ext4_file *f, blk64_t first);

/*
 * Zeroes the bytes after i_size in the last data block on disk, when it is
 * allocated and they are not zero already (the kernel hashes the raw block).
 */
errcode_t e2v_zero_tail(struct e2v_ext4_file *f, int *zeroed);

/*
 * Allocates logical blocks [@first, @first + @count) initialized, next to the
 * file's last block, writes the inode (without the verity flag) and rereads
 * @f.  With @zero the blocks are zeroed, and an adjacent initialized extent
 * can grow into them instead of a new extent being added.
 */
errcode_t e2v_alloc_range(struct e2v_ext4_file *f, blk64_t first, blk64_t count, int zero);

/* An fs block being assembled from Merkle tree blocks smaller than it. */
struct e2v_tree_part {
	blk64_t lblk;	     /* logical block in the file */
	unsigned int filled; /* Merkle blocks copied in so far */
	int used;
	uint8_t *buf; /* one fs block, zero where nothing was copied */
};

/*
 * Collects tree blocks into runs of physically contiguous fs blocks.  Every
 * fs block is written once, whole, from memory: nothing of the tree region is
 * read back, so no stale copy in the io channel's cache can leak into it
 * (e2fsprogs 1.47.0's unix io manager keeps clean cached blocks across a
 * direct write of more than 4 blocks).
 */
struct e2v_tree_writer {
	struct e2v_ext4_file *f;
	uint64_t base;	    /* file offset of the tree: merkle_pos */
	uint64_t tree_size; /* bytes: how many Merkle blocks the last fs block gets */
	uint8_t *buf;	    /* up to cap fs blocks waiting to be written */
	unsigned int cap;
	blk64_t start;	      /* physical block of buf[0] */
	unsigned int nblocks; /* fs blocks in buf */
	/* partly assembled fs blocks: about two per tree level at most */
	struct e2v_tree_part *parts;
	size_t nparts;
};

errcode_t e2v_tree_writer_init(struct e2v_tree_writer *w, struct e2v_ext4_file *f, uint64_t base,
			       uint64_t tree_size);
/* an e2verity_tree_fn: places one Merkle tree block at base + @offset */
errcode_t e2v_tree_writer_block(void *ctx, const void *block, size_t size, uint64_t offset);
/* Writes what is collected, partly assembled fs blocks included (zero-padded). */
errcode_t e2v_tree_writer_flush(struct e2v_tree_writer *w);
/*
 * Queues @len bytes, whole fs blocks, at byte @pos of the file past the tree
 * (the descriptor region): they go out in the tree's last write when the
 * blocks follow it on disk.  e2v_tree_writer_flush() writes them.
 */
errcode_t e2v_tree_writer_bytes(struct e2v_tree_writer *w, const void *buf, size_t len,
				uint64_t pos);
void e2v_tree_writer_free(struct e2v_tree_writer *w);

#endif /* E2VERITY_SEAL_BLOCKS_H */
