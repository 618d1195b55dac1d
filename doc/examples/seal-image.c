// SPDX-License-Identifier: GPL-2.0-or-later
/* seal-image.c - an image builder's use of libe2verity: seal every regular file of an ext4 image */
#include <stdio.h>
#include <stdlib.h>

#include <e2verity.h>

int main(int argc, char *argv[])
{
	struct e2verity_seal_opts opts = { .params.threads.count = 2 }; /* SHA-256, 4 KiB blocks */
	struct e2verity_files_totals totals = { 0 };
	ext2_ino_t ino, *inos = NULL, *v;
	struct ext2_inode inode;
	ext2_inode_scan scan;
	struct e2verity_image *img = NULL;
	ext2_filsys fs = NULL;
	size_t n = 0;
	errcode_t err;

	e2verity_init();
	err = argc == 2 ? ext2fs_open(argv[1], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs)
			: EXT2_ET_BAD_DEVICE_NAME;
	/* the library's state of this image (its transactions), on fs->priv_data until detached */
	if (!err)
		err = e2verity_image_attach(fs, &img);
	if (!err && !(err = ext2fs_open_inode_scan(fs, 0, &scan))) {
		while (!(err = ext2fs_get_next_inode(scan, &ino, &inode)) && ino) {
			if (ino < EXT2_FIRST_INO(fs->super) || !inode.i_links_count ||
			    !LINUX_S_ISREG(inode.i_mode))
				continue;
			if (!(v = realloc(inos, (n + 1) * sizeof(*inos)))) {
				err = EXT2_ET_NO_MEMORY;
				break;
			}
			(inos = v)[n++] = ino;
		}
		ext2fs_close_inode_scan(scan);
	}
	/* all judged first (nothing written if one is refused), then sealed in crash-safe commits */
	if (!err)
		err = e2verity_seal_files(fs, NULL, inos, n, &opts, NULL, NULL, &totals);
	e2verity_image_detach(img);
	err = err ? (ext2fs_free(fs), err) : ext2fs_close_free(&fs);
	if (err)
		fprintf(stderr, "%s: %s (file %zu)\n",
			argc > 1 ? argv[1] : "usage: seal-image IMAGE", error_message(err),
			totals.index);
	else
		printf("%zu files sealed, %zu were already\n", totals.done, totals.skipped);
	free(inos);
	return !!err;
}
