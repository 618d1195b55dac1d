// SPDX-License-Identifier: GPL-2.0-or-later
/* read_metadata.c - stored tree, descriptor or signature, as FS_IOC_READ_VERITY_METADATA */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "core/descriptor.h"
#include "measure.h"

errcode_t e2verity_read_metadata(ext2_filsys fs, ext2_ino_t ino, unsigned int type, uint64_t offset,
				 void *buf, size_t len, size_t *got)
{
	struct e2verity_params p = { 0 };
	struct e2verity_geometry g;
	struct e2v_ext4_file f;
	struct e2v_verity_meta m;
	uint8_t desc[E2VERITY_DESCRIPTOR_SIZE];
	uint64_t size;
	blk64_t hole;
	errcode_t err;

	*got = 0;
	err = e2v_open_sealed(fs, NULL, ino, &f, &m);
	if (err)
		return err;
	switch (type) {
	case E2VERITY_METADATA_MERKLE_TREE:
		p.hash_alg = m.desc.hash_algorithm;
		p.block_size = 1u << m.desc.log_blocksize;
		err = e2verity_geometry(&p, m.desc.data_size, &g);
		if (err)
			goto out;
		size = g.tree_size;
		/* a tree past the descriptor, or in holes, is a size the image only claims */
		if (size > m.layout.desc_pos - m.layout.merkle_pos ||
		    e2v_ext4_unmapped(&f, m.layout.merkle_pos / fs->blocksize,
				      e2v_div_round_up(m.layout.merkle_pos + size, fs->blocksize),
				      &hole)) {
			err = E2VERITY_ET_CORRUPT;
			goto out;
		}
		break;
	case E2VERITY_METADATA_DESCRIPTOR:
		size = E2VERITY_DESCRIPTOR_SIZE;
		break;
	case E2VERITY_METADATA_SIGNATURE:
		if (!m.sig) {
			err = E2VERITY_ET_NO_SIGNATURE;
			goto out;
		}
		size = m.desc.sig_size;
		break;
	default:
		err = EINVAL;
		goto out;
	}
	if (offset >= size)
		goto out;
	if (len > size - offset)
		len = size - offset;
	switch (type) {
	case E2VERITY_METADATA_MERKLE_TREE:
		err = e2v_ext4_file_read(&f, buf, len, m.layout.merkle_pos + offset);
		break;
	case E2VERITY_METADATA_DESCRIPTOR:
		/* as the kernel returns it: sig_size is ext4 storage, not descriptor */
		memcpy(desc, m.raw, sizeof(desc));
		e2v_descriptor_clear_sig_size(desc);
		memcpy(buf, desc + offset, len);
		break;
	case E2VERITY_METADATA_SIGNATURE:
		memcpy(buf, m.sig + offset, len);
		break;
	}
	if (!err)
		*got = len;
out:
	e2v_verity_meta_free(&m);
	e2v_ext4_file_close(&f);
	return err;
}
