// SPDX-License-Identifier: GPL-2.0-or-later
/* check_image.c - find every inode with the verity flag and check each */
#include "config.h"

#include <stdlib.h>

#include "check_private.h"

errcode_t e2verity_list_verity_inodes(ext2_filsys fs, ext2_ino_t **inos, size_t *count)
{
	struct ext2_inode_large inode;
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino, *v = NULL;
	size_t n = 0, cap = 0;
	errcode_t err;

	*inos = NULL;
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
		if (!inode.i_links_count || !(inode.i_flags & EXT4_VERITY_FL))
			continue;
		if (n == cap) {
			ext2_ino_t *nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				err = E2VERITY_ET_NO_MEMORY;
				goto out;
			}
			v = nv;
		}
		v[n++] = ino;
	}
	err = 0;
	*inos = v;
	*count = n;
	v = NULL;
out:
	free(v);
	ext2fs_close_inode_scan(scan);
	return err;
}

errcode_t e2verity_check_image(ext2_filsys fs, const struct e2verity_check_opts *opts,
			       struct e2verity_check_stats *stats)
{
	struct ext2_inode inode;
	ext2_ino_t *inos;
	uint64_t total = 0, done = 0;
	size_t n;
	errcode_t err;

	err = e2verity_list_verity_inodes(fs, &inos, &n);
	if (err)
		return err;
	/* the sizes first, so that progress is a share of the whole image's data */
	for (size_t i = 0; i < n; i++) {
		err = ext2fs_read_inode(fs, inos[i], &inode);
		if (err)
			goto out;
		total += EXT2_I_SIZE(&inode);
	}
	for (size_t i = 0; i < n; i++) {
		err = ext2fs_read_inode(fs, inos[i], &inode);
		if (!err)
			err = e2v_check_one(fs, inos[i], opts, stats, done, total);
		if (err)
			goto out;
		done += EXT2_I_SIZE(&inode);
	}
out:
	free(inos);
	return err;
}
