/* SPDX-License-Identifier: GPL-2.0-or-later */
/* descriptor.h - internal: the descriptor codec's rules, for check to report every bad field */
#ifndef E2VERITY_DESCRIPTOR_H
#define E2VERITY_DESCRIPTOR_H

#include "core.h"

/* What a descriptor is checked against besides its own bytes */
struct e2v_desc_limits {
	/* bytes stored from the descriptor on: 256 plus the room for a signature */
	size_t stored;
	/* the inode's i_size, when data_size must equal it */
	int have_data_size;
	uint64_t data_size;
	/* the filesystem block size, when the tree block may not exceed it; or 0 */
	unsigned int fs_block_size;
};

/* One bad field: a problem code of the table and the values of its template */
struct e2v_desc_problem {
	unsigned int code; /* E2VERITY_PR_DESC_* */
	uint64_t value, expected, offset;
	int refused; /* the kernel refuses to open the file; else only the digest differs */
};

/* every rule can fail at most once */
#define E2V_DESC_MAX_PROBLEMS 12

/**
 * e2v_descriptor_problems() - every field of a descriptor that is wrong
 * @raw: E2VERITY_DESCRIPTOR_SIZE bytes
 * @lim: what the fields are checked against
 * @out: E2V_DESC_MAX_PROBLEMS entries
 * @hashable: set to 1 if the fields still allow hashing the data, or NULL
 *
 * The one place the rules are written: e2verity_descriptor_decode() returns
 * the error of the first that the kernel would stop at, check reports them
 * all, in field order.
 *
 * Return: the number of entries of @out filled in.
 */
size_t e2v_descriptor_problems(const uint8_t *raw, const struct e2v_desc_limits *lim,
			       struct e2v_desc_problem *out, int *hashable);

/* 1 if the kernel would refuse to open a file with this descriptor */
int e2v_descriptor_refused(const uint8_t *raw, const struct e2v_desc_limits *lim);

/* The fields of @raw (E2VERITY_DESCRIPTOR_SIZE bytes), whatever their values. */
void e2v_descriptor_unpack(const uint8_t *raw, struct e2verity_descriptor *d);

/* Zeroes the sig_size field of @raw: as the kernel returns and hashes it. */
void e2v_descriptor_clear_sig_size(uint8_t *raw);

/* 1 if @a and @b hash to the same digest: they encode alike but for sig_size */
int e2v_descriptor_same_digest(const struct e2verity_descriptor *a,
			       const struct e2verity_descriptor *b);

#endif /* E2VERITY_DESCRIPTOR_H */
