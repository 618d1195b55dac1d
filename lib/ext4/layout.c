// SPDX-License-Identifier: GPL-2.0-or-later
/* layout.c - ext4 placement arithmetic for verity metadata (fs/ext4/verity.c) */
#include "config.h"

#include "layout.h"

/* ext4 addresses file blocks with 32 bits */
#define E2V_EXT4_MAX_LBLK (1ULL << 32)

uint64_t e2v_ext4_max_bytes(ext2_filsys fs)
{
	const unsigned int bits = e2v_ilog2(fs->blocksize);
	/* extents start at 32-bit logical blocks; the kernel keeps the last one free */
	uint64_t max = (E2V_EXT4_MAX_LBLK - 1) << bits;
	/* without huge_file, i_blocks counts 2^32 - 1 sectors of 512 bytes at most */
	uint64_t sectors = ((E2V_EXT4_MAX_LBLK - 1) >> (bits - 9)) << bits;

	if (!ext2fs_has_feature_huge_file(fs->super) && sectors < max)
		max = sectors;
	return max;
}

errcode_t e2v_ext4_layout(uint64_t data_size, uint64_t tree_size, uint32_t sig_size,
			  unsigned int fs_block_size, struct e2verity_ext4_layout *l)
{
	if (sig_size > E2VERITY_MAX_SIGNATURE_SIZE)
		return E2VERITY_ET_SIG_TOO_LARGE;
	/* both are below 2^48 afterwards: the sums below cannot wrap */
	if (data_size > E2V_EXT4_MAX_LBLK * fs_block_size ||
	    tree_size > E2V_EXT4_MAX_LBLK * fs_block_size)
		return E2VERITY_ET_FILE_TOO_LARGE;
	l->merkle_pos = e2v_round_up(data_size, E2VERITY_EXT4_METADATA_ALIGN);
	l->desc_pos = e2v_round_up(l->merkle_pos + tree_size, fs_block_size);
	l->desc_size = E2VERITY_DESCRIPTOR_SIZE + sig_size;
	/* if fewer than 4 bytes follow the descriptor, the size word takes a new block */
	l->end = e2v_round_up(l->desc_pos + l->desc_size + 4, fs_block_size);
	l->size_pos = l->end - 4;
	if (l->end / fs_block_size > E2V_EXT4_MAX_LBLK)
		return E2VERITY_ET_FILE_TOO_LARGE;
	return 0;
}

errcode_t e2v_ext4_locate(uint64_t data_size, uint64_t end, uint32_t desc_size,
			  unsigned int fs_block_size, struct e2verity_ext4_layout *l)
{
	l->merkle_pos = e2v_round_up(data_size, E2VERITY_EXT4_METADATA_ALIGN);
	l->end = end;
	l->size_pos = end >= 4 ? end - 4 : 0;
	l->desc_size = desc_size;
	l->desc_pos = 0;
	if (end < 4 || desc_size > l->size_pos)
		return E2VERITY_ET_NO_DESCRIPTOR;
	l->desc_pos = (l->size_pos - desc_size) / fs_block_size * fs_block_size;
	if (l->desc_pos < l->merkle_pos)
		return E2VERITY_ET_NO_DESCRIPTOR;
	if (desc_size < E2VERITY_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_TOO_SHORT;
	if (desc_size > E2VERITY_MAX_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_TOO_LARGE;
	return 0;
}
