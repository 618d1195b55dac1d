// SPDX-License-Identifier: GPL-2.0-or-later
/* kernel.c - which Linux versions read a verity file of given block sizes (FORMAT.md §2.1) */
#include "config.h"

#include "core.h"

/* ext4 gained fs-verity (with SHA-256, SHA-512 and built-in signatures) in Linux 5.4 */
#define E2V_FIRST_KERNEL E2VERITY_KERNEL_VERSION(5, 4)
/* Linux 6.3 ("fsverity: support verification with tree block size < PAGE_SIZE") */
#define E2V_SUBPAGE_KERNEL E2VERITY_KERNEL_VERSION(6, 3)

/**
 * e2verity_kernel_min() - the oldest Linux that reads a verity file
 * @fs_block_size: the filesystem's block size in bytes
 * @tree_block_size: the Merkle tree block size (1 << the descriptor's log_blocksize)
 * @page_size: the kernel's page size in bytes; 0 means 4096
 *
 * Before 6.3, ext4 mounts a filesystem with the verity feature only when its
 * block size is the page size, and fs-verity reads only trees whose block is
 * the page size.  From 6.3 on, a tree block may be any power of two from 1024
 * up to the page size and the filesystem block size.  No kernel mounts an ext4
 * filesystem whose block is larger than its page, as far as this was tested.
 *
 * Return: E2VERITY_KERNEL_VERSION() of the oldest kernel with that page size
 * that reads such a file, or 0 if none does.
 */
unsigned int e2verity_kernel_min(unsigned int fs_block_size, unsigned int tree_block_size,
				 unsigned int page_size)
{
	if (!page_size)
		page_size = 4096;
	if (!e2v_is_power_of_2(tree_block_size) || tree_block_size < E2VERITY_MIN_BLOCK_SIZE ||
	    tree_block_size > fs_block_size || tree_block_size > page_size ||
	    fs_block_size > page_size)
		return 0;
	if (fs_block_size == page_size && tree_block_size == page_size)
		return E2V_FIRST_KERNEL;
	return E2V_SUBPAGE_KERNEL;
}
