// SPDX-License-Identifier: GPL-2.0-or-later
/* measure.c - a sealed inode's digest from its stored descriptor, as FS_IOC_MEASURE_VERITY */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure.h"
#include "block_validity.h"

/* Opens inode @ino, which must have the verity flag, to read its extents */
static errcode_t e2v_open_verity(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
				 struct e2v_ext4_file *f)
{
	struct ext2_inode_large inode;
	errcode_t err;

	/* read once: the open takes it from here */
	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(&inode), sizeof(inode));
	if (err)
		return err;
	if (!(inode.i_flags & EXT4_VERITY_FL))
		return E2VERITY_ET_NOT_SEALED;
	return e2v_ext4_file_open_inode(fs, zone, ino, &inode, f);
}

/*
 * Decodes the metadata of @f, opened, as the kernel does when it opens a
 * verity file: located by the size word, every field valid, data_size equal
 * to i_size.  On an error @m is freed.
 */
static errcode_t e2v_read_sealed(struct e2v_ext4_file *f, struct e2v_verity_meta *m)
{
	errcode_t err;

	memset(m, 0, sizeof(*m));
	err = e2v_verity_meta_read(f, m);
	if (!err && m->desc.data_size != f->size)
		err = E2VERITY_ET_CORRUPT;
	if (err)
		e2v_verity_meta_free(m);
	return err;
}

errcode_t e2v_open_sealed(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
			  struct e2v_ext4_file *f, struct e2v_verity_meta *m)
{
	errcode_t err;

	memset(m, 0, sizeof(*m));
	err = e2v_open_verity(fs, zone, ino, f);
	if (err)
		return err;
	err = e2v_read_sealed(f, m);
	if (err)
		e2v_ext4_file_close(f);
	return err;
}

/* The measurement of @f, opened: its descriptor decoded as the kernel does, and its digest */
static errcode_t e2v_measure_file(struct e2v_ext4_file *f, struct e2verity_measurement *m)
{
	struct e2v_verity_meta meta;
	errcode_t err;

	memset(m, 0, sizeof(*m));
	err = e2v_read_sealed(f, &meta);
	if (err)
		return err;
	m->desc = meta.desc;
	m->layout = meta.layout;
	m->digest_size = e2verity_hash_alg_by_num(meta.desc.hash_algorithm)->digest_size;
	err = e2verity_descriptor_digest(&meta.desc, m->digest);
	e2v_verity_meta_free(&meta);
	return err;
}

errcode_t e2verity_measure_inode(ext2_filsys fs, ext2_ino_t ino, struct e2verity_measurement *m)
{
	struct e2v_ext4_file f;
	errcode_t err;

	memset(m, 0, sizeof(*m));
	err = e2v_open_verity(fs, NULL, ino, &f);
	if (err)
		return err;
	err = e2v_measure_file(&f, m);
	e2v_ext4_file_close(&f);
	return err;
}

/*
 * A batch: this many files opened at once, their metadata regions read in
 * runs of at most E2V_RUN_MAX bytes that skip at most E2V_RUN_GAP bytes
 * between two regions.  A small sealed file's descriptor is one block of its
 * own: a read each is most of the work of measuring (one pread() of 4 KiB
 * costs about what decoding and hashing the descriptor do).
 */
#define E2V_BATCH_FILES 4096
#define E2V_RUN_MAX (1u << 20)
#define E2V_RUN_GAP (64u << 10)

struct e2v_measure_slot {
	struct e2v_ext4_file f;
	size_t idx;    /* into the caller's arrays */
	uint64_t pos;  /* the metadata region in the image file */
	size_t len;    /* its bytes; 0: read as usual */
	errcode_t err; /* of the open */
};

static int e2v_slot_pos_cmp(const void *a, const void *b)
{
	const struct e2v_measure_slot *x = *(const struct e2v_measure_slot *const *)a;
	const struct e2v_measure_slot *y = *(const struct e2v_measure_slot *const *)b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Opens inode @ino as e2v_open_sealed() does, to be read from @fd at @base */
static void e2v_measure_open(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
			     int fd, uint64_t base, struct e2v_measure_slot *s)
{
	s->err = e2v_open_verity(fs, zone, ino, &s->f);
	if (s->err)
		return;
	if (e2v_ext4_file_read_direct(&s->f, fd, base) &&
	    !e2v_ext4_meta_span(&s->f, &s->pos, &s->len))
		s->len = 0;
}

/* Measures the opened file of @s, hands the result to @fn and closes it */
static void e2v_measure_done(struct e2v_measure_slot *s, e2verity_measure_fn fn, void *ctx)
{
	struct e2verity_measurement m;
	errcode_t err = e2v_measure_file(&s->f, &m);

	e2v_ext4_file_close(&s->f);
	fn(ctx, s->idx, err, &m);
}

/* Measures the opened files @v[0..@n) (sorted by position), reading their regions in runs */
static void e2v_measure_runs(struct e2v_measure_slot **v, size_t n, int fd, uint8_t *buf,
			     e2verity_measure_fn fn, void *ctx)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i + 1;
		uint64_t from = v[i]->pos, to = v[i]->pos + v[i]->len;

		/* regions may overlap (two names of one inode): each points into the run */
		while (j < n && v[j]->pos <= to + E2V_RUN_GAP &&
		       (v[j]->pos + v[j]->len > to ? v[j]->pos + v[j]->len : to) - from <=
			       E2V_RUN_MAX) {
			if (v[j]->pos + v[j]->len > to)
				to = v[j]->pos + v[j]->len;
			j++;
		}
		/*
		 * Each file's region is its bytes in the run (read whole, as
		 * e2v_meta_region() would, and not copied); after a failed read
		 * each reads its own, as usual, and meets the error itself
		 */
		if (!e2v_pread_all(fd, buf, to - from, from)) {
			for (size_t k = i; k < j; k++)
				v[k]->f.meta = buf + (v[k]->pos - from);
		}
		for (size_t k = i; k < j; k++)
			e2v_measure_done(v[k], fn, ctx);
		i = j;
	}
}

errcode_t e2verity_measure_inodes(ext2_filsys fs, const ext2_ino_t *inos, size_t count,
				  e2verity_measure_fn fn, void *ctx)
{
	struct e2v_measure_slot *slots = NULL, **order = NULL;
	struct e2v_system_zone *zone = NULL;
	struct e2verity_measurement m;
	uint8_t *buf = NULL;
	uint64_t base = 0;
	size_t cap = count < E2V_BATCH_FILES ? count : E2V_BATCH_FILES;
	int fd = -1;
	errcode_t err = 0;

	/* a writer's changes may still be in libext2fs' cache: read through it */
	if (!(fs->flags & EXT2_FLAG_RW) && count > 1)
		fd = e2v_fs_image_fd(fs, &base);
	if (fd < 0) {
		for (size_t i = 0; i < count; i++) {
			err = e2verity_measure_inode(fs, inos[i], &m);
			fn(ctx, i, err, &m);
		}
		return 0;
	}
	slots = calloc(cap, sizeof(*slots));
	order = calloc(cap, sizeof(*order));
	buf = malloc(E2V_RUN_MAX);
	if (!slots || !order || !buf) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	/*
	 * One system zone for them all: made for each file, as one file's open
	 * does, it was a third of the work of measuring a small file
	 */
	if (e2v_system_zone_build(fs, &zone))
		zone = NULL;
	for (size_t start = 0; start < count; start += cap) {
		size_t k = count - start < cap ? count - start : cap, n = 0;

		for (size_t i = 0; i < k; i++) {
			struct e2v_measure_slot *s = &slots[i];

			memset(s, 0, sizeof(*s));
			s->idx = start + i;
			e2v_measure_open(fs, zone, inos[start + i], fd, base, s);
			if (s->err) {
				memset(&m, 0, sizeof(m));
				fn(ctx, s->idx, s->err, &m);
			} else if (!s->len) {
				/* its region is not one read: as usual */
				e2v_measure_done(s, fn, ctx);
			} else {
				order[n++] = s;
			}
		}
		qsort(order, n, sizeof(*order), e2v_slot_pos_cmp);
		e2v_measure_runs(order, n, fd, buf, fn, ctx);
	}
out:
	e2v_system_zone_free(zone);
	free(buf);
	free(order);
	free(slots);
	close(fd);
	return err;
}
