// SPDX-License-Identifier: GPL-2.0-or-later
/* image_source.c - the file and offset a caller names for the direct reads of a filesystem */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "image_source.h"

/*
 * ext2_filsys has no member the library may claim (priv_data and the io
 * channel's app_data are the application's), so the sources are kept here,
 * by filesystem handle: a caller rarely holds more than two open at once.
 */
struct e2v_image_source {
	ext2_filsys fs;
	int fd;
	uint64_t offset;
	struct e2v_image_source *next;
};

static struct e2v_image_source *e2v_sources;
static pthread_mutex_t e2v_sources_lock = PTHREAD_MUTEX_INITIALIZER;

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
	struct e2v_image_source *s = NULL, **pp, *old = NULL;
	int dup_fd = -1;

	if (fd >= 0) {
		if (!e2v_source_holds(fd, offset, fs))
			return E2VERITY_ET_IMAGE_SOURCE;
		dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup_fd < 0)
			return errno;
		s = calloc(1, sizeof(*s));
		if (!s) {
			close(dup_fd);
			return E2VERITY_ET_NO_MEMORY;
		}
		s->fs = fs;
		s->fd = dup_fd;
		s->offset = offset;
	}
	pthread_mutex_lock(&e2v_sources_lock);
	for (pp = &e2v_sources; *pp; pp = &(*pp)->next) {
		if ((*pp)->fs == fs) {
			old = *pp;
			*pp = old->next;
			break;
		}
	}
	if (s) {
		s->next = e2v_sources;
		e2v_sources = s;
	}
	pthread_mutex_unlock(&e2v_sources_lock);
	if (old) {
		close(old->fd);
		free(old);
	}
	return 0;
}

int e2v_image_source_dup(ext2_filsys fs, uint64_t *offset)
{
	int fd = -1;

	pthread_mutex_lock(&e2v_sources_lock);
	for (struct e2v_image_source *s = e2v_sources; s; s = s->next) {
		if (s->fs == fs) {
			fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0);
			*offset = s->offset;
			break;
		}
	}
	pthread_mutex_unlock(&e2v_sources_lock);
	return fd;
}
