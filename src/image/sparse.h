/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sparse.h - Android sparse images (img2simg): checked, read in place, expanded, encoded */
#ifndef E2VERITY_SPARSE_H
#define E2VERITY_SPARSE_H

#include "output/outfile.h"

#define CLI_SPARSE_MAGIC 0xed26ff3a

/* blocks that were "don't care" chunks: on write-back they are again, where still holes */
struct cli_sparse_range {
	uint64_t start, count;
};

/* a chunk that holds data: raw (its bytes in the file) or a fill of one non-zero 32-bit value */
struct cli_sparse_chunk {
	uint64_t block; /* the first block it covers */
	uint64_t pos;	/* raw: where its data is in the file */
	uint32_t blocks;
	uint32_t fill; /* a fill's value; its bytes repeat little-endian */
	int raw;
};

/* What the chunk table of a sparse image says, checked against the file's size. */
struct cli_sparse {
	unsigned int block_size;
	uint64_t blocks;     /* of the expanded image */
	uint64_t data_bytes; /* written by expanding it, at most: raw and non-zero fill chunks */
	struct cli_sparse_range *dontcare;
	size_t ndontcare;
	/* in block order; every block outside them reads as zeros */
	struct cli_sparse_chunk *chunks;
	size_t nchunks;
};

/*
 * Reads and checks every chunk header of the sparse image open at @fd
 * (@file_size bytes) before a byte is expanded: known chunk types, sizes
 * that agree with their blocks, nothing past the end of the file, blocks
 * that add up to the header's count.  On failure @why (@ws bytes) says what
 * is wrong, as " (...)".
 */
errcode_t cli_sparse_scan(int fd, uint64_t file_size, struct cli_sparse *sp, char *why, size_t ws);
/*
 * Reads @len bytes at @pos of the expanded image from the checked image
 * open at @fd, through its chunks, without expanding anything.  What lies
 * past the expanded image's end reads as zeros, and the read returns
 * EXT2_ET_SHORT_READ (as the unix io manager does at a file's end).
 */
errcode_t cli_sparse_read(int fd, const struct cli_sparse *sp, uint64_t pos, void *buf, size_t len);
/*
 * Expands the checked image into @rawfd: raw chunks copied, fills written,
 * "don't care" chunks, zero fills and zero blocks left as holes.
 */
errcode_t cli_sparse_expand(int fd, const struct cli_sparse *sp, int rawfd);
/*
 * Encodes the expanded image @rawfd back into a sparse image, written to
 * @o: holes inside the old "don't care" chunks become "don't care" again,
 * other holes and blocks of one repeated 32-bit value fill chunks, the rest
 * raw chunks.
 */
errcode_t cli_sparse_encode(int rawfd, const struct cli_sparse *sp, struct cli_outfile *o);
void cli_sparse_free(struct cli_sparse *sp);

#endif /* E2VERITY_SPARSE_H */
