// SPDX-License-Identifier: GPL-2.0-or-later
/* measure.c - a sealed inode's digest from its stored descriptor, as FS_IOC_MEASURE_VERITY */
#include "config.h"

#include <string.h>

#include "measure.h"

/*
 * Opens a sealed inode and decodes its metadata as the kernel does when it
 * opens a verity file: located by the size word, every field valid, data_size
 * equal to i_size.
 */
errcode_t e2v_open_sealed(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
			  struct e2v_ext4_file *f, struct e2v_verity_meta *m)
{
	struct ext2_inode inode;
	errcode_t err;

	memset(m, 0, sizeof(*m));
	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (!(inode.i_flags & EXT4_VERITY_FL))
		return E2VERITY_ET_NOT_SEALED;
	err = e2v_ext4_file_open_in(fs, zone, ino, f);
	if (err)
		return err;
	err = e2v_verity_meta_read(f, m);
	if (!err && m->desc.data_size != f->size)
		err = E2VERITY_ET_CORRUPT;
	if (err) {
		e2v_verity_meta_free(m);
		e2v_ext4_file_close(f);
	}
	return err;
}

errcode_t e2verity_measure_inode(ext2_filsys fs, ext2_ino_t ino, struct e2verity_measurement *m)
{
	struct e2v_ext4_file f;
	struct e2v_verity_meta meta;
	errcode_t err;

	memset(m, 0, sizeof(*m));
	err = e2v_open_sealed(fs, NULL, ino, &f, &meta);
	if (err)
		return err;
	m->desc = meta.desc;
	m->layout = meta.layout;
	m->digest_size = e2verity_hash_alg_by_num(meta.desc.hash_algorithm)->digest_size;
	err = e2verity_descriptor_digest(&meta.desc, m->digest);
	e2v_verity_meta_free(&meta);
	e2v_ext4_file_close(&f);
	return err;
}
