/* SPDX-License-Identifier: GPL-2.0-or-later */
/* image.h - internal: the library's state of one image, found from its ext2_filsys */
#ifndef E2VERITY_IMAGE_H
#define E2VERITY_IMAGE_H

#include "private.h"
#include "core/log.h"

/*
 * Everything the library keeps about one open filesystem between calls,
 * hung on @fs->priv_data by e2verity_image_attach(): nothing per image is
 * kept in a process global, so two images may each be worked on (each by
 * one thread at a time, as libext2fs' handles are) at once.
 */
struct e2verity_image {
	ext2_filsys fs;
	/* the source e2verity_set_image_source() named: a descriptor of our own, or -1 */
	int fd;
	uint64_t offset;
	/* e2verity_image_set_log_callback() */
	struct e2v_log_sink log;
	/* the transaction open on this image, or NULL (lib/txn/txn.c) */
	struct e2verity_txn *txn;
	/*
	 * Counts the moments blocks in use may have become free in this image:
	 * e2v_txn_free_epoch().  Starts at 1, so that 0 can say "unknown".
	 */
	unsigned long free_epoch;
};

/* The image attached to @fs, or NULL when none is. */
struct e2verity_image *e2v_image_of(ext2_filsys fs);

/* The log callback of @fs's image: one whose fn is NULL (nothing logged) without an image. */
const struct e2v_log_sink *e2v_image_log(ext2_filsys fs);

/*
 * A descriptor of its own (close it) on the file e2verity_set_image_source()
 * named for @fs, and the byte @offset of the filesystem in it; -1 when the
 * caller named none.
 */
int e2v_image_source_dup(ext2_filsys fs, uint64_t *offset);

#endif /* E2VERITY_IMAGE_H */
