/* SPDX-License-Identifier: GPL-2.0-or-later */
/* past_eof.h - internal: whether the blocks past a file's data are provably its own */
#ifndef E2VERITY_PAST_EOF_H
#define E2VERITY_PAST_EOF_H

#include "ext4_file.h"

/*
 * Whether the blocks of @f from logical block @first on are
 * provably the file's own (inside the filesystem, outside its metadata, in
 * use, used by no other inode), so that freeing them harms nothing else.
 * @owners is e2verity_owners_scan()'s, or NULL to scan every inode here.
 */
errcode_t e2v_check_past_eof(struct e2v_ext4_file *f, blk64_t first,
			     const struct e2verity_owners *owners);

/*
 * Whether blocks the block bitmap calls free are free indeed (named by no
 * inode at the scan, not filesystem metadata): then what libext2fs allocates
 * is the allocating file's alone.  Returns 0 or E2VERITY_ET_BITMAP_STALE.
 */
errcode_t e2v_owners_allocatable(const struct e2verity_owners *owners);

/* The system zone made with @owners (NULL for NULL), for e2v_ext4_file_open_in() */
const struct e2v_system_zone *e2v_owners_zone(const struct e2verity_owners *owners);

#endif /* E2VERITY_PAST_EOF_H */
