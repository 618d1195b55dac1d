// SPDX-License-Identifier: GPL-2.0-or-later
/* image.c - open an ext4 image for the commands: read-only, or locked read-write and unmounted */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "cmd.h"

/* The lock lives as long as the process: one writer, or any number of readers, per image. */
static errcode_t e2v_lock_image(const char *image, int exclusive)
{
	int fd = open(image, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		errcode_t err = errno == EWOULDBLOCK ? E2VERITY_ET_LOCKED : errno;

		close(fd);
		return err;
	}
	return 0;
}

errcode_t e2v_open_image(const char *image, int writable, ext2_filsys *fs, const char **doing)
{
	int mount_flags = 0;
	char *path;
	errcode_t err;

	*fs = NULL;
	/* e2fsprogs' IMAGE?io_options form: the file is what comes before the '?' */
	path = strdup(image);
	if (!path)
		return ENOMEM;
	path[strcspn(path, "?")] = '\0';
	*doing = "locking";
	err = e2v_lock_image(path, writable);
	if (!err && writable) {
		*doing = "checking whether it is mounted";
		err = ext2fs_check_if_mounted(path, &mount_flags);
		if (!err && (mount_flags & EXT2_MF_MOUNTED))
			err = E2VERITY_ET_MOUNTED;
	}
	free(path);
	if (err)
		return err;
	*doing = "opening";
	/*
	 * Read-only opens tolerate bad checksums: check reports what it can
	 * read, and nothing is written.
	 */
	return ext2fs_open2(image, NULL,
			    EXT2_FLAG_64BITS | (writable ? EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE
							 : EXT2_FLAG_IGNORE_CSUM_ERRORS),
			    0, 0, unix_io_manager, fs);
}

errcode_t e2v_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino)
{
	if (path[0] != '/')
		return EINVAL;
	return ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino);
}
