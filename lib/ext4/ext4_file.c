// SPDX-License-Identifier: GPL-2.0-or-later
/* ext4_file.c - internal: extent-mapped reads of an inode, in large runs, past EOF too */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ext4_file.h"
#include "image.h"
#include "layout.h"

static errcode_t e2v_load_extents(struct e2v_ext4_file *f)
{
	struct e2v_extent_tree t;
	errcode_t err;

	free(f->extents);
	f->extents = NULL;
	f->nr_extents = 0;
	f->tree_node_blocks = 0;
	f->last_leaf_empty = 0;
	err = e2v_extent_tree_read(f->fs, f->ino, EXT2_INODE(&f->inode), 0, f->zone, &t);
	f->fault = t.fault.problem ? t.fault : t.warn;
	if (err)
		return err;
	f->extents = t.extents;
	f->nr_extents = t.nr;
	f->tree_node_blocks = t.node_blocks;
	f->last_leaf_empty = t.last_leaf_empty;
	return 0;
}

/* What an open checks and loads once @f->inode holds the inode */
static errcode_t e2v_ext4_file_load(struct e2v_ext4_file *f)
{
	struct ext2_inode *inode = EXT2_INODE(&f->inode);

	f->size = EXT2_I_SIZE(inode);
	free(f->meta_buf);
	f->meta_buf = NULL;
	f->meta = NULL;
	if (!LINUX_S_ISREG(inode->i_mode))
		return E2VERITY_ET_NOT_REGULAR;
	/* every offset derived from i_size must fit in 64 bits */
	if (f->size > e2v_ext4_max_bytes(f->fs))
		return E2VERITY_ET_SIZE_TOO_LARGE;
	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return E2VERITY_ET_INLINE_DATA;
	if (!(inode->i_flags & EXT4_EXTENTS_FL))
		return E2VERITY_ET_NO_EXTENTS;
	return e2v_load_extents(f);
}

errcode_t e2v_ext4_file_reload(struct e2v_ext4_file *f)
{
	errcode_t err;

	err = ext2fs_read_inode_full(f->fs, f->ino, EXT2_INODE(&f->inode), sizeof(f->inode));
	return err ? err : e2v_ext4_file_load(f);
}

errcode_t e2v_ext4_file_open(ext2_filsys fs, ext2_ino_t ino, struct e2v_ext4_file *f)
{
	return e2v_ext4_file_open_in(fs, NULL, ino, f);
}

/* what every open starts from: nothing read yet */
static void e2v_ext4_file_init(struct e2v_ext4_file *f, ext2_filsys fs,
			       const struct e2v_system_zone *zone, ext2_ino_t ino)
{
	memset(f, 0, sizeof(*f));
	f->fs = fs;
	f->ino = ino;
	f->zone = zone;
}

/* The end of an open that loaded @f, or failed with @err: @f open, or closed */
static errcode_t e2v_ext4_file_opened(struct e2v_ext4_file *f, errcode_t err)
{
	if (err)
		e2v_ext4_file_close(f);
	else
		f->open = 1;
	return err;
}

errcode_t e2v_ext4_file_open_in(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
				struct e2v_ext4_file *f)
{
	e2v_ext4_file_init(f, fs, zone, ino);
	return e2v_ext4_file_opened(f, e2v_ext4_file_reload(f));
}

errcode_t e2v_ext4_file_open_inode(ext2_filsys fs, const struct e2v_system_zone *zone,
				   ext2_ino_t ino, const struct ext2_inode_large *inode,
				   struct e2v_ext4_file *f)
{
	e2v_ext4_file_init(f, fs, zone, ino);
	f->inode = *inode;
	return e2v_ext4_file_opened(f, e2v_ext4_file_load(f));
}

void e2v_ext4_file_reopen(struct e2v_ext4_file *f, ext2_filsys fs,
			  const struct e2v_system_zone *zone, ext2_ino_t ino,
			  const struct ext2_inode_large *inode, struct e2v_extent **extents,
			  size_t nr_extents, blk64_t tree_node_blocks, int last_leaf_empty)
{
	e2v_ext4_file_init(f, fs, zone, ino);
	f->inode = *inode;
	f->size = EXT2_I_SIZE(EXT2_INODE(&f->inode));
	f->extents = *extents;
	f->nr_extents = nr_extents;
	f->tree_node_blocks = tree_node_blocks;
	f->last_leaf_empty = last_leaf_empty;
	f->open = 1;
	*extents = NULL;
}

uint8_t *e2v_ext4_file_bounce(struct e2v_ext4_file *f)
{
	if (!f->bounce)
		f->bounce = malloc(f->fs->blocksize);
	return f->bounce;
}

int e2v_fs_image_fd(ext2_filsys fs, uint64_t *base)
{
	struct ext2_super_block sb;
	char *name, *opts;
	int fd = -1;

	*base = 0;
	/* what the caller named; else what the unix io manager opened */
	fd = e2v_image_source_dup(fs, base);
	if (fd >= 0) {
		name = NULL;
		goto check;
	}
	if (!fs->device_name)
		return -1;
	name = strdup(fs->device_name);
	if (!name)
		return -1;
	opts = strchr(name, '?');
	if (opts) {
		char *end;

		*opts++ = 0;
		if (strncmp(opts, "offset=", 7) != 0 || opts[7] < '0' || opts[7] > '9')
			goto out;
		errno = 0;
		*base = strtoull(opts + 7, &end, 10);
		if (errno || *end)
			goto out;
	}
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto out;
check:
	/* the same filesystem as libext2fs opened, or nothing */
	if (pread(fd, &sb, sizeof(sb), *base + SUPERBLOCK_OFFSET) != (ssize_t)sizeof(sb) ||
	    ext2fs_le16_to_cpu(sb.s_magic) != EXT2_SUPER_MAGIC ||
	    memcmp(sb.s_uuid, fs->super->s_uuid, sizeof(sb.s_uuid)) != 0) {
		close(fd);
		fd = -1;
	}
out:
	free(name);
	return fd;
}

int e2v_ext4_file_read_direct(struct e2v_ext4_file *f, int fd, uint64_t base)
{
	int own = fd < 0;

	if (f->direct)
		return 1;
	if (own)
		fd = e2v_fs_image_fd(f->fs, &base);
	if (fd < 0)
		return 0;
	f->fd = fd;
	f->base = base;
	f->direct = 1;
	f->fd_own = own;
	return 1;
}

void e2v_ext4_file_close(struct e2v_ext4_file *f)
{
	if (f->fd_own) {
		close(f->fd);
		f->fd_own = 0;
		f->direct = 0;
	}
	free(f->extents);
	free(f->bounce);
	free(f->meta_buf);
	f->extents = NULL;
	f->bounce = NULL;
	f->meta = NULL;
	f->meta_buf = NULL;
	f->nr_extents = 0;
	f->open = 0;
	/* f->fault stays: it says why an open failed */
}

const struct e2v_extent *e2v_ext4_last_extent(const struct e2v_ext4_file *f)
{
	return f->nr_extents && !f->last_leaf_empty ? &f->extents[f->nr_extents - 1] : NULL;
}

static const struct e2v_extent *e2v_find_extent(const struct e2v_ext4_file *f, blk64_t lblk)
{
	return e2v_extent_find(f->extents, f->nr_extents, lblk);
}

errcode_t e2v_ext4_file_map(const struct e2v_ext4_file *f, blk64_t lblk, blk64_t *pblk,
			    blk64_t *run)
{
	const struct e2v_extent *e = e2v_find_extent(f, lblk);

	if (!e || e->lblk > lblk || e->uninit)
		return E2VERITY_ET_CORRUPT;
	*pblk = e->pblk + (lblk - e->lblk);
	if (run)
		*run = e->lblk + e->len - lblk;
	return 0;
}

uint64_t e2v_ext4_next_data(const struct e2v_ext4_file *f, uint64_t offset)
{
	const unsigned int bs = f->fs->blocksize;
	blk64_t lblk = offset / bs;

	for (const struct e2v_extent *e = e2v_find_extent(f, lblk);
	     e && e < f->extents + f->nr_extents; e++) {
		if (e->uninit)
			continue;
		return e->lblk <= lblk ? offset : e->lblk * (uint64_t)bs;
	}
	return UINT64_MAX;
}

blk64_t e2v_ext4_unmapped(const struct e2v_ext4_file *f, blk64_t first, blk64_t end,
			  blk64_t *first_hole)
{
	blk64_t missing = 0, pos = first;

	*first_hole = end;
	for (const struct e2v_extent *e = e2v_find_extent(f, first);
	     pos < end && e && e < f->extents + f->nr_extents; e++) {
		blk64_t start = e->lblk > pos ? e->lblk : pos;
		blk64_t stop = e->lblk + e->len < end ? e->lblk + e->len : end;

		if (start >= end)
			break;
		/* an unwritten extent reads as zeros: as good as a hole */
		if (e->uninit)
			continue;
		if (start > pos) {
			if (!missing)
				*first_hole = pos;
			missing += start - pos;
		}
		pos = stop;
	}
	if (pos < end) {
		if (!missing)
			*first_hole = pos;
		missing += end - pos;
	}
	return missing;
}

errcode_t e2v_pread_all(int fd, void *buf, size_t count, uint64_t pos)
{
	uint8_t *p = buf;

	while (count) {
		ssize_t n = pread(fd, p, count, pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return E2VERITY_ET_SHORT_READ;
		p += n;
		pos += n;
		count -= n;
	}
	return 0;
}

static errcode_t e2v_read_mapped(struct e2v_ext4_file *f, void *buf, size_t count, uint64_t offset)
{
	const unsigned int bs = f->fs->blocksize;
	uint8_t *out = buf;
	errcode_t err;

	while (count) {
		blk64_t lblk = offset / bs;
		size_t in_block = offset % bs;
		const struct e2v_extent *e = e2v_find_extent(f, lblk);
		uint64_t run_blocks, run_bytes;

		if (!e || e->lblk > lblk) {
			/* a hole, up to the next extent */
			run_bytes = e ? (e->lblk - lblk) * bs - in_block : count;
			if (run_bytes > count)
				run_bytes = count;
			memset(out, 0, run_bytes);
		} else if (e->uninit) {
			run_bytes = (e->lblk + e->len - lblk) * bs - in_block;
			if (run_bytes > count)
				run_bytes = count;
			memset(out, 0, run_bytes);
		} else if (f->direct) {
			run_bytes = (e->lblk + e->len - lblk) * bs - in_block;
			if (run_bytes > count)
				run_bytes = count;
			err = e2v_pread_all(f->fd, out, run_bytes,
					    f->base + (e->pblk + (lblk - e->lblk)) * (uint64_t)bs +
						    in_block);
			if (err)
				return err;
		} else if (in_block || count < bs) {
			/* a partial block goes through the bounce buffer */
			if (!e2v_ext4_file_bounce(f))
				return E2VERITY_ET_NO_MEMORY;
			err = io_channel_read_blk64(f->fs->io, e->pblk + (lblk - e->lblk), 1,
						    f->bounce);
			if (err)
				return err;
			run_bytes = bs - in_block < count ? bs - in_block : count;
			memcpy(out, f->bounce + in_block, run_bytes);
		} else {
			/* whole blocks, physically contiguous: one large read */
			run_blocks = e->lblk + e->len - lblk;
			if (run_blocks > count / bs)
				run_blocks = count / bs;
			err = io_channel_read_blk64(f->fs->io, e->pblk + (lblk - e->lblk),
						    run_blocks, out);
			if (err)
				return err;
			run_bytes = run_blocks * bs;
		}
		out += run_bytes;
		offset += run_bytes;
		count -= run_bytes;
	}
	return 0;
}

/* Metadata regions up to this size are read in one go when reading directly */
#define E2V_META_WHOLE (256u << 10)

/*
 * The bytes [@offset, @offset + @count) in *@bytes when they lie in the
 * metadata region of a file read directly, which is read whole at its first
 * use: its size word, descriptor and tree come from one read instead of three.
 * *@bytes NULL: read them as usual.
 */
/*
 * The metadata region [@start, @end) of @f when it is read whole at its first
 * use (read directly, and small): 1, else 0
 */
static int e2v_meta_whole(const struct e2v_ext4_file *f, uint64_t *start, uint64_t *end)
{
	const struct e2v_extent *last = e2v_ext4_last_extent(f);

	*start = e2v_round_up(f->size, E2VERITY_EXT4_METADATA_ALIGN);
	if (!f->direct || !last)
		return 0;
	*end = (last->lblk + last->len) * (uint64_t)f->fs->blocksize;
	return *end > *start && *end - *start <= E2V_META_WHOLE;
}

static errcode_t e2v_meta_region(struct e2v_ext4_file *f, uint64_t offset, size_t count,
				 const uint8_t **bytes)
{
	uint64_t start, end;
	errcode_t err;

	*bytes = NULL;
	if (!e2v_meta_whole(f, &start, &end) || offset < start || offset > end ||
	    count > end - offset)
		return 0;
	if (!f->meta) {
		f->meta_buf = malloc(end - start);
		if (!f->meta_buf)
			return 0; /* read it piecemeal */
		err = 0;
		if (f->preload && f->preload_len == end - start)
			memcpy(f->meta_buf, f->preload, end - start);
		else
			err = e2v_read_mapped(f, f->meta_buf, end - start, start);
		if (err) {
			free(f->meta_buf);
			f->meta_buf = NULL;
			return err;
		}
		f->meta = f->meta_buf;
	}
	*bytes = f->meta + (offset - start);
	return 0;
}

int e2v_ext4_meta_span(const struct e2v_ext4_file *f, uint64_t *pos, size_t *len)
{
	const unsigned int bs = f->fs->blocksize;
	const struct e2v_extent *last = e2v_ext4_last_extent(f);
	uint64_t start, end;

	/* what e2v_meta_region() reads whole, and in the last extent alone */
	if (!e2v_meta_whole(f, &start, &end) || last->uninit || start < last->lblk * (uint64_t)bs)
		return 0;
	*pos = f->base + (last->pblk + (start / bs - last->lblk)) * (uint64_t)bs;
	*len = end - start;
	return 1;
}

errcode_t e2v_ext4_file_read(struct e2v_ext4_file *f, void *buf, size_t count, uint64_t offset)
{
	const uint8_t *bytes;
	errcode_t err = e2v_meta_region(f, offset, count, &bytes);

	if (err || !bytes)
		return err ? err : e2v_read_mapped(f, buf, count, offset);
	memcpy(buf, bytes, count);
	return 0;
}

errcode_t e2v_verity_meta_read(struct e2v_ext4_file *f, struct e2v_verity_meta *m)
{
	const unsigned int bs = f->fs->blocksize;
	const struct e2v_extent *last = e2v_ext4_last_extent(f);
	uint8_t word[4];
	uint64_t end;
	errcode_t err;

	memset(m, 0, sizeof(*m));
	if (!last)
		return E2VERITY_ET_NO_DESCRIPTOR;
	/* the kernel counts an unwritten last extent too; its size word reads 0 */
	end = (last->lblk + last->len) * (uint64_t)bs;
	err = e2v_ext4_file_read(f, word, sizeof(word), end - 4);
	if (err)
		return err;
	err = e2v_ext4_locate(f->size, end, e2v_get_le32(word), bs, &m->layout);
	if (err)
		return err;
	m->raw = malloc(m->layout.desc_size);
	if (!m->raw)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_ext4_file_read(f, m->raw, m->layout.desc_size, m->layout.desc_pos);
	if (err)
		return err;
	err = e2verity_descriptor_decode(m->raw, m->layout.desc_size, &m->desc);
	if (err)
		return err;
	m->sig = m->desc.sig_size ? m->raw + E2VERITY_DESCRIPTOR_SIZE : NULL;
	return 0;
}

void e2v_verity_meta_free(struct e2v_verity_meta *m)
{
	free(m->raw);
	m->raw = NULL;
	m->sig = NULL;
}
