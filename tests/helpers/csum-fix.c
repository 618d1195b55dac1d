// SPDX-License-Identifier: GPL-2.0-or-later
/* csum-fix.c - recompute the metadata_csum checksum of one inode, directory block or xattr block */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

/*
 * tests/kernel/differential.sh mutates the structures on a file's read path
 * twice over: as bit rot leaves them (the stored checksum no longer
 * matches) and as another tool's half-done edit leaves them (the checksum
 * made to match).  This rewrites one structure through libext2fs, which sets
 * its checksum as it writes; its bytes are kept as they are, whatever they
 * say.
 */
static void usage(void)
{
	fprintf(stderr, "usage: csum-fix IMAGE inode INO\n"
			"       csum-fix IMAGE dir INO BLOCK\n"
			"       csum-fix IMAGE xattr INO BLOCK\n");
	exit(2);
}

static unsigned long long number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

static errcode_t fix_inode(ext2_filsys fs, ext2_ino_t ino)
{
	int size = EXT2_INODE_SIZE(fs->super);
	struct ext2_inode *in = calloc(1, size);
	errcode_t err = EXT2_ET_NO_MEMORY;

	if (!in)
		goto out;
	err = ext2fs_read_inode_full(fs, ino, in, size);
	if (!err)
		err = ext2fs_write_inode_full(fs, ino, in, size);
out:
	free(in);
	return err;
}

static errcode_t fix_block(ext2_filsys fs, int dir, ext2_ino_t ino, blk64_t blk)
{
	char *buf = malloc(fs->blocksize);
	errcode_t err = EXT2_ET_NO_MEMORY;

	if (!buf)
		goto out;
	if (dir) {
		err = ext2fs_read_dir_block4(fs, blk, buf, 0, ino);
		if (!err)
			err = ext2fs_write_dir_block4(fs, blk, buf, 0, ino);
	} else {
		err = ext2fs_read_ext_attr3(fs, blk, buf, ino);
		if (!err)
			err = ext2fs_write_ext_attr3(fs, blk, buf, ino);
	}
out:
	free(buf);
	return err;
}

int main(int argc, char **argv)
{
	ext2_filsys fs;
	errcode_t err;
	ext2_ino_t ino;

	if (argc < 4)
		usage();
	ino = number(argv[3]);
	err = ext2fs_open(argv[1], EXT2_FLAG_RW | EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS,
			  0, 0, unix_io_manager, &fs);
	if (err) {
		com_err("csum-fix", err, "while opening %s", argv[1]);
		return 1;
	}
	if (!strcmp(argv[2], "inode") && argc == 4)
		err = fix_inode(fs, ino);
	else if (!strcmp(argv[2], "dir") && argc == 5)
		err = fix_block(fs, 1, ino, number(argv[4]));
	else if (!strcmp(argv[2], "xattr") && argc == 5)
		err = fix_block(fs, 0, ino, number(argv[4]));
	else
		usage();
	if (err)
		com_err("csum-fix", err, "while rewriting the %s of inode %u", argv[2], ino);
	ext2fs_close_free(&fs);
	return err ? 1 : 0;
}
