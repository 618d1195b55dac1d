// SPDX-License-Identifier: GPL-2.0-or-later
/* seal_write.c - seal one inode in steps: prepare, write the metadata, commit, or roll back */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/merkle.h"
#include "ext4/ahead.h"
#include "ext4/extent_renew.h"
#include "ima_xattr.h"
#include "txn/orphan.h"
#include "ext4/past_eof.h"
#include "ext4/punch.h"
#include "seal.h"
#include "seal_blocks.h"
#include "seal_quota.h"
#include "ext4/layout.h"
#include "txn/txn.h"
#include "txn/txn_io.h"

/* the extents i_block holds at depth 0, after the header */
#define E2V_ROOT_EXTENTS                                                                           \
	((sizeof(((struct ext2_inode *)0)->i_block) - sizeof(struct ext3_extent_header)) /         \
	 sizeof(struct ext3_extent))

/* every block the file holds: data, metadata and extent tree nodes */
static blk64_t e2v_file_blocks(const struct e2v_ext4_file *f)
{
	blk64_t n = f->tree_node_blocks;

	for (size_t i = 0; i < f->nr_extents; i++)
		n += f->extents[i].len;
	return n;
}

/* Writes the descriptor, the signature and the size word: [desc_pos, end). */
static errcode_t e2v_write_descriptor(struct e2v_tree_writer *w,
				      const struct e2verity_ext4_layout *l,
				      const struct e2verity_descriptor *d, const uint8_t *sig)
{
	size_t len = l->end - l->desc_pos;
	uint8_t *buf;
	errcode_t err;

	buf = calloc(1, len);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	e2verity_descriptor_encode(d, buf);
	if (d->sig_size)
		memcpy(buf + E2VERITY_DESCRIPTOR_SIZE, sig, d->sig_size);
	e2v_put_le32(buf + len - 4, l->desc_size);
	/* with the tree's last blocks: one write for a small file's whole metadata */
	err = e2v_tree_writer_bytes(w, buf, len, l->desc_pos);
	free(buf);
	return err ? err : e2v_tree_writer_flush(w);
}

/*
 * Sets the verity feature before the first inode carries the flag: a
 * transaction's commit writes the superblock before the inode tables.
 */
static errcode_t e2v_set_feature(ext2_filsys fs)
{
	if (ext2fs_has_feature_verity(fs->super))
		return 0;
	ext2fs_set_feature_verity(fs->super);
	return e2v_write_super(fs);
}

/* One inode being sealed: what each step hands to the next, and what a rollback undoes */
struct e2v_sealing {
	ext2_filsys fs;
	ext2_ino_t ino;
	const struct e2verity_seal_opts *opts;
	const struct e2v_ahead_job *job;
	struct e2verity_seal_plan plan;
	struct e2verity_params p;
	struct e2v_ext4_file f;
	struct e2v_tree_writer w;
	struct e2verity_result r;
	uint8_t *own_sig;
	blk64_t meta_first, before, inline_blocks, iblocks_before;
	uint32_t orig_flags;
	int allocating, orphan;
	int plan_from_job; /* @plan is the job's, made when it was queued */
	/* security.ima: the value to write, or the digest an old one signs (E2VERITY_IMA_REMOVE) */
	uint8_t *ima_value;
	size_t ima_len;
	uint8_t old_digest[E2VERITY_MAX_DIGEST_SIZE];
	int have_old_digest;
};

/* The digest a resealed file had: a security.ima signing it stays if the new one is the same */
static void e2v_note_old_digest(struct e2v_sealing *s)
{
	struct e2v_verity_meta m;

	if (s->plan.ima != E2VERITY_IMA_REMOVE || !(s->f.inode.i_flags & EXT4_VERITY_FL))
		return;
	if (!e2v_verity_meta_read(&s->f, &m) && !e2verity_descriptor_digest(&m.desc, s->old_digest))
		s->have_old_digest = m.desc.hash_algorithm == s->p.hash_alg;
	e2v_verity_meta_free(&m);
}

/* The value's key id, for the result */
static uint32_t e2v_value_key_id(const uint8_t *value, size_t len)
{
	struct e2verity_ima_sig h;

	return e2verity_ima_parse(value, len, &h) ? 0 : h.key_id;
}

/* security.ima signed now that the digest is known: a failure leaves the file unsealed */
static errcode_t e2v_seal_sign_ima(struct e2v_sealing *s, const uint8_t *digest)
{
	const struct e2verity_seal_opts *opts = s->opts;
	size_t max = opts->ima_size_max ? opts->ima_size_max : E2VERITY_IMA_MAX_SIZE;
	errcode_t err;

	if (!opts->ima_sign || s->plan.ima == E2VERITY_IMA_KEEP)
		return 0;
	/* signed on the hashing thread, beside the tree (the digest is the same: it is its tree's) */
	if (s->job && s->job->ima_value && e2v_ahead_matches(s->job, &s->p, s->plan.data_size) &&
	    s->plan.action != E2VERITY_SEAL_SKIP) {
		s->ima_value = malloc(s->job->ima_len);
		if (!s->ima_value)
			return E2VERITY_ET_NO_MEMORY;
		memcpy(s->ima_value, s->job->ima_value, s->job->ima_len);
		s->ima_len = s->job->ima_len;
		err = 0;
	} else {
		err = opts->ima_sign(opts->ima_ctx, s->p.hash_alg, digest, &s->ima_value,
				     &s->ima_len);
	}
	if (err)
		return err;
	/* the space check counted with the bound */
	if (!s->ima_len || s->ima_len > max)
		return E2VERITY_ET_SIG_TOO_LARGE;
	return 0;
}

/* Writes, replaces or removes security.ima, after the inode (it rewrites the inode itself). */
static errcode_t e2v_seal_put_ima(struct e2v_sealing *s, const uint8_t *digest,
				  struct e2verity_seal_result *res)
{
	const unsigned int ds = e2verity_hash_alg_by_num(s->p.hash_alg)->digest_size;
	errcode_t err;

	if (s->ima_value) {
		err = e2v_ima_store(s->fs, s->opts->owners, s->ino, s->ima_value, s->ima_len);
		if (err)
			return err;
		res->ima = s->plan.ima;
		res->ima_key_id = e2v_value_key_id(s->ima_value, s->ima_len);
	} else if (s->plan.ima == E2VERITY_IMA_REMOVE &&
		   !(s->have_old_digest && memcmp(s->old_digest, digest, ds) == 0)) {
		err = e2v_ima_store(s->fs, s->opts->owners, s->ino, NULL, 0);
		if (err)
			return err;
		res->ima = E2VERITY_IMA_REMOVE;
	}
	return 0;
}

/* A file sealed already: only its security.ima is written, or the one it has is kept */
static errcode_t e2v_seal_ima_only(struct e2v_sealing *s, struct e2verity_seal_result *res)
{
	uint8_t *cur;
	size_t len;
	errcode_t err;

	if (s->plan.ima == E2VERITY_IMA_KEEP) {
		res->ima = E2VERITY_IMA_KEEP;
		if (!e2verity_ima_get(s->fs, s->ino, &cur, &len)) {
			res->ima_key_id = e2v_value_key_id(cur, len);
			free(cur);
		}
		return 0;
	}
	if (s->plan.ima != E2VERITY_IMA_WRITE && s->plan.ima != E2VERITY_IMA_REPLACE)
		return 0;
	if (!(s->fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (!s->fs->block_map) {
		err = ext2fs_read_block_bitmap(s->fs);
		if (err)
			return err;
	}
	s->p.hash_alg = s->plan.desc.hash_algorithm;
	err = e2v_seal_sign_ima(s, s->plan.digest);
	return err ? err : e2v_seal_put_ima(s, s->plan.digest, res);
}

/*
 * Prepare: the inode in extents, unflagged, on the orphan list, with nothing
 * past its data and zeros after EOF in its last block.
 */
static errcode_t e2v_seal_begin(struct e2v_sealing *s, struct e2verity_seal_result *res)
{
	ext2_filsys fs = s->fs;
	struct ext2_inode *in = EXT2_INODE(&s->f.inode);
	errcode_t err;

	if (!fs->block_map) {
		err = ext2fs_read_block_bitmap(fs);
		if (err)
			return err;
	}
	e2verity_params_validate(&s->p);
	err = ext2fs_read_inode(fs, s->ino, in);
	if (err)
		return err;
	s->iblocks_before = ext2fs_get_stat_i_blocks(fs, in);
	/* each write reaches the image in program order: metadata, then the flagged inode */
	fs->io->flags |= CHANNEL_FLAGS_WRITETHROUGH;
	if (e2v_txn_unjournaled(fs)) {
		err = e2v_extent_tree_renew(fs, s->ino, in);
		if (err)
			return err;
	}

	if (s->plan.inline_data) {
		const blk64_t acl = ext2fs_file_acl_block(fs, in);

		err = e2v_move_inline_data(fs, s->ino, &s->f, &s->inline_blocks);
		res->inline_moved = !err;
		/*
		 * Dropping system.data rewrote the attributes: from a shared block,
		 * libext2fs lowered its count and gave the file a block of its own.
		 * The next file of the run that names the old one counts one less.
		 */
		if (!err && acl && s->opts->owners &&
		    ext2fs_file_acl_block(fs, EXT2_INODE(&s->f.inode)) != acl)
			e2v_owners_xattr_left(s->opts->owners, acl, s->ino);
	} else {
		err = e2v_ext4_file_open_in(fs, e2v_owners_zone(s->opts->owners), s->ino, &s->f);
	}
	if (err)
		return err;
	s->orig_flags = in->i_flags & ~EXT4_VERITY_FL;
	/* a file being resealed is never flagged while its metadata is half written */
	in->i_flags &= ~EXT4_VERITY_FL;
	e2v_note_old_digest(s);
	err = e2v_orphan_add(fs, s->ino, in);
	if (err)
		return err;
	s->orphan = 1;
	s->before = e2v_file_blocks(&s->f);
	err = e2v_punch_from(&s->f, e2v_div_round_up(s->plan.data_size, fs->blocksize));
	if (err)
		return err;
	res->blocks_freed = s->before - e2v_file_blocks(&s->f);
	s->before = e2v_file_blocks(&s->f);
	/* a thread hashing ahead may have looked already */
	if (s->job && s->job->tail_zero && s->job->size == s->plan.data_size) {
		res->tail_zeroed = 0;
		return 0;
	}
	return e2v_zero_tail(&s->f, &res->tail_zeroed);
}

/* Write the metadata: the Merkle tree, then the descriptor, signature and size word. */
static errcode_t e2v_seal_write_metadata(struct e2v_sealing *s, struct e2verity_seal_result *res)
{
	const struct e2verity_seal_opts *opts = s->opts;
	const unsigned int bs = s->fs->blocksize;
	const struct e2verity_seal_plan *plan = &s->plan;
	struct e2v_seal_reader rd = { &s->f, opts };
	const struct e2v_extent *last;
	const uint8_t *sig = NULL;
	size_t sig_size = 0;
	blk64_t tree_end;
	int ahead;
	errcode_t err;

	/*
	 * Without a signer the whole layout is known: one allocation.  A signer
	 * sizes the descriptor region only once the digest is known, so the
	 * tree region comes first and the descriptor region joins it after.
	 * No block needs zeroing: the tree writer and the descriptor write
	 * cover every allocated block whole, padding included.
	 */
	s->meta_first = plan->layout.merkle_pos / bs;
	tree_end = e2v_div_round_up(plan->layout.merkle_pos + plan->geo.tree_size, bs);
	if (!opts->sign) {
		sig = opts->sig;
		sig_size = opts->sig ? opts->sig_size : 0;
	}
	err = e2v_ext4_layout(plan->data_size, plan->geo.tree_size, sig_size, bs, &res->layout);
	if (err)
		return err;
	s->allocating = 1;
	err = e2v_alloc_range(&s->f, s->meta_first,
			      (opts->sign ? tree_end : res->layout.end / bs) - s->meta_first, 0);
	if (err)
		return err;
	err = e2v_tree_writer_init(&s->w, &s->f, plan->layout.merkle_pos, plan->geo.tree_size);
	if (err)
		return err;
	ahead = e2v_ahead_matches(s->job, &s->p, plan->data_size);
	if (ahead) {
		err = e2v_ahead_replay(s->job, e2v_tree_writer_block, &s->w, &s->r);
		if (!err && opts->progress)
			opts->progress(opts->progress_ctx, plan->data_size, plan->data_size);
	} else {
		err = e2v_compute_keep(&s->p, plan->data_size, e2v_seal_read, e2v_seal_seek, &rd,
				       e2v_tree_writer_block, &s->w, &s->r, NULL);
	}
	if (err)
		return err;
	if (opts->sign) {
		if (ahead && s->job->sig) {
			/* signed on the hashing thread */
			s->own_sig = malloc(s->job->sig_size);
			err = s->own_sig ? 0 : E2VERITY_ET_NO_MEMORY;
			if (!err)
				memcpy(s->own_sig, s->job->sig, s->job->sig_size);
			sig_size = s->job->sig_size;
		} else {
			err = opts->sign(opts->sign_ctx, s->p.hash_alg, s->r.digest, &s->own_sig,
					 &sig_size);
		}
		if (err)
			return err;
		sig = s->own_sig;
		err = e2v_ext4_layout(plan->data_size, s->r.geo.tree_size, sig_size, bs,
				      &res->layout);
		if (!err)
			err = e2v_alloc_range(&s->f, tree_end, res->layout.end / bs - tree_end, 1);
		if (err)
			return err;
	}
	err = e2v_seal_sign_ima(s, s->r.digest);
	if (err)
		return err;
	s->r.desc.sig_size = sig_size;
	err = e2v_write_descriptor(&s->w, &res->layout, &s->r.desc, sig);
	if (err)
		return err;
	/* the kernel finds the descriptor through the last extent: it must end at the size word */
	last = e2v_ext4_last_extent(&s->f);
	if (!last || last->uninit || (last->lblk + last->len) * bs != res->layout.end)
		return E2VERITY_ET_CORRUPT;
	return 0;
}

/* Commit: the feature, then the inode off the orphan list with the verity flag. */
static errcode_t e2v_seal_commit(struct e2v_sealing *s, struct e2verity_seal_result *res)
{
	struct ext2_inode *in = EXT2_INODE(&s->f.inode);
	errcode_t err;

	err = e2v_set_feature(s->fs);
	if (err)
		return err;
	/* nothing above changes i_size; set it anyway, never through ext2fs_file_set_size2() */
	err = ext2fs_inode_size_set(s->fs, in, s->plan.data_size);
	if (err)
		return err;
	err = e2v_orphan_del(s->fs, s->ino, in);
	if (err)
		return err;
	s->orphan = 0;
	in->i_flags |= EXT4_VERITY_FL;
	if (s->opts->flags & E2VERITY_SEAL_IMMUTABLE)
		in->i_flags |= EXT2_IMMUTABLE_FL;
	err = ext2fs_write_inode(s->fs, s->ino, in);
	if (err)
		return err;
	/* in the same transaction as the flag: never a sealed file without it, nor the reverse */
	err = e2v_seal_put_ima(s, s->r.digest, res);
	if (err)
		return err;
	res->desc = s->r.desc;
	memcpy(res->digest, s->r.digest, sizeof(res->digest));
	res->digest_size = s->r.digest_size;
	res->blocks_allocated = s->inline_blocks + e2v_file_blocks(&s->f) - s->before;
	return 0;
}

/* The signature a re-signed file gets, and its size; none to remove the one it has */
static errcode_t e2v_resign_sig(struct e2v_sealing *s, const uint8_t **sig, size_t *sig_size)
{
	const struct e2verity_seal_opts *opts = s->opts;
	errcode_t err;

	*sig = NULL;
	*sig_size = 0;
	if (opts->sign) {
		err = opts->sign(opts->sign_ctx, s->plan.desc.hash_algorithm, s->plan.digest,
				 &s->own_sig, sig_size);
		if (err)
			return err;
		*sig = s->own_sig;
	} else if (opts->sig && opts->sig_size) {
		*sig = opts->sig;
		*sig_size = opts->sig_size;
	}
	/* a signer that gives nothing would remove the signature it was asked for */
	if ((opts->sign && !*sig_size) || *sig_size > E2VERITY_MAX_SIGNATURE_SIZE)
		return E2VERITY_ET_SIG_TOO_LARGE;
	return 0;
}

/*
 * E2VERITY_SEAL_RESIGN: the file keeps its data, tree and digest; its
 * descriptor region [desc_pos, end) is written anew with the signature in
 * fresh blocks, which the inode's extents switch to.  As check -p rewrites
 * a tree without a journal (doc/unjournaled.md), no block the inode on disk
 * points to is written over, and the blocks let go are held until the
 * commit: the journal's replay or the inode's one write without a journal
 * switches the file from its old signature to its new one, sealed
 * throughout.  Everything that can fail short of a write (signing, the
 * security.ima value) is done before the first change.
 */
static errcode_t e2v_seal_resign(struct e2v_sealing *s, struct e2verity_seal_result *res)
{
	ext2_filsys fs = s->fs;
	const unsigned int bs = fs->blocksize;
	const struct e2verity_seal_plan *plan = &s->plan;
	struct ext2_inode *in = EXT2_INODE(&s->f.inode);
	struct e2verity_descriptor d = plan->desc;
	const struct e2v_extent *last;
	const uint8_t *sig;
	size_t sig_size;
	blk64_t first, before;
	errcode_t err;

	if (!fs->block_map) {
		err = ext2fs_read_block_bitmap(fs);
		if (err)
			return err;
	}
	s->p.hash_alg = d.hash_algorithm;
	err = e2v_resign_sig(s, &sig, &sig_size);
	if (!err)
		err = e2v_seal_sign_ima(s, plan->digest);
	if (!err)
		err = e2v_ext4_layout(plan->data_size, plan->geo.tree_size, sig_size, bs,
				      &res->layout);
	if (err)
		return err;
	/* the plan found it there: the tree ends where the old descriptor began */
	if (res->layout.desc_pos != plan->layout.desc_pos)
		return E2VERITY_ET_CORRUPT;
	first = res->layout.desc_pos / bs;
	d.sig_size = sig_size;

	fs->io->flags |= CHANNEL_FLAGS_WRITETHROUGH;
	err = e2v_ext4_file_open_in(fs, e2v_owners_zone(s->opts->owners), s->ino, &s->f);
	if (err)
		return err;
	s->iblocks_before = ext2fs_get_stat_i_blocks(fs, in);
	/* a failure from here leaves it unsealed, as a failed seal does (the caller aborts) */
	s->orig_flags = in->i_flags & ~EXT4_VERITY_FL;
	s->meta_first = plan->layout.merkle_pos / bs;
	s->allocating = 1;
	/* without a journal, no extent node the inode on disk points to is changed in place */
	if (e2v_txn_unjournaled(fs)) {
		err = e2v_extent_tree_renew(fs, s->ino, in);
		if (!err)
			err = e2v_ext4_file_reload(&s->f);
		if (err)
			return err;
	}
	before = e2v_file_blocks(&s->f);
	err = e2v_punch_from(&s->f, first);
	if (err)
		return err;
	res->blocks_freed = before - e2v_file_blocks(&s->f);
	before = e2v_file_blocks(&s->f);
	err = e2v_alloc_range(&s->f, first, res->layout.end / bs - first, 0);
	if (!err)
		err = e2v_tree_writer_init(&s->w, &s->f, res->layout.desc_pos, 0);
	if (!err)
		err = e2v_write_descriptor(&s->w, &res->layout, &d, sig);
	if (err)
		return err;
	/* the kernel finds the descriptor through the last extent: it must end at the size word */
	last = e2v_ext4_last_extent(&s->f);
	if (!last || last->uninit || (last->lblk + last->len) * bs != res->layout.end)
		return E2VERITY_ET_CORRUPT;
	/* e2v_alloc_range() wrote the inode, flag and all; security.ima in the same transaction */
	err = e2v_seal_put_ima(s, plan->digest, res);
	if (err)
		return err;
	res->desc = d;
	memcpy(res->digest, plan->digest, sizeof(res->digest));
	res->digest_size = plan->digest_size;
	res->blocks_allocated = e2v_file_blocks(&s->f) - before;
	return 0;
}

/* Roll back: leave the file as it was found, unsealed, without the blocks given to it. */
static void e2v_seal_rollback(struct e2v_sealing *s)
{
	struct ext2_inode *in = EXT2_INODE(&s->f.inode);

	if (!s->allocating && !s->orphan)
		return;
	in->i_flags = s->orig_flags;
	(void)ext2fs_write_inode(s->fs, s->ino, in);
	if (s->allocating)
		(void)e2v_punch_past(s->fs, s->ino, in, s->meta_first);
	if (s->orphan && !e2v_orphan_del(s->fs, s->ino, in))
		(void)ext2fs_write_inode(s->fs, s->ino, in);
}

/*
 * The common case of a batch, sealed in one step: a file hashed ahead,
 * nothing past its EOF, its extents in the inode with room for one more.
 * Its metadata goes into one run of fresh blocks (gathered with the next
 * files' into one write by the transaction channel) and the inode is
 * written once, with the new extent, the flag and i_blocks.  No orphan
 * entry: in a transaction the list would be left again before anything of
 * it reaches the disk (the journal, or the inode-table phase of a commit
 * without one, writes the inode whole).  *@done says whether it applied;
 * when it did not, nothing was changed.
 */
static errcode_t e2v_seal_fast(struct e2v_sealing *s, struct e2verity_seal_result *res, int *done)
{
	ext2_filsys fs = s->fs;
	const unsigned int bs = fs->blocksize;
	const struct e2verity_seal_opts *opts = s->opts;
	const struct e2verity_seal_plan *plan = &s->plan;
	const struct e2v_ahead_job *job = s->job;
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	uint8_t *ib = (uint8_t *)in->i_block, *buf, *ent;
	const uint8_t *last;
	const uint8_t *sig = opts->sig;
	size_t sig_size = opts->sig ? opts->sig_size : 0;
	struct e2verity_ext4_layout l;
	struct e2verity_descriptor d;
	unsigned int entries, max, isize, last_len;
	blk64_t first, count, goal, search, last_pblk, pblk = 0, plen = 0, iblocks;
	unsigned long epoch;
	errcode_t err;

	*done = 0;
	if (!job || opts->sign || opts->ima_sign || plan->action != E2VERITY_SEAL_NEW ||
	    plan->ima != E2VERITY_IMA_NONE || plan->inline_data || plan->blocks_freed ||
	    !job->tail_zero ||
	    job->nblocks * (uint64_t)job->params.block_size > plan->geo.tree_size)
		return 0;
	e2verity_params_validate(&s->p);
	if (!e2v_ahead_matches(job, &s->p, plan->data_size) || !fs->block_map ||
	    e2v_ext4_layout(plan->data_size, plan->geo.tree_size, sig_size, bs, &l))
		return 0;
	first = l.merkle_pos / bs;
	count = l.end / bs - first;
	if (l.merkle_pos % bs || l.end % bs || !count || count > 32768 ||
	    l.desc_pos < l.merkle_pos ||
	    l.end - l.desc_pos < E2VERITY_DESCRIPTOR_SIZE + sig_size + 4)
		return 0;
	/*
	 * The plan taken with the job is the one e2verity_seal_prepare() makes
	 * now if the inode is the same: its checksum was verified then.
	 */
	isize = EXT2_INODE_SIZE(fs->super) < sizeof(inode) ? EXT2_INODE_SIZE(fs->super)
							   : sizeof(inode);
	err = ext2fs_read_inode2(fs, s->ino, in, sizeof(inode),
				 s->plan_from_job ? READ_INODE_NOCSUM : 0);
	if (err || (s->plan_from_job && memcmp(in, &job->inode, isize) != 0))
		return 0;
	/* an extent root in the inode, depth 0, with room; the metadata goes after the data */
	if (!(in->i_flags & EXT4_EXTENTS_FL) ||
	    (in->i_flags & (EXT4_VERITY_FL | EXT4_INLINE_DATA_FL)) ||
	    e2v_get_le16(ib) != EXT3_EXT_MAGIC || e2v_get_le16(ib + 6) != 0 ||
	    EXT2_I_SIZE(in) != plan->data_size)
		return 0;
	entries = e2v_get_le16(ib + 2);
	max = e2v_get_le16(ib + 4);
	/* without an extent ext2fs_fallocate() aims elsewhere: the general path */
	if (max != E2V_ROOT_EXTENTS || !entries || entries >= max || first > UINT32_MAX - count)
		return 0;
	last = ib + 12 * entries;
	last_len = e2v_get_le16(last + 4);
	if (last_len > EXT_INIT_MAX_LEN)
		last_len -= EXT_INIT_MAX_LEN;
	/* past the data and not touching it: libext2fs would have merged the two */
	if ((uint64_t)e2v_get_le32(last) + last_len >= first)
		return 0;
	buf = e2v_ahead_buffer(opts->batch, count * bs);
	if (!buf)
		return 0;
	/* the tree blocks where the tree writer would have put them, then the descriptor */
	for (size_t i = 0; i < job->nblocks; i++) {
		if (job->offsets[i] + job->params.block_size > l.desc_pos - l.merkle_pos)
			return 0;
		memcpy(buf + job->offsets[i], job->tree + i * (size_t)job->params.block_size,
		       job->params.block_size);
	}
	d = job->res.desc;
	d.sig_size = sig_size;
	e2verity_descriptor_encode(&d, buf + (l.desc_pos - l.merkle_pos));
	if (sig_size)
		memcpy(buf + (l.desc_pos - l.merkle_pos) + E2VERITY_DESCRIPTOR_SIZE, sig, sig_size);
	e2v_put_le32(buf + (l.end - l.merkle_pos) - 4, l.desc_size);

	/*
	 * One run of blocks where ext2fs_fallocate() would put the first piece
	 * (the sealed image must not depend on the path): from the last
	 * extent's block as far past it as @first is past its start; if that
	 * piece is short, the general path.
	 */
	last_pblk = ((blk64_t)e2v_get_le16(last + 6) << 32) | e2v_get_le32(last + 8);
	goal = last_pblk + (first - e2v_get_le32(last));
	if (goal >= ext2fs_blocks_count(fs->super))
		return 0;
	epoch = e2v_txn_free_epoch(fs);
	search = e2v_ahead_alloc_from(opts->batch, goal, epoch);
	if (ext2fs_new_range(fs, 0, search, count, NULL, &pblk, &plen) || plen != count)
		return 0;
	e2v_ahead_alloc_used(opts->batch, goal, search, pblk + count, epoch);
	*done = 1;
	ext2fs_block_alloc_stats_range(fs, pblk, count, +1);
	e2v_io_data(fs, 1);
	err = io_channel_write_blk64(fs->io, pblk, count, buf);
	e2v_io_data(fs, 0);
	if (err)
		goto fail;
	iblocks = ext2fs_get_stat_i_blocks(fs, in);
	ent = ib + 12 * (entries + 1);
	e2v_put_le32(ent, first);
	e2v_put_le16(ent + 4, count);
	e2v_put_le16(ent + 6, pblk >> 32);
	e2v_put_le32(ent + 8, pblk & 0xffffffff);
	e2v_put_le16(ib + 2, entries + 1);
	err = ext2fs_iblk_add_blocks(fs, in, count);
	if (!err)
		err = e2v_set_feature(fs);
	if (err)
		goto fail;
	in->i_flags |= EXT4_VERITY_FL;
	if (opts->flags & E2VERITY_SEAL_IMMUTABLE)
		in->i_flags |= EXT2_IMMUTABLE_FL;
	err = ext2fs_write_inode_full(fs, s->ino, in, sizeof(inode));
	if (err)
		goto fail;
	err = e2v_quota_charge_inode(
		fs, &inode, ((int64_t)ext2fs_get_stat_i_blocks(fs, in) - (int64_t)iblocks) * 512);
	if (err)
		return err;
	if (opts->progress)
		opts->progress(opts->progress_ctx, plan->data_size, plan->data_size);
	res->layout = l;
	res->desc = d;
	memcpy(res->digest, job->res.digest, sizeof(res->digest));
	res->digest_size = job->res.digest_size;
	res->blocks_allocated = count;
	return 0;
fail:
	/* the inode on disk was never written: the blocks go back (held until the commit) */
	ext2fs_block_alloc_stats_range(fs, pblk, count, -1);
	return err;
}

static errcode_t e2v_seal_inode(ext2_filsys fs, ext2_ino_t ino,
				const struct e2verity_seal_opts *opts,
				struct e2verity_seal_result *res, const struct e2v_ahead_job *job)
{
	const int saved_io_flags = fs->io->flags;
	struct e2v_sealing s = {
		.fs = fs, .ino = ino, .opts = opts, .job = job, .p = opts->params
	};
	struct ext2_inode *in = EXT2_INODE(&s.f.inode);
	errcode_t err, qerr;
	int fast;

	memset(res, 0, sizeof(*res));
	/* the plan made when the file was queued for hashing, if the common case applies */
	if (job && job->plan_opts == opts && job->plan.action == E2VERITY_SEAL_NEW &&
	    (fs->flags & EXT2_FLAG_RW)) {
		s.plan = job->plan;
		s.plan_from_job = 1;
		res->action = s.plan.action;
		err = e2v_seal_fast(&s, res, &fast);
		if (fast)
			return err;
		s.plan_from_job = 0;
		memset(res, 0, sizeof(*res));
		s.p = opts->params;
	}
	err = e2verity_seal_prepare(fs, ino, opts, &s.plan);
	if (err)
		return err;
	res->action = s.plan.action;
	if (s.plan.action == E2VERITY_SEAL_SKIP) {
		res->desc = s.plan.desc;
		memcpy(res->digest, s.plan.digest, sizeof(res->digest));
		res->digest_size = s.plan.digest_size;
		res->layout = s.plan.layout;
		err = e2v_seal_ima_only(&s, res);
		free(s.ima_value);
		return err;
	}
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (s.plan.action == E2VERITY_SEAL_RESIGN) {
		err = e2v_seal_resign(&s, res);
		goto done;
	}
	err = e2v_seal_fast(&s, res, &fast);
	if (fast)
		return err;
	err = e2v_seal_begin(&s, res);
	if (!err)
		err = e2v_seal_write_metadata(&s, res);
	if (!err)
		err = e2v_seal_commit(&s, res);
done:
	if (err)
		e2v_seal_rollback(&s);
	/* whatever stayed allocated (or was released) is the owner's quota */
	if (s.f.open) {
		qerr = e2v_quota_charge_inode(
			fs, &s.f.inode,
			((int64_t)ext2fs_get_stat_i_blocks(fs, in) - (int64_t)s.iblocks_before) *
				512);
		if (!err)
			err = qerr;
	}
	e2v_tree_writer_free(&s.w);
	free(s.own_sig);
	free(s.ima_value);
	e2v_ext4_file_close(&s.f);
	fs->io->flags = saved_io_flags;
	return err;
}

errcode_t e2verity_seal_inode(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_seal_opts *opts,
			      struct e2verity_seal_result *res)
{
	struct e2v_ahead_job *job = e2v_ahead_take(opts->batch, ino);
	errcode_t err;

	err = e2v_seal_inode(fs, ino, opts, res, job);
	e2v_ahead_job_free(job);
	return err;
}
