// SPDX-License-Identifier: GPL-2.0-or-later
/* check_lookup.c - a PATH whose lookup fails on a damaged directory: a finding, not a typo */
#include "config.h"

#include <string.h>

#include "check/check_files.h"
#include "check/check_lookup.h"

/* A mode of one of the seven file types; __ext4_iget() refuses any other ("bogus i_mode") */
static int cli_mode_known(unsigned int mode)
{
	return LINUX_S_ISREG(mode) || LINUX_S_ISDIR(mode) || LINUX_S_ISLNK(mode) ||
	       LINUX_S_ISCHR(mode) || LINUX_S_ISBLK(mode) || LINUX_S_ISFIFO(mode) ||
	       LINUX_S_ISSOCK(mode);
}

/* The directory where the lookup of @path breaks on damage, and why; 0 if it does not */
static int cli_lookup_breaks(ext2_filsys fs, const char *path, ext2_ino_t *dir, errcode_t *why)
{
	ext2_ino_t cur = EXT2_ROOT_INO, next;
	struct ext2_inode inode;
	const char *p = path;
	errcode_t err;

	if (path[0] != '/')
		return 0;
	for (;;) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len)
			return 0;
		if (ext2fs_read_inode(fs, cur, &inode))
			return 0;
		if (!LINUX_S_ISDIR(inode.i_mode)) {
			/* a file named as a directory is the user's ENOTDIR, as in the kernel */
			if (cli_mode_known(inode.i_mode))
				return 0;
			*dir = cur;
			*why = EXT2_ET_NO_DIRECTORY;
			return 1;
		}
		/* "." stays; ".." is followed by the kernel from the dentry, not through a block */
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		if (len == 1 && p[0] == '.') {
			p += len;
			continue;
		}
		err = ext2fs_lookup(fs, cur, p, (int)len, NULL, &next);
		if (err == EXT2_ET_FILE_NOT_FOUND)
			return 0;
		/*
		 * libext2fs reads an indexed directory block after block, where
		 * the kernel reads the blocks the name's hash leads to: damage
		 * off that route fails only libext2fs (cli_lookup() then finds
		 * the file the kernel's way), damage on it fails both
		 */
		if (err && ext2fs_has_feature_dir_index(fs->super) &&
		    (inode.i_flags & EXT2_INDEX_FL)) {
			ext2_ino_t found;

			err = e2verity_lookup_path(fs, path, &found, dir);
			if (err != EXT2_ET_DIR_CSUM_INVALID && err != EXT2_ET_INODE_CORRUPTED)
				return 0;
			*why = err;
			return 1;
		}
		if (err) {
			*dir = cur;
			*why = err;
			return 1;
		}
		cur = next;
		p += len;
	}
}

int cli_check_lookup_damage(struct cli_check_run *c, ext2_filsys fs, const char *path)
{
	struct e2verity_finding fi = { 0 };
	struct cli_checked *r;
	ext2_ino_t dir;
	errcode_t why;

	if (!cli_lookup_breaks(fs, path, &dir, &why))
		return 0;
	r = cli_check_add_file(c, 0, path);
	if (!r)
		return -1;
	r->unreachable = 1;
	fi.value = dir;
	fi.err = why;
	return cli_check_add_finding(c, r, E2VERITY_PR_PATH_LOOKUP_FAILED, &fi, NULL) ? -1 : 1;
}
