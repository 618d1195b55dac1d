/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout.h - internal: where ext4 keeps a verity file's metadata */
#ifndef E2VERITY_LAYOUT_H
#define E2VERITY_LAYOUT_H

#include "private.h"

/*
 * the largest i_size an extent-mapped file of @fs can have, as the
 * kernel's s_maxbytes; nothing larger comes from a sane image.
 */
uint64_t e2v_ext4_max_bytes(ext2_filsys fs);

/**
 * e2v_ext4_layout() - place a verity file's metadata past its data
 * @data_size: i_size
 * @tree_size: bytes of Merkle tree
 * @sig_size: bytes of built-in signature, or 0
 * @fs_block_size: filesystem block size
 * @l: result
 *
 * Return: 0, E2VERITY_ET_SIG_TOO_LARGE or E2VERITY_ET_FILE_TOO_LARGE.
 */
errcode_t e2v_ext4_layout(uint64_t data_size, uint64_t tree_size, uint32_t sig_size,
			  unsigned int fs_block_size, struct e2verity_ext4_layout *l);

/**
 * e2v_ext4_locate() - find the descriptor the way the kernel does
 * @data_size: i_size
 * @end: byte offset just past the last allocated block of the file
 * @desc_size: the le32 read from the last 4 bytes before @end
 * @fs_block_size: filesystem block size
 * @l: result (merkle_pos, desc_pos, desc_size, size_pos, end)
 *
 * Mirrors ext4_get_verity_descriptor_location(): the descriptor starts on the
 * fs block at or before @end - 4 - @desc_size and must not begin before the
 * Merkle tree position.
 *
 * Return: 0, E2VERITY_ET_NO_DESCRIPTOR, E2VERITY_ET_DESC_TOO_SHORT or
 * E2VERITY_ET_DESC_TOO_LARGE.
 */
errcode_t e2v_ext4_locate(uint64_t data_size, uint64_t end, uint32_t desc_size,
			  unsigned int fs_block_size, struct e2verity_ext4_layout *l);

#endif /* E2VERITY_LAYOUT_H */
