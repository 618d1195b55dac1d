// SPDX-License-Identifier: GPL-2.0-or-later
/* image.c - the library's state of one image, on fs->priv_data: its source, log and transaction */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "image.h"

/* kernel-doc in e2verity.h */
errcode_t e2verity_image_attach(ext2_filsys fs, struct e2verity_image **ret)
{
	struct e2verity_image *img;

	*ret = NULL;
	if (fs->priv_data)
		return E2VERITY_ET_PRIV_DATA_BUSY;
	img = calloc(1, sizeof(*img));
	if (!img)
		return E2VERITY_ET_NO_MEMORY;
	img->fs = fs;
	img->fd = -1;
	img->free_epoch = 1;
	fs->priv_data = img;
	*ret = img;
	return 0;
}

/* kernel-doc in e2verity.h */
errcode_t e2verity_image_detach(struct e2verity_image *img)
{
	if (!img)
		return 0;
	if (img->txn)
		return E2VERITY_ET_TXN_BUSY;
	if (img->fs->priv_data == img)
		img->fs->priv_data = NULL;
	if (img->fd >= 0)
		close(img->fd);
	free(img);
	return 0;
}

/* kernel-doc in e2verity.h */
void e2verity_image_set_log_callback(struct e2verity_image *img, e2verity_log_fn fn, void *ctx)
{
	img->log.fn = fn;
	img->log.ctx = ctx;
}

struct e2verity_image *e2v_image_of(ext2_filsys fs)
{
	struct e2verity_image *img = fs ? fs->priv_data : NULL;

	/* a handle ext2fs_dup_handle() copied has the pointer, but is not the image's */
	return img && img->fs == fs ? img : NULL;
}

const struct e2v_log_sink *e2v_image_log(ext2_filsys fs)
{
	static const struct e2v_log_sink none = { NULL, NULL };
	struct e2verity_image *img = e2v_image_of(fs);

	return img ? &img->log : &none;
}

/* whether @fd holds @fs at @offset: its superblock, with the same UUID */
static int e2v_source_holds(int fd, uint64_t offset, ext2_filsys fs)
{
	struct ext2_super_block sb;

	if (pread(fd, &sb, sizeof(sb), offset + SUPERBLOCK_OFFSET) != (ssize_t)sizeof(sb))
		return 0;
	return ext2fs_le16_to_cpu(sb.s_magic) == EXT2_SUPER_MAGIC &&
	       memcmp(sb.s_uuid, fs->super->s_uuid, sizeof(sb.s_uuid)) == 0;
}

/* kernel-doc in e2verity.h */
errcode_t e2verity_set_image_source(ext2_filsys fs, int fd, uint64_t offset)
{
	struct e2verity_image *img = e2v_image_of(fs);
	int dup_fd = -1;

	if (!img)
		return fd < 0 ? 0 : E2VERITY_ET_NO_IMAGE;
	if (fd >= 0) {
		if (!e2v_source_holds(fd, offset, fs))
			return E2VERITY_ET_IMAGE_SOURCE;
		dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup_fd < 0)
			return errno;
	}
	if (img->fd >= 0)
		close(img->fd);
	img->fd = dup_fd;
	img->offset = dup_fd >= 0 ? offset : 0;
	return 0;
}

int e2v_image_source_dup(ext2_filsys fs, uint64_t *offset)
{
	struct e2verity_image *img = e2v_image_of(fs);

	if (!img || img->fd < 0)
		return -1;
	*offset = img->offset;
	return fcntl(img->fd, F_DUPFD_CLOEXEC, 0);
}
