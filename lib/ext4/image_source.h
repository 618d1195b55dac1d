/* SPDX-License-Identifier: GPL-2.0-or-later */
/* image_source.h - internal: the file and offset a caller named for a filesystem's fast reads */
#ifndef E2VERITY_IMAGE_SOURCE_H
#define E2VERITY_IMAGE_SOURCE_H

#include "private.h"

/*
 * A descriptor of its own (close it) on the file e2verity_set_image_source()
 * named for @fs, and the byte @offset of the filesystem in it; -1 when the
 * caller named none.
 */
int e2v_image_source_dup(ext2_filsys fs, uint64_t *offset);

#endif /* E2VERITY_IMAGE_SOURCE_H */
