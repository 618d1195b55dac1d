/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal.h - internal: what sealing's write steps (seal_write.c) share with its checks */
#ifndef E2VERITY_SEAL_H
#define E2VERITY_SEAL_H

#include "ext4/ext4_file.h"

/* the data source of e2verity_compute(), reporting progress */
struct e2v_seal_reader {
	struct e2v_ext4_file *f;
	const struct e2verity_seal_opts *opts;
};

/* an e2verity_read_fn over the file, honouring the options' cancel flag and progress */
errcode_t e2v_seal_read(void *ctx, void *buf, size_t count, uint64_t offset);
/* its e2verity_seek_data_fn: the holes of the file are not read */
errcode_t e2v_seal_seek(void *ctx, uint64_t offset, uint64_t *data);

#endif /* E2VERITY_SEAL_H */
