/* SPDX-License-Identifier: GPL-2.0-or-later */
/* disk.h - where an image's filesystem lives: a file, an offset, a partition, a sparse image */
#ifndef E2VERITY_DISK_H
#define E2VERITY_DISK_H

#include "cmd.h"

/* What an IMAGE argument (with ?offset= or --partition) resolves to. */
struct e2v_disk {
	char *file;	       /* the file named: what is locked and checked for a mount */
	char *open_name;       /* what libext2fs opens: @file, or the raw copy of a sparse image */
	char io_options[48];   /* "offset=N" when the filesystem does not start at byte 0 */
	uint64_t offset, size; /* the filesystem's place in @open_name; @size 0: to its end */
	int partno;	       /* the partition chosen, or 0 */
	/* an Android sparse image, expanded into @raw while the command runs */
	int sparse;
	unsigned int sparse_block_size;
	char *raw;
};

/*
 * Resolves @name (IMAGE or IMAGE?offset=BYTES) and @partition (NULL, a
 * partition number, a GPT partition name or a partition UUID) to the bytes of
 * an ext4 filesystem, expanding an Android sparse image into a temporary raw
 * file.  On failure, @why (of @whysize bytes) completes the message
 * "<error> while opening '<name>'"; e2v_disk_free() frees what was made
 * either way.
 */
/*
 * 1 if the io options of @name (after '?') are well formed; if not, @why
 * says why, as e2v_disk_resolve() would: a mistake of the command line,
 * found before anything is opened.
 */
int e2v_disk_name_valid(const char *name, char *why, size_t whysize);
errcode_t e2v_disk_resolve(struct e2v_disk *d, const char *name, const char *partition, char *why,
			   size_t whysize);
/*
 * After a command wrote to a sparse image: encodes the raw copy back into the
 * sparse file (holes become "don't care" chunks, blocks of one repeated
 * 32-bit value fill chunks), replacing it whole.
 */
errcode_t e2v_disk_write_back(struct e2v_disk *d);
void e2v_disk_free(struct e2v_disk *d);

#endif /* E2VERITY_DISK_H */
