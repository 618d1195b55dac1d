/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.h - internal: a sealed inode opened as the kernel opens it */
#ifndef E2VERITY_MEASURE_H
#define E2VERITY_MEASURE_H

#include "ext4_file.h"

/*
 * Opens a sealed inode and reads its metadata as the kernel does on open:
 * E2VERITY_ET_NOT_SEALED without the verity flag, an extent tree error of
 * e2v_ext4_file_open_in() (with @zone), the descriptor's decoding error, or
 * E2VERITY_ET_CORRUPT if data_size is not i_size.  On success close both
 * with e2v_verity_meta_free() and e2v_ext4_file_close().
 */
errcode_t e2v_open_sealed(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
			  struct e2v_ext4_file *f, struct e2v_verity_meta *m);

#endif /* E2VERITY_MEASURE_H */
