/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout.h - internal: ext4 placement arithmetic beyond the public calls */
#ifndef E2VERITY_LAYOUT_H
#define E2VERITY_LAYOUT_H

#include "private.h"

/*
 * the largest i_size an extent-mapped file of @fs can have, as the
 * kernel's s_maxbytes; nothing larger comes from a sane image.
 */
uint64_t e2v_ext4_max_bytes(ext2_filsys fs);

#endif /* E2VERITY_LAYOUT_H */
