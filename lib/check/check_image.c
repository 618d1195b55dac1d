// SPDX-License-Identifier: GPL-2.0-or-later
/* check_image.c - find every inode with the verity flag and check each */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_inode.h"
#include "ext4/image.h"
#include "ext4/past_eof.h"
#include "ext4/verity_inodes.h"

/*
 * The hashing thread's part of the batch's preparing: the tree parameters
 * the descriptor names, read from the image as the data is (the caller's
 * thread does the libext2fs part only, and takes these bytes rather than
 * read them again).
 */
static errcode_t e2v_check_finish_ahead(const void *ctx, struct e2v_ahead_job *j)
{
	const struct e2verity_check_opts *opts = ctx;
	struct e2v_ext4_file f = {
		.fs = j->fs,
		.size = j->size,
		.extents = j->extents,
		.nr_extents = j->nr_extents,
	};
	struct e2v_verity_meta m;
	errcode_t err;

	e2v_ahead_reader(j, &f);
	/* what the kernel would not open is for the caller's thread to diagnose */
	err = e2v_verity_meta_read(&f, &m);
	if (!err && m.desc.data_size != j->size)
		err = E2VERITY_ET_CORRUPT;
	if (err)
		goto out;
	j->params = (struct e2verity_params){
		.hash_alg = m.desc.hash_algorithm,
		.block_size = 1u << m.desc.log_blocksize,
		.salt = j->salt,
		.salt_size = m.desc.salt_size,
	};
	err = e2verity_params_validate(&j->params);
	if (err)
		goto out;
	memcpy(j->salt, m.desc.salt, m.desc.salt_size);
	/* read once: the caller's thread takes it rather than read it again */
	j->meta = f.meta;
	j->meta_buf = f.meta_buf;
	f.meta = NULL;
	f.meta_buf = NULL;
	/*
	 * The signature is judged here too (an RSA verification costs more
	 * than hashing a small file); the caller's thread takes the verdict if
	 * it reads the same descriptor and bytes.
	 */
	if (m.sig && (opts->verifier || (!opts->certfile && !opts->cafile)) &&
	    !e2verity_descriptor_digest(&m.desc, j->verify_digest)) {
		j->sig = malloc(m.desc.sig_size);
		if (j->sig) {
			memcpy(j->sig, m.sig, m.desc.sig_size);
			j->sig_size = m.desc.sig_size;
			j->verify_alg = m.desc.hash_algorithm;
			j->verifier = opts->verifier;
			j->verify = 1;
		}
	}
out:
	e2v_verity_meta_free(&m);
	free(f.meta_buf);
	return err;
}

/* The libext2fs part of the batch's preparing: the inode and its extents. */
static errcode_t e2v_check_prepare_ahead(void *ctx, ext2_filsys fs, struct e2v_ahead_job *j)
{
	const struct e2verity_check_opts *opts = ctx;
	struct e2v_ext4_file f;
	errcode_t err;

	err = e2v_ext4_file_open_in(fs, e2v_owners_zone(opts->owners), j->ino, &f);
	if (err)
		return err;
	if (f.inode.i_flags & EXT4_VERITY_FL) {
		j->size = f.size;
		j->extents = f.extents;
		j->nr_extents = f.nr_extents;
		f.extents = NULL;
		/* check opens it again from these rather than read and checksum it twice */
		if (!f.fault.problem) {
			j->inode = f.inode;
			j->tree_node_blocks = f.tree_node_blocks;
			j->last_leaf_empty = f.last_leaf_empty;
			j->opened = 1;
		}
		j->finish = e2v_check_finish_ahead;
		j->finish_ctx = opts;
	} else {
		err = E2VERITY_ET_NOT_SEALED;
	}
	e2v_ext4_file_close(&f);
	return err;
}

errcode_t e2verity_check_image(ext2_filsys fs, const struct e2verity_check_opts *opts,
			       struct e2verity_check_stats *stats)
{
	struct e2verity_batch *batch = NULL;
	struct e2verity_verifier *own = NULL;
	struct e2verity_ima_verifier *own_ima = NULL;
	struct e2verity_owners *own_map = NULL;
	struct e2verity_check_opts o;
	ext2_ino_t *inos = NULL;
	uint64_t *sizes = NULL;
	uint64_t total = 0, done = 0;
	size_t n;
	errcode_t err;

	if (!e2v_all_zero(opts->reserved, sizeof(opts->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	/* the certificates once for every file, and a wrong one said even when no file is signed */
	o = *opts;
	if (!o.verifier && (o.certfile || o.cafile)) {
		err = e2verity_verifier_load(o.certfile, o.cafile, e2v_image_log(fs)->fn,
					     e2v_image_log(fs)->ctx, &own);
		if (err)
			return err;
		o.verifier = own;
	}
	if (!o.ima_verifier && o.ima_certfile) {
		err = e2verity_ima_verifier_load(o.ima_certfile, e2v_image_log(fs)->fn,
						 e2v_image_log(fs)->ctx, &own_ima);
		if (err)
			goto out;
		o.ima_verifier = own_ima;
	}
	opts = &o;
	/* the sizes too, so that progress is a share of the whole image's data */
	err = e2v_list_verity(fs, 1, &inos, &sizes, &n);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++)
		total += sizes[i];
	/*
	 * One scan of every inode proves every file's blocks past EOF its own.
	 * Bitmaps that cannot be read leave the damaged files only to be proven,
	 * each with a scan of its own: the files are checked all the same.
	 */
	if (n && !o.owners) {
		err = e2verity_owners_scan(fs, &own_map);
		if (err == E2VERITY_ET_NO_MEMORY || err == EXT2_ET_NO_MEMORY)
			goto out;
		o.owners = own_map;
	}
	/* small files are hashed a few files ahead, on other threads, as seal does */
	err = e2v_ahead_new(fs, inos, n, opts->threads.count, e2v_check_prepare_ahead, (void *)opts,
			    &batch);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (o.cancel && *o.cancel) {
			err = E2VERITY_ET_CANCELLED;
			goto out;
		}
		err = e2v_check_one(fs, inos[i], opts, stats, done, total, batch);
		if (err)
			goto out;
		done += sizes[i];
	}
out:
	e2v_ahead_free(batch);
	e2verity_owners_free(own_map);
	free(inos);
	free(sizes);
	e2verity_verifier_free(own);
	e2verity_ima_verifier_free(own_ima);
	return err;
}
