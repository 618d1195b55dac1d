// SPDX-License-Identifier: GPL-2.0-or-later
/* verity_inodes.c - every inode of an image with the verity flag, by one inode-table scan */
#include "config.h"

#include <stdlib.h>

#include "core/array.h"
#include "verity_inodes.h"

/*
 * An inode with no links that is still in use, not deleted: no dtime, a mode,
 * set in the inode bitmap.  A directory may still name it, and the kernel
 * refuses to load it (__ext4_iget(): -ESTALE).
 */
static int e2v_unlinked_in_use(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode_large *in)
{
	if (in->i_links_count || in->i_dtime || !in->i_mode)
		return 0;
	if (!fs->inode_map && ext2fs_read_inode_bitmap(fs))
		return 0;
	return ext2fs_test_inode_bitmap2(fs->inode_map, ino);
}

/* every verity inode, and its i_size in *@sizes when @sizes (for progress) */
errcode_t e2v_list_verity(ext2_filsys fs, int unlinked, ext2_ino_t **inos, uint64_t **sizes,
			  size_t *count)
{
	struct ext2_inode_large inode;
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino, *v = NULL;
	uint64_t *sz = NULL;
	size_t n = 0, cap = 0, capsz = 0;
	errcode_t err;

	*inos = NULL;
	if (sizes)
		*sizes = NULL;
	*count = 0;
	err = ext2fs_open_inode_scan(fs, 0, &scan);
	if (err)
		return err;
	/* a damaged inode table is e2fsck's business: look at what can be read */
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE | EXT2_SF_WARN_GARBAGE_INODES, 0);
	for (;;) {
		err = ext2fs_get_next_inode_full(scan, &ino, EXT2_INODE(&inode), sizeof(inode));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE || err == EXT2_ET_INODE_IS_GARBAGE)
			continue;
		/* a bad checksum still gives the inode: check what it claims */
		if (err && err != EXT2_ET_INODE_CSUM_INVALID)
			goto out;
		if (!ino)
			break;
		if (!(inode.i_flags & EXT4_VERITY_FL))
			continue;
		if (!inode.i_links_count && !(unlinked && e2v_unlinked_in_use(fs, ino, &inode)))
			continue;
		if (e2v_array_room(&v, &cap, n, sizeof(*v)) ||
		    (sizes && e2v_array_room(&sz, &capsz, n, sizeof(*sz)))) {
			err = E2VERITY_ET_NO_MEMORY;
			goto out;
		}
		if (sizes)
			sz[n] = EXT2_I_SIZE(EXT2_INODE(&inode));
		v[n++] = ino;
	}
	err = 0;
	*inos = v;
	if (sizes)
		*sizes = sz;
	*count = n;
	v = NULL;
	sz = NULL;
out:
	free(v);
	free(sz);
	ext2fs_close_inode_scan(scan);
	return err;
}

errcode_t e2verity_list_verity_inodes(ext2_filsys fs, ext2_ino_t **inos, size_t *count)
{
	return e2v_list_verity(fs, 0, inos, NULL, count);
}
