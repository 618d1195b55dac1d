// SPDX-License-Identifier: GPL-2.0-or-later
/* seal.c - enable fs-verity on an inode of an unmounted ext4 image, the way the kernel would */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/merkle.h"
#include "ext4/ahead.h"
#include "ima_xattr.h"
#include "seal.h"
#include "ext4/inode_rules.h"
#include "ext4/past_eof.h"
#include "ext4/layout.h"
#include "ext4/xattr_rules.h"

/* fs/verity/open.c: a tree whose block is not a page has at most 2^23 blocks */
#define E2V_MAX_SUBPAGE_TREE_BLOCKS (1ULL << 23)
/* the extents i_block holds at depth 0, after the header */
#define E2V_ROOT_EXTENTS                                                                           \
	((sizeof(((struct ext2_inode *)0)->i_block) - sizeof(struct ext3_extent_header)) /         \
	 sizeof(struct ext3_extent))

errcode_t e2verity_seal_check_fs(ext2_filsys fs, const struct e2verity_seal_opts *opts)
{
	struct e2verity_params p = opts->params;
	errcode_t err;

	if (!e2v_all_zero(opts->reserved, sizeof(opts->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	err = e2verity_params_validate(&p);
	if (err)
		return err;
	if (!ext2fs_has_feature_extents(fs->super))
		return E2VERITY_ET_NO_EXTENT_FEATURE;
	if (ext2fs_has_feature_bigalloc(fs->super))
		return E2VERITY_ET_BIGALLOC;
	if (p.block_size > fs->blocksize)
		return E2VERITY_ET_BLOCK_SIZE_EXCEEDS_FS;
	/* what the journal would replay could overwrite what we write */
	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return E2VERITY_ET_NEEDS_RECOVERY;
	return 0;
}

static int e2v_wants_signature(const struct e2verity_seal_opts *opts)
{
	return opts->sign || (opts->sig && opts->sig_size);
}

/* the largest signature the options can produce, for the space check */
static size_t e2v_sig_bound(const struct e2verity_seal_opts *opts)
{
	if (opts->sign)
		return opts->sig_size_max && opts->sig_size_max < E2VERITY_MAX_SIGNATURE_SIZE
			       ? opts->sig_size_max
			       : E2VERITY_MAX_SIGNATURE_SIZE;
	return opts->sig ? opts->sig_size : 0;
}

static int e2v_same_tree(const struct e2verity_descriptor *d, const struct e2verity_params *p)
{
	return d->hash_algorithm == p->hash_alg && d->log_blocksize == e2v_ilog2(p->block_size) &&
	       d->salt_size == p->salt_size &&
	       (!p->salt_size || memcmp(d->salt, p->salt, p->salt_size) == 0);
}

/* Whether the built-in signature @m's file has is the one the options would give it */
static int e2v_sig_kept(const struct e2verity_seal_opts *opts, const struct e2v_verity_meta *m,
			const uint8_t *digest)
{
	if (opts->sign)
		return opts->sig_keep && opts->sig_keep(opts->sign_ctx, m->desc.hash_algorithm,
							digest, m->sig, m->desc.sig_size);
	return opts->sig && opts->sig_size == m->desc.sig_size &&
	       memcmp(opts->sig, m->sig, m->desc.sig_size) == 0;
}

/*
 * Sealed with these tree parameters, a file whose signature alone changes:
 * its data gives the same tree, so only the descriptor region is written
 * again, where the kernel puts it after the tree.  A file sealed otherwise
 * (a gap the kernel leaves nowhere) is resealed whole, or refused.
 */
static errcode_t e2v_sealed_sig(const struct e2verity_seal_opts *opts,
				const struct e2verity_seal_plan *plan,
				const struct e2v_verity_meta *m, unsigned int bs,
				enum e2verity_seal_action *action)
{
	const int force = opts->flags & E2VERITY_SEAL_FORCE;
	const int want = e2v_wants_signature(opts), has = m->desc.sig_size != 0;
	struct e2verity_ext4_layout l;
	errcode_t err;

	if ((!want && !has) || (want && has && e2v_sig_kept(opts, m, plan->digest))) {
		*action = force ? E2VERITY_SEAL_RESEAL : E2VERITY_SEAL_SKIP;
		return 0;
	}
	/* what check -y asks for: the tree may be what is damaged */
	if (force && (opts->flags & E2VERITY_SEAL_REHASH)) {
		*action = E2VERITY_SEAL_RESEAL;
		return 0;
	}
	err = e2v_ext4_layout(plan->data_size, plan->geo.tree_size, 0, bs, &l);
	if (err || l.desc_pos != m->layout.desc_pos) {
		*action = E2VERITY_SEAL_RESEAL;
		return force ? 0 : E2VERITY_ET_SEALED_OTHER_PARAMS;
	}
	*action = E2VERITY_SEAL_RESIGN;
	if (force || !has)
		return 0;
	return want ? E2VERITY_ET_SIGNED_OTHER : E2VERITY_ET_SEALED_SIGNED;
}

/* Decides what to do with an inode that has EXT4_VERITY_FL already. */
static errcode_t e2v_sealed_state(struct e2v_ext4_file *f, const struct e2verity_params *p,
				  const struct e2verity_seal_opts *opts,
				  struct e2verity_seal_plan *plan)
{
	const int force = opts->flags & E2VERITY_SEAL_FORCE;
	struct e2v_verity_meta m;
	errcode_t err;

	err = e2v_verity_meta_read(f, &m);
	if (!err && m.desc.data_size != f->size)
		err = E2VERITY_ET_CORRUPT;
	if (err) {
		plan->action = E2VERITY_SEAL_RESEAL;
		err = force ? 0 : E2VERITY_ET_SEALED_CORRUPT;
		goto out;
	}
	if (!e2v_same_tree(&m.desc, p)) {
		plan->action = E2VERITY_SEAL_RESEAL;
		err = force ? 0 : E2VERITY_ET_SEALED_OTHER_PARAMS;
		goto out;
	}
	plan->desc = m.desc;
	plan->layout = m.layout;
	plan->digest_size = e2verity_hash_alg_by_num(p->hash_alg)->digest_size;
	err = e2verity_descriptor_digest(&m.desc, plan->digest);
	if (!err)
		err = e2v_sealed_sig(opts, plan, &m, f->fs->blocksize, &plan->action);
out:
	e2v_verity_meta_free(&m);
	return err;
}

/*
 * The extent tree: its depth, and how many more extents fit in the node that
 * holds the file's last one (the root in the inode at depth 0), where the
 * metadata's extents go.
 */
static errcode_t e2v_extent_room(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in,
				 unsigned int *depth, unsigned int *room)
{
	const uint8_t *ib = (const uint8_t *)in->i_block;
	unsigned int entries = e2v_get_le16(ib + 2), max = e2v_get_le16(ib + 4);
	struct ext2_extent_info info;
	struct ext2fs_extent ex;
	ext2_extent_handle_t h;
	errcode_t err, last;

	/* a root that ext2fs_extent_open2() accepts, of depth 0: read without a handle */
	if ((in->i_flags & EXT4_EXTENTS_FL) && e2v_get_le16(ib) == EXT3_EXT_MAGIC &&
	    e2v_get_le16(ib + 6) == 0 && max <= E2V_ROOT_EXTENTS && max + 2 >= E2V_ROOT_EXTENTS &&
	    entries <= max) {
		*depth = 0;
		*room = max - entries;
		return 0;
	}
	err = ext2fs_extent_open2(fs, ino, in, &h);
	if (err)
		return err;
	/* an empty file has no leaf to go to: its root gets the extents */
	last = ext2fs_extent_get(h, EXT2_EXTENT_LAST_LEAF, &ex);
	err = ext2fs_extent_get_info(h, &info);
	ext2fs_extent_free(h);
	if (err)
		return err;
	*depth = info.max_depth;
	*room = (!last || !info.max_depth) && info.max_entries > info.num_entries
			? info.max_entries - info.num_entries
			: 0;
	return 0;
}

/*
 * The extent tree blocks that adding at most @added extents after the @kept
 * data extents can allocate.  None while they fit where they go: in the
 * inode (four) at depth 0, in the last leaf's @room otherwise.  Else each
 * level may split once per half node of new entries, and the tree may grow
 * a level on top.
 */
static uint64_t e2v_extent_blocks(unsigned int bs, unsigned int depth, unsigned int room,
				  uint64_t kept, uint64_t added)
{
	const uint64_t half =
		(bs - sizeof(struct ext3_extent_header)) / sizeof(struct ext3_extent) / 2;
	uint64_t n = depth ? added : kept + added, blocks = 0;

	if (depth ? added <= room : kept + added <= E2V_ROOT_EXTENTS)
		return 0;
	for (unsigned int level = 0; level <= depth || n > 1; level++) {
		n = e2v_div_round_up(n, half);
		blocks += n;
	}
	return blocks;
}

/*
 * Everything sealing writes into must be the file's alone: the blocks libext2fs
 * allocates (free in a block bitmap that tells the truth), the block holding
 * EOF (zeroed after EOF) and those past it (freed).  @f is NULL for inline
 * data, which has no blocks yet.
 */
static errcode_t e2v_seal_owns(ext2_filsys fs, struct e2v_ext4_file *f, uint64_t data_size,
			       const struct e2verity_owners *owners)
{
	struct e2verity_owners *own = NULL;
	errcode_t err;

	if (!owners) {
		err = e2verity_owners_scan(fs, &own);
		if (err)
			return err;
		owners = own;
	}
	/* what is wrong with this file first, then what is wrong with the image */
	err = f ? e2v_check_past_eof(f, data_size / fs->blocksize, owners) : 0;
	if (!err)
		err = e2v_owners_allocatable(owners);
	e2verity_owners_free(own);
	return err;
}

/*
 * E2VERITY_SEAL_RESIGN: the descriptor region, sized for the largest
 * signature the options give, in fresh blocks, and the extent blocks its
 * extents may take.  The blocks it had are not counted as freed: the
 * transaction holds them until it commits.
 */
static errcode_t e2v_plan_resign(ext2_filsys fs, struct e2v_ext4_file *f, struct ext2_inode *in,
				 const struct e2verity_seal_opts *opts,
				 struct e2verity_seal_plan *plan)
{
	const unsigned int bs = fs->blocksize;
	const uint64_t sig = e2v_wants_signature(opts) ? e2v_sig_bound(opts) : 0;
	unsigned int depth = 0, room = 0;
	uint64_t kept = 0, meta;
	blk64_t first;
	errcode_t err;

	err = e2v_ext4_layout(plan->data_size, plan->geo.tree_size, sig, bs, &plan->layout);
	if (err)
		return err;
	first = plan->layout.desc_pos / bs;
	meta = (plan->layout.end - plan->layout.desc_pos) / bs;
	for (size_t i = 0; i < f->nr_extents; i++)
		kept += f->extents[i].lblk < first;
	/* the blocks rewritten must be the file's own, as a seal's */
	err = e2v_seal_owns(fs, f, plan->data_size, opts->owners);
	if (!err)
		err = e2v_extent_room(fs, f->ino, in, &depth, &room);
	if (err)
		return err;
	/* below the root, what the punch leaves in the last leaf is not known: no room assumed */
	plan->blocks_needed = meta + e2v_extent_blocks(bs, depth, depth ? 0 : room, kept, meta);
	return 0;
}

static errcode_t e2v_plan_seal(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_seal_opts *opts,
			       struct e2verity_seal_plan *plan, struct e2v_ext4_file *keep)
{
	const unsigned int bs = fs->blocksize;
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	struct e2verity_params p = opts->params;
	const struct e2v_inode_rule *rule;
	struct e2v_ext4_file f = { 0 };
	unsigned int depth = 0, room = 0;
	uint64_t meta, kept = 0;
	blk64_t first_free;
	errcode_t err;

	memset(plan, 0, sizeof(*plan));
	err = e2verity_seal_check_fs(fs, opts);
	if (err)
		return err;
	e2verity_params_validate(&p);
	err = ext2fs_read_inode_full(fs, ino, in, sizeof(inode));
	if (err)
		return err;
	rule = e2v_inode_verity_rule(fs, in, E2V_VERITY_ENABLE);
	if (rule)
		return rule->err;
	plan->inline_data = !!(in->i_flags & EXT4_INLINE_DATA_FL);
	plan->data_size = EXT2_I_SIZE(in);
	err = e2verity_geometry(&p, plan->data_size, &plan->geo);
	if (err)
		return err;
	if (plan->geo.tree_blocks > E2V_MAX_SUBPAGE_TREE_BLOCKS)
		return E2VERITY_ET_FILE_TOO_LARGE;
	err = e2v_ext4_layout(plan->data_size, plan->geo.tree_size, e2v_sig_bound(opts), bs,
			      &plan->layout);
	if (err)
		return err;
	plan->action = E2VERITY_SEAL_NEW;
	/* tree, descriptor and size word: what a file of one block needs is one block */
	meta = (plan->layout.end - plan->layout.merkle_pos) / bs;

	if (plan->inline_data) {
		/* an inline inode cannot carry a verity seal: whatever it claims, redo it */
		if ((in->i_flags & EXT4_VERITY_FL) && !(opts->flags & E2VERITY_SEAL_FORCE))
			return E2VERITY_ET_SEALED_CORRUPT;
		/* the data moves into a block of its own first: one extent in an empty root */
		plan->blocks_needed = e2v_div_round_up(plan->data_size, bs);
		room = E2V_ROOT_EXTENTS;
		kept = plan->blocks_needed ? 1 : 0;
		err = e2v_seal_owns(fs, NULL, plan->data_size, opts->owners);
		goto out;
	}
	err = e2v_ext4_file_open_in(fs, e2v_owners_zone(opts->owners), ino, &f);
	if (err)
		return err;
	/* libext2fs will extend and punch this tree: it must be the one the kernel reads */
	err = e2v_ext4_file_writable(&f);
	if (err)
		goto out;
	if (in->i_flags & EXT4_VERITY_FL) {
		err = e2v_sealed_state(&f, &p, opts, plan);
		if (err || plan->action == E2VERITY_SEAL_SKIP)
			goto out;
		if (plan->action == E2VERITY_SEAL_RESIGN) {
			err = e2v_plan_resign(fs, &f, in, opts, plan);
			goto out;
		}
	}
	/* blocks past EOF go first; a reseal frees the old metadata this way */
	first_free = e2v_div_round_up(plan->data_size, bs);
	for (size_t i = 0; i < f.nr_extents; i++) {
		const struct e2v_extent *e = &f.extents[i];
		blk64_t end = e->lblk + e->len;

		if (e->lblk < first_free)
			kept++;
		if (end > first_free)
			plan->blocks_freed += end - (e->lblk > first_free ? e->lblk : first_free);
	}
	/*
	 * Freeing a hostile extent would free another file's blocks or the
	 * filesystem's; writing into one would overwrite them.
	 */
	err = e2v_seal_owns(fs, &f, plan->data_size, opts->owners);
	if (err)
		goto out;
	err = e2v_extent_room(fs, ino, in, &depth, &room);
	/* below the root, what the punch leaves in the last leaf is not known: no room assumed */
	if (plan->blocks_freed)
		room = 0;
out:
	/*
	 * Free space split in pieces can give each metadata block an extent of
	 * its own: the extent tree blocks are counted for that many.
	 */
	if (!err && (plan->action == E2VERITY_SEAL_NEW || plan->action == E2VERITY_SEAL_RESEAL))
		plan->blocks_needed += meta + e2v_extent_blocks(bs, depth, room, kept, meta);
	if (keep && !err)
		*keep = f; /* the caller closes it */
	else
		e2v_ext4_file_close(&f);
	return err;
}

/*
 * E2VERITY_SEAL_IMA_ONLY: the file is sealed, in whatever way, and its
 * stored digest is what the signature covers, as `measure` reports it.
 */
static errcode_t e2v_plan_ima_only(ext2_filsys fs, ext2_ino_t ino,
				   const struct e2verity_seal_opts *opts,
				   struct e2verity_seal_plan *plan)
{
	struct e2v_ext4_file f = { 0 };
	struct e2v_verity_meta m;
	struct ext2_inode inode;
	errcode_t err;

	memset(plan, 0, sizeof(*plan));
	err = e2verity_seal_check_fs(fs, opts);
	if (!err && !opts->ima_sign)
		err = E2VERITY_ET_BAD_OPTIONS;
	if (!err)
		err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (!LINUX_S_ISREG(inode.i_mode))
		return E2VERITY_ET_NOT_REGULAR;
	if (!(inode.i_flags & EXT4_VERITY_FL))
		return E2VERITY_ET_NOT_SEALED;
	err = e2v_ext4_file_open(fs, ino, &f);
	if (err)
		return err;
	err = e2v_verity_meta_read(&f, &m);
	if (!err && m.desc.data_size != f.size)
		err = E2VERITY_ET_CORRUPT;
	if (err) {
		err = E2VERITY_ET_SEALED_CORRUPT;
		goto out;
	}
	plan->action = E2VERITY_SEAL_SKIP;
	plan->data_size = f.size;
	plan->desc = m.desc;
	plan->layout = m.layout;
	plan->digest_size = e2verity_hash_alg_by_num(m.desc.hash_algorithm)->digest_size;
	err = e2verity_descriptor_digest(&m.desc, plan->digest);
out:
	e2v_verity_meta_free(&m);
	e2v_ext4_file_close(&f);
	return err;
}

/*
 * What becomes of the file's security.ima, and the block that may take: a
 * new one is written, one there is kept or replaced; resealed without a
 * signer, a signature of the old digest goes.
 */
static errcode_t e2v_plan_ima(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_seal_opts *opts,
			      struct e2verity_seal_plan *plan)
{
	size_t max = opts->ima_size_max ? opts->ima_size_max : E2VERITY_IMA_MAX_SIZE;
	uint64_t blocks = 0;
	uint8_t *cur = NULL;
	size_t len;
	errcode_t err;

	if (!opts->ima_sign) {
		if (plan->action != E2VERITY_SEAL_RESEAL || !e2v_ima_is_verity(fs, ino))
			return 0;
		plan->ima = E2VERITY_IMA_REMOVE;
		err = e2v_ima_room(fs, opts->owners, ino, 0, &blocks);
		plan->blocks_needed += blocks;
		return err;
	}
	err = e2verity_ima_get(fs, ino, &cur, &len);
	if (err == E2VERITY_ET_IMA_NONE) {
		plan->ima = E2VERITY_IMA_WRITE;
		err = 0;
	} else if (!err) {
		/* a file re-signed keeps its digest: its security.ima may be right as it is */
		if ((plan->action == E2VERITY_SEAL_SKIP || plan->action == E2VERITY_SEAL_RESIGN) &&
		    opts->ima_keep &&
		    opts->ima_keep(opts->ima_ctx, plan->desc.hash_algorithm, plan->digest, cur,
				   len))
			plan->ima = E2VERITY_IMA_KEEP;
		else if (opts->flags & E2VERITY_SEAL_FORCE)
			plan->ima = E2VERITY_IMA_REPLACE;
		else
			err = E2VERITY_ET_IMA_EXISTS;
		free(cur);
	}
	if (!err && plan->ima != E2VERITY_IMA_KEEP) {
		err = e2v_ima_room(fs, opts->owners, ino, max, &blocks);
		plan->blocks_needed += blocks;
	}
	return err;
}

/* e2verity_seal_prepare(); the file it opened goes to *@keep (zeroed if none) for the caller */
static errcode_t e2v_seal_prepare_keep(ext2_filsys fs, ext2_ino_t ino,
				       const struct e2verity_seal_opts *opts,
				       struct e2verity_seal_plan *plan, struct e2v_ext4_file *keep)
{
	errcode_t err;

	if (keep)
		memset(keep, 0, sizeof(*keep));
	/* the caller's options first, as every entry point judges them: then the image */
	if (!e2v_all_zero(opts->reserved, sizeof(opts->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	/* an inode e2fsck treats as free gets nothing written for it */
	err = e2v_inode_in_use(fs, ino);
	if (err)
		return err;
	if (opts->flags & E2VERITY_SEAL_IMA_ONLY)
		err = e2v_plan_ima_only(fs, ino, opts, plan);
	else
		err = e2v_plan_seal(fs, ino, opts, plan, keep);
	/*
	 * The attributes next to what is written, read now as the writes read
	 * them (moving inline data, security.ima): found damaged only there,
	 * the run would fail after other files' blocks were written.  A run's
	 * plans made while writing skip it: its pre-flight read them all, and
	 * since then only its own writes changed any, which the map follows.
	 */
	if (!err && !(opts->flags & E2VERITY_SEAL_JUDGED))
		err = e2v_inode_xattrs_sound(fs, ino, opts->owners);
	if (!err)
		err = e2v_plan_ima(fs, ino, opts, plan);
	if (err && keep)
		e2v_ext4_file_close(keep);
	return err;
}

errcode_t e2verity_seal_prepare(ext2_filsys fs, ext2_ino_t ino,
				const struct e2verity_seal_opts *opts,
				struct e2verity_seal_plan *plan)
{
	return e2v_seal_prepare_keep(fs, ino, opts, plan, NULL);
}

errcode_t e2v_seal_read(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct e2v_seal_reader *rd = ctx;
	errcode_t err;

	if (rd->opts->cancel && *rd->opts->cancel)
		return E2VERITY_ET_CANCELLED;
	err = e2v_ext4_file_read(rd->f, buf, count, offset);
	if (!err && rd->opts->progress)
		rd->opts->progress(rd->opts->progress_ctx, offset + count, rd->f->size);
	return err;
}

errcode_t e2v_seal_seek(void *ctx, uint64_t offset, uint64_t *data)
{
	struct e2v_seal_reader *rd = ctx;

	if (rd->opts->cancel && *rd->opts->cancel)
		return E2VERITY_ET_CANCELLED;
	*data = e2v_ext4_next_data(rd->f, offset);
	return 0;
}

/* the data source of e2verity_seal_digest() for an inline file: its bytes in memory */
struct e2v_mem_reader {
	const uint8_t *buf;
	const struct e2verity_seal_opts *opts;
	uint64_t size;
};

static errcode_t e2v_mem_read(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct e2v_mem_reader *rd = ctx;

	memcpy(buf, rd->buf + offset, count);
	if (rd->opts->progress)
		rd->opts->progress(rd->opts->progress_ctx, offset + count, rd->size);
	return 0;
}

static errcode_t e2v_inline_digest(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_params *p,
				   const struct e2verity_seal_opts *opts,
				   struct e2verity_result *res)
{
	struct ext2_inode_large inode;
	struct e2v_mem_reader rd = { .opts = opts };
	size_t cap = 0, got = 0;
	uint8_t *buf;
	errcode_t err;

	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(&inode), sizeof(inode));
	if (!err)
		err = ext2fs_inline_data_size(fs, ino, &cap);
	if (err)
		return err;
	rd.size = EXT2_I_SIZE(EXT2_INODE(&inode));
	if (rd.size > cap)
		return E2VERITY_ET_CORRUPT;
	buf = calloc(1, cap + 1);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = ext2fs_inline_data_get(fs, ino, EXT2_INODE(&inode), buf, &got);
	rd.buf = buf;
	if (!err)
		err = e2verity_compute(p, rd.size, e2v_mem_read, &rd, NULL, NULL, res);
	free(buf);
	return err;
}

errcode_t e2verity_seal_digest(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_seal_opts *opts, struct e2verity_result *res)
{
	struct e2verity_seal_plan plan;
	struct e2verity_params p = opts->params;
	struct e2v_ext4_file f = { 0 };
	struct e2v_seal_reader rd = { &f, opts };
	errcode_t err;

	memset(res, 0, sizeof(*res));
	err = e2verity_seal_prepare(fs, ino, opts, &plan);
	if (err)
		return err;
	e2verity_params_validate(&p);
	if (plan.inline_data)
		return e2v_inline_digest(fs, ino, &p, opts, res);
	err = e2v_ext4_file_open_in(fs, e2v_owners_zone(opts->owners), ino, &f);
	if (err)
		return err;
	/* a sealed file's data ends at i_size too: its metadata is not read */
	err = e2v_compute_keep(&p, plan.data_size, e2v_seal_read, e2v_seal_seek, &rd, NULL, NULL,
			       res, NULL);
	e2v_ext4_file_close(&f);
	return err;
}

/* The prepare callback of a batch: what e2verity_seal_inode() will hash. */
static errcode_t e2v_seal_prepare_ahead(void *ctx, ext2_filsys fs, struct e2v_ahead_job *j)
{
	const struct e2verity_seal_opts *opts = ctx;
	struct e2v_ext4_file f;
	errcode_t err;

	j->params = opts->params;
	err = e2verity_params_validate(&j->params);
	if (err)
		return err;
	/* no salt is a NULL pointer: memcpy() may not be given one, even for 0 bytes */
	if (j->params.salt_size)
		memcpy(j->salt, j->params.salt, j->params.salt_size);
	j->params.salt = j->salt;
	if (opts->flags & E2VERITY_SEAL_SIGN_ANY_THREAD) {
		j->sign = opts->sign;
		j->sign_ctx = opts->sign_ctx;
	}
	/* with --ima-only nothing is hashed ahead: the files are sealed already */
	if ((opts->flags & E2VERITY_SEAL_IMA_SIGN_ANY_THREAD) && opts->ima_sign) {
		j->ima_sign = opts->ima_sign;
		j->ima_ctx = opts->ima_ctx;
	}
	/*
	 * The plan, made once: e2verity_seal_inode() takes it with the job if
	 * the inode is still the one it was made from.  Inline data, holes
	 * only or not a regular file: nothing to gain or not ours.
	 */
	err = e2v_seal_prepare_keep(fs, j->ino, opts, &j->plan, &f);
	if (err)
		return err;
	if (!f.fs) /* the plan opened no file (inline data, --ima-only) */
		return 0;
	j->plan_opts = opts;
	j->inode = f.inode;
	/* a sealed file is most often left alone: hashing it would be wasted */
	if (!(f.inode.i_flags & EXT4_VERITY_FL)) {
		j->size = f.size;
		j->extents = f.extents;
		j->nr_extents = f.nr_extents;
		f.extents = NULL;
	}
	e2v_ext4_file_close(&f);
	return 0;
}

errcode_t e2verity_seal_batch_new(ext2_filsys fs, const struct e2verity_seal_opts *opts,
				  const ext2_ino_t *inos, size_t count, struct e2verity_batch **ret)
{
	*ret = NULL;
	if (!e2v_all_zero(opts->reserved, sizeof(opts->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	return e2v_ahead_new(fs, inos, count, opts->params.threads.count, e2v_seal_prepare_ahead,
			     (void *)opts, ret);
}

void e2verity_batch_free(struct e2verity_batch *b)
{
	e2v_ahead_free(b);
}
