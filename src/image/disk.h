/* SPDX-License-Identifier: GPL-2.0-or-later */
/* disk.h - where an image's filesystem lives: a file, an offset, a partition, a sparse image */
#ifndef E2VERITY_DISK_H
#define E2VERITY_DISK_H

#include "image/container.h"

/*
 * Resolves @name (IMAGE or IMAGE?offset=BYTES) and @partition (NULL, a
 * partition number, a GPT partition name or a partition UUID) to the bytes of
 * an ext4 filesystem.  On failure, @why (of @whysize bytes) completes the
 * message "<error> while opening '<name>'"; cli_disk_free() frees what was
 * made either way.
 */
/*
 * 1 if the io options of @name (after '?') are well formed; if not, @why
 * says why, as cli_disk_resolve() would: a mistake of the command line,
 * found before anything is opened.
 */
int cli_disk_name_valid(const char *name, char *why, size_t whysize);
errcode_t cli_disk_resolve(struct cli_disk *d, const char *name, const char *partition, char *why,
			   size_t whysize);

/* with CLI_DISK_WRITE, the write-back of a sparse image is prepared before any work */
#define CLI_DISK_WRITE 0x1
/*
 * Once the file is locked: an Android sparse image is checked and expanded
 * (once per process; a later open of the same, unchanged file reuses the
 * copy) into a file without a name in TMPDIR; with CLI_DISK_WRITE, the file
 * that will replace it is made in its directory first, so that a directory
 * not writable, a hard-linked image or an owner that a new file cannot have
 * is said before anything is done.  Nothing to do for other images.
 */
errcode_t cli_disk_expand(struct cli_disk *d, unsigned int how, char *why, size_t whysize);
/*
 * After a command wrote to a sparse image: encodes the copy back into the
 * sparse file, replacing it whole (holes that were "don't care" chunks stay
 * so, zeros and blocks of one repeated 32-bit value become fill chunks), with
 * its mode, owner, group and extended attributes.
 */
errcode_t cli_disk_write_back(struct cli_disk *d);
/* After an abandoned write: the next open expands the sparse image anew. */
void cli_disk_forget(struct cli_disk *d);
void cli_disk_free(struct cli_disk *d);

#endif /* E2VERITY_DISK_H */
