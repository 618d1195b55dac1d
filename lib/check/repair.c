// SPDX-License-Identifier: GPL-2.0-or-later
/* repair.c - check -p and -y: damaged Merkle trees rewritten, damaged files resealed to trust */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ext4/extent_renew.h"
#include "ext4/measure.h"
#include "ext4/past_eof.h"
#include "seal/seal_blocks.h"
#include "seal/seal_quota.h"
#include "txn/txn.h"
#include "core/array.h"

/* copies of the blocks to write, kept from the first pass; past this the data is hashed twice */
#define E2V_REPAIR_KEEP_MAX (64u << 20)
/* parameter sets tried against a trusted digest: each costs one pass over the data */
#define E2V_RESEAL_MAX_CANDIDATES 4

/* A computed tree block that differs from the stored one: @offset in the stored tree */
struct e2v_patch {
	uint64_t offset;
	uint8_t *block;
};

/* One file's tree being compared with, then written over by, the tree its data gives */
struct e2v_tree_repair {
	struct e2v_ext4_file *f;
	const struct e2verity_repair_opts *opts;
	unsigned int bs;     /* Merkle tree block size */
	uint64_t merkle_pos; /* file offset of the stored tree */
	uint8_t *stored;     /* one Merkle block read back */
	uint8_t *fsblock;    /* one fs block, for a read-modify-write */
	uint8_t *bad;	     /* one bit per tree block: it differs from the computed one */
	uint64_t nbad;
	/* copies of the computed blocks that differ, in arrival order, while they fit */
	struct e2v_patch *patches;
	size_t npatches, cap;
	uint64_t kept_bytes;
	int overflow; /* copies dropped: the second pass writes as it hashes */
	int writing;  /* the second pass */
	int fits;     /* the journal holds every block to write in one transaction */
};

static errcode_t e2v_repair_read(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct e2v_tree_repair *r = ctx;

	if (r->opts->cancel && *r->opts->cancel)
		return E2VERITY_ET_CANCELLED;
	return e2v_ext4_file_read(r->f, buf, count, offset);
}

static errcode_t e2v_repair_seek(void *ctx, uint64_t offset, uint64_t *data)
{
	struct e2v_tree_repair *r = ctx;

	if (r->opts->cancel && *r->opts->cancel)
		return E2VERITY_ET_CANCELLED;
	*data = e2v_ext4_next_data(r->f, offset);
	return 0;
}

/*
 * Writes one Merkle block over its stored copy: the fs block holding it is
 * read, patched and written whole, through the transaction.
 */
static errcode_t e2v_put_tree_block(struct e2v_tree_repair *r, uint64_t offset, const void *block)
{
	ext2_filsys fs = r->f->fs;
	const uint64_t pos = r->merkle_pos + offset;
	blk64_t pblk;
	errcode_t err;

	err = e2v_ext4_file_map(r->f, pos / fs->blocksize, &pblk, NULL);
	if (!err)
		err = io_channel_read_blk64(fs->io, pblk, 1, r->fsblock);
	if (err)
		return err;
	memcpy(r->fsblock + pos % fs->blocksize, block, r->bs);
	return io_channel_write_blk64(fs->io, pblk, 1, r->fsblock);
}

/*
 * Writes one Merkle block, committing first when the journal is full and the
 * file's blocks could never fit in one transaction.
 */
static errcode_t e2v_put_in_room(struct e2v_tree_repair *r, uint64_t offset, const void *block)
{
	struct e2verity_txn *txn = r->opts->txn;
	errcode_t err;

	/* a few blocks of slack: the commit's own metadata */
	if (!r->fits && e2verity_txn_room(txn) < 8) {
		err = e2verity_txn_commit(txn);
		if (err)
			return err;
	}
	return e2v_put_tree_block(r, offset, block);
}

/* Each computed tree block: noted when it differs (first pass), written (second pass). */
static errcode_t e2v_repair_sink(void *ctx, const void *block, size_t size, uint64_t offset)
{
	struct e2v_tree_repair *r = ctx;
	const uint64_t t = offset / r->bs;
	struct e2v_patch *p;
	errcode_t err;

	if (r->writing)
		return r->bad[t / 8] & (1 << (t % 8)) ? e2v_put_in_room(r, offset, block) : 0;
	err = e2v_ext4_file_read(r->f, r->stored, r->bs, r->merkle_pos + offset);
	if (err)
		return err;
	if (memcmp(block, r->stored, size) == 0)
		return 0;
	r->bad[t / 8] |= 1 << (t % 8);
	r->nbad++;
	if (r->overflow)
		return 0;
	if (r->kept_bytes + size > E2V_REPAIR_KEEP_MAX) {
		r->overflow = 1;
		return 0;
	}
	if (e2v_array_room(&r->patches, &r->cap, r->npatches, sizeof(*r->patches)))
		return E2VERITY_ET_NO_MEMORY;
	p = &r->patches[r->npatches];
	p->block = malloc(size);
	if (!p->block)
		return E2VERITY_ET_NO_MEMORY;
	memcpy(p->block, block, size);
	p->offset = offset;
	r->npatches++;
	r->kept_bytes += size;
	return 0;
}

/* The fs blocks the Merkle blocks to rewrite lie in: what the journal must hold */
static uint64_t e2v_bad_fs_blocks(const struct e2v_tree_repair *r, uint64_t tree_blocks)
{
	const unsigned int per = r->f->fs->blocksize / r->bs;
	uint64_t n = 0;

	for (uint64_t t = 0; t < tree_blocks; t += per) {
		for (unsigned int k = 0; k < per && t + k < tree_blocks; k++) {
			if (r->bad[(t + k) / 8] & (1 << ((t + k) % 8))) {
				n++;
				break;
			}
		}
	}
	return n;
}

/*
 * Room in the journal for @n blocks, committing what is pending first if
 * need be.  Returns 1 when they fit in one transaction, 0 when they never
 * can (then the caller commits as it goes).
 */
static errcode_t e2v_make_room(struct e2verity_txn *txn, uint64_t n, int *fits)
{
	errcode_t err;

	*fits = 1;
	if (!txn || !e2verity_txn_journaled(txn) || e2verity_txn_room(txn) >= n)
		return 0;
	err = e2verity_txn_commit(txn);
	if (err)
		return err;
	*fits = e2verity_txn_room(txn) >= n;
	return 0;
}

/* Writes the kept copies, committing between them when one transaction cannot hold them all. */
static errcode_t e2v_write_patches(struct e2v_tree_repair *r)
{
	errcode_t err = 0;

	for (size_t i = 0; i < r->npatches && !err; i++)
		err = e2v_put_in_room(r, r->patches[i].offset, r->patches[i].block);
	return err;
}

/*
 * Without a journal no block that the inode on disk points to is written
 * over (doc/unjournaled.md): the metadata region is rebuilt in fresh blocks,
 * the tree from the data, and what follows it (descriptor, signature, size
 * word) copied byte for byte; the inode's one write then switches the file
 * to them whole, and the old blocks are released after it.
 */
static errcode_t e2v_repair_fresh(struct e2v_tree_repair *r, const struct e2v_verity_meta *m,
				  const struct e2verity_params *p, uint64_t tree_size,
				  unsigned int ds)
{
	struct e2v_ext4_file *f = r->f;
	ext2_filsys fs = f->fs;
	const unsigned int bs = fs->blocksize;
	const uint64_t rest = e2v_round_up(m->layout.merkle_pos + tree_size, bs);
	const blk64_t first = m->layout.merkle_pos / bs, end = m->layout.end / bs;
	struct ext2_inode *in = EXT2_INODE(&f->inode);
	const blk64_t iblocks = ext2fs_get_stat_i_blocks(fs, in);
	struct e2v_tree_writer w = { 0 };
	struct e2verity_result got;
	uint8_t *after = NULL;
	errcode_t err, qerr;

	after = malloc(m->layout.end - rest);
	if (!after)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_ext4_file_read(f, after, m->layout.end - rest, rest);
	if (!err)
		err = e2v_extent_tree_renew(fs, f->ino, in);
	if (!err)
		err = e2v_ext4_file_reload(f);
	if (!err)
		err = e2v_punch_from(f, first);
	if (!err)
		err = e2v_alloc_range(f, first, end - first, 0);
	if (!err)
		err = e2v_tree_writer_init(&w, f, m->layout.merkle_pos, tree_size);
	if (!err)
		err = e2verity_compute_sparse(p, m->desc.data_size, e2v_repair_read,
					      e2v_repair_seek, r, e2v_tree_writer_block, &w, &got);
	/* the data cannot change under the image's lock: this is only the proof of it */
	if (!err && memcmp(got.desc.root_hash, m->desc.root_hash, ds) != 0)
		err = E2VERITY_ET_CORRUPT;
	if (!err)
		err = e2v_tree_writer_bytes(&w, after, m->layout.end - rest, rest);
	if (!err)
		err = e2v_tree_writer_flush(&w);
	/* whatever the extent tree gained or lost is the owner's quota */
	if (f->open) {
		qerr = e2v_quota_charge_inode(
			fs, &f->inode,
			((int64_t)ext2fs_get_stat_i_blocks(fs, in) - (int64_t)iblocks) * 512);
		if (!err)
			err = qerr;
	}
	e2v_tree_writer_free(&w);
	free(after);
	return err;
}

static void e2v_repair_free(struct e2v_tree_repair *r)
{
	for (size_t i = 0; i < r->npatches; i++)
		free(r->patches[i].block);
	free(r->patches);
	free(r->bad);
	free(r->stored);
	free(r->fsblock);
}

static errcode_t e2v_repair_begin(ext2_filsys fs, const void *reserved, size_t reserved_size,
				  struct e2verity_repair_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!e2v_all_zero(reserved, reserved_size))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	return 0;
}

errcode_t e2verity_repair_tree(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_repair_opts *opts,
			       struct e2verity_repair_result *res)
{
	struct e2v_tree_repair r = { .opts = opts };
	struct e2v_ext4_file f;
	struct e2v_verity_meta m;
	struct e2verity_params p;
	struct e2verity_result got;
	const unsigned int fsbs = fs->blocksize;
	blk64_t first, end, hole;
	unsigned int ds;
	errcode_t err;

	err = e2v_repair_begin(fs, opts->reserved, sizeof(opts->reserved), res);
	if (err)
		return err;
	err = e2v_open_sealed(fs, e2v_owners_zone(opts->owners), ino, &f, &m);
	if (err)
		return err;
	r.f = &f;
	/* what is written in place must be where the kernel looks, by its reading of the extents */
	err = e2v_ext4_file_writable(&f);
	if (err)
		goto out;
	p = (struct e2verity_params){
		.hash_alg = m.desc.hash_algorithm,
		.block_size = 1u << m.desc.log_blocksize,
		.salt = m.desc.salt,
		.salt_size = m.desc.salt_size,
		.threads = opts->threads,
	};
	err = e2verity_params_validate(&p);
	if (!err && p.block_size > fsbs)
		err = E2VERITY_ET_BLOCK_SIZE_EXCEEDS_FS;
	if (!err)
		err = e2verity_geometry(&p, m.desc.data_size, &got.geo);
	if (err)
		goto out;
	res->tree_blocks = got.geo.tree_blocks;
	res->desc = m.desc;
	ds = e2verity_hash_alg_by_num(m.desc.hash_algorithm)->digest_size;
	res->digest_size = ds;
	err = e2verity_descriptor_digest(&m.desc, res->digest);
	if (err)
		goto out;
	/* each block to write: mapped, initialized, before the descriptor, the file's own */
	r.bs = p.block_size;
	r.merkle_pos = m.layout.merkle_pos;
	first = r.merkle_pos / fsbs;
	end = e2v_div_round_up(r.merkle_pos + got.geo.tree_size, fsbs);
	if (got.geo.tree_size > m.layout.desc_pos - r.merkle_pos ||
	    e2v_ext4_unmapped(&f, first, end, &hole)) {
		err = E2VERITY_ET_REPAIR_TREE_SPACE;
		goto out;
	}
	if (got.geo.tree_blocks) {
		err = e2v_check_past_eof(&f, e2v_div_round_up(f.size, fsbs), opts->owners);
		if (err)
			goto out;
	}
	r.stored = malloc(r.bs);
	r.fsblock = malloc(fsbs);
	r.bad = calloc(got.geo.tree_blocks / 8 + 1, 1);
	if (!r.stored || !r.fsblock || !r.bad) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	err = e2verity_compute_sparse(&p, m.desc.data_size, e2v_repair_read, e2v_repair_seek, &r,
				      e2v_repair_sink, &r, &got);
	if (err)
		goto out;
	/* the one condition for writing anything: the data gives the root hash the digest covers */
	if (memcmp(got.desc.root_hash, m.desc.root_hash, ds) != 0) {
		err = E2VERITY_ET_REPAIR_DATA_MISMATCH;
		goto out;
	}
	if (!r.nbad)
		goto out;
	if (e2v_txn_unjournaled(fs)) {
		err = e2v_repair_fresh(&r, &m, &p, got.geo.tree_size, ds);
		if (!err)
			res->blocks_rewritten = r.nbad;
		goto out;
	}
	err = e2v_make_room(opts->txn, e2v_bad_fs_blocks(&r, got.geo.tree_blocks), &r.fits);
	if (err)
		goto out;
	if (!r.overflow) {
		err = e2v_write_patches(&r);
	} else {
		/* too many to keep: hashed again, each written as it comes */
		r.writing = 1;
		err = e2verity_compute_sparse(&p, m.desc.data_size, e2v_repair_read,
					      e2v_repair_seek, &r, e2v_repair_sink, &r, &got);
		if (!err && memcmp(got.desc.root_hash, m.desc.root_hash, ds) != 0)
			err = E2VERITY_ET_CORRUPT;
	}
	if (!err)
		res->blocks_rewritten = r.nbad;
out:
	e2v_repair_free(&r);
	e2v_verity_meta_free(&m);
	e2v_ext4_file_close(&f);
	return err;
}

/* ---- -y: reseal to a trusted digest ------------------------------------------------ */

/* One set of tree parameters the data is hashed with */
struct e2v_candidate {
	unsigned int alg, block_size, salt_size;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
};

struct e2v_candidates {
	struct e2v_candidate v[E2V_RESEAL_MAX_CANDIDATES];
	unsigned int n;
};

static void e2v_cand_add(struct e2v_candidates *c, unsigned int alg, unsigned int bs,
			 const uint8_t *salt, unsigned int salt_size)
{
	struct e2v_candidate *x;

	for (unsigned int i = 0; i < c->n; i++) {
		x = &c->v[i];
		if (x->alg == alg && x->block_size == bs && x->salt_size == salt_size &&
		    (!salt_size || memcmp(x->salt, salt, salt_size) == 0))
			return;
	}
	if (c->n == E2V_RESEAL_MAX_CANDIDATES)
		return;
	x = &c->v[c->n++];
	x->alg = alg;
	x->block_size = bs;
	x->salt_size = salt_size;
	if (salt_size)
		memcpy(x->salt, salt, salt_size);
}

/* What is left of a damaged file's metadata: its descriptor's fields and its signature */
struct e2v_remnant {
	int have_desc; /* the size word led to 256 bytes or more */
	unsigned int alg, block_size, salt_size;
	uint8_t salt[E2VERITY_MAX_SALT_SIZE];
	uint8_t *sig;
	size_t sig_size;
};

/* Reads what can still be read; a file without any of it is no error. */
static errcode_t e2v_read_remnant(ext2_filsys fs, ext2_ino_t ino, struct e2v_remnant *rm)
{
	struct e2v_ext4_file f;
	struct e2v_verity_meta m;
	const uint8_t *raw;
	size_t room;
	errcode_t err;

	memset(rm, 0, sizeof(*rm));
	err = e2v_ext4_file_open(fs, ino, &f);
	if (err)
		return err == E2VERITY_ET_NO_MEMORY ? err : 0;
	if (!(f.inode.i_flags & EXT4_VERITY_FL))
		goto out;
	err = e2v_verity_meta_read(&f, &m);
	if (!m.raw) {
		err = err == E2VERITY_ET_NO_MEMORY ? err : 0;
		goto out;
	}
	err = 0;
	raw = m.raw;
	rm->have_desc = 1;
	/* each field taken only when the kernel could have written it */
	if (raw[1] == E2VERITY_HASH_SHA256 || raw[1] == E2VERITY_HASH_SHA512)
		rm->alg = raw[1];
	if (raw[2] >= 10 && raw[2] <= 16 && (1u << raw[2]) <= fs->blocksize)
		rm->block_size = 1u << raw[2];
	if (raw[3] <= E2VERITY_MAX_SALT_SIZE) {
		rm->salt_size = raw[3];
		memcpy(rm->salt, raw + 80, raw[3]);
	}
	/* the signature follows; its size is the descriptor's, or all the room the size word gives
	 */
	room = m.layout.desc_size - E2VERITY_DESCRIPTOR_SIZE;
	rm->sig_size = e2v_get_le32(raw + 4) && e2v_get_le32(raw + 4) <= room
			       ? e2v_get_le32(raw + 4)
			       : room;
	if (rm->sig_size) {
		rm->sig = malloc(rm->sig_size);
		if (!rm->sig)
			err = E2VERITY_ET_NO_MEMORY;
		else
			memcpy(rm->sig, raw + E2VERITY_DESCRIPTOR_SIZE, rm->sig_size);
	}
	e2v_verity_meta_free(&m);
out:
	e2v_ext4_file_close(&f);
	return err;
}

/*
 * The parameters to try, most likely first: those recorded with the trusted
 * digest; what the damaged descriptor still says; the defaults.  A wrong
 * guess costs a pass over the data, never a wrong seal: the digest covers
 * every parameter.
 */
static void e2v_candidates(ext2_filsys fs, const struct e2verity_repair_opts *o,
			   const struct e2v_remnant *rm, struct e2v_candidates *c)
{
	unsigned int algs[2], nalg = 0, bss[2], nbs = 0;
	const unsigned int dflt_bs = fs->blocksize < E2VERITY_DEFAULT_BLOCK_SIZE
					     ? fs->blocksize
					     : E2VERITY_DEFAULT_BLOCK_SIZE;

	c->n = 0;
	if (o->digest)
		algs[nalg++] = o->hash_alg;
	else if (rm->alg)
		algs[nalg++] = rm->alg;
	else {
		algs[nalg++] = E2VERITY_HASH_SHA256;
		algs[nalg++] = E2VERITY_HASH_SHA512;
	}
	if (o->block_size) {
		bss[nbs++] = o->block_size;
	} else {
		if (rm->block_size)
			bss[nbs++] = rm->block_size;
		/* and the default, unless it is that (no size known: 0, never the default) */
		if (rm->block_size != dflt_bs)
			bss[nbs++] = dflt_bs;
	}
	for (unsigned int a = 0; a < nalg; a++) {
		for (unsigned int b = 0; b < nbs; b++) {
			if (o->have_salt) {
				e2v_cand_add(c, algs[a], bss[b], o->salt, o->salt_size);
				continue;
			}
			if (rm->salt_size)
				e2v_cand_add(c, algs[a], bss[b], rm->salt, rm->salt_size);
			e2v_cand_add(c, algs[a], bss[b], NULL, 0);
		}
	}
}

/* The digest the data gives with one candidate, without writing */
static errcode_t e2v_candidate_digest(ext2_filsys fs, ext2_ino_t ino,
				      const struct e2verity_repair_opts *o,
				      const struct e2v_candidate *cd, struct e2verity_result *res)
{
	struct e2verity_seal_opts so = { 0 };
	struct e2v_tree_repair r = { .opts = o };
	struct e2v_ext4_file f;
	errcode_t err;

	so.params = (struct e2verity_params){ .hash_alg = cd->alg,
					      .block_size = cd->block_size,
					      .salt = cd->salt_size ? cd->salt : NULL,
					      .salt_size = cd->salt_size,
					      .threads = o->threads };
	err = e2verity_params_validate(&so.params);
	if (err)
		return err;
	err = e2v_ext4_file_open(fs, ino, &f);
	if (err == E2VERITY_ET_INLINE_DATA) {
		/* sealing moves the data into a block first: the seal's own path knows how */
		so.flags = E2VERITY_SEAL_FORCE | E2VERITY_SEAL_REHASH;
		so.cancel = o->cancel;
		return e2verity_seal_digest(fs, ino, &so, res);
	}
	if (err)
		return err;
	r.f = &f;
	err = e2verity_compute_sparse(&so.params, f.size, e2v_repair_read, e2v_repair_seek, &r,
				      NULL, NULL, res);
	e2v_ext4_file_close(&f);
	return err;
}

/* What the seal's signing step checks and hands over: the second hashing must agree */
struct e2v_reseal_gate {
	unsigned int alg;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
	const uint8_t *sig;
	size_t sig_size;
};

static errcode_t e2v_reseal_sign(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
				 size_t *sig_size)
{
	const struct e2v_reseal_gate *g = ctx;

	*sig = NULL;
	*sig_size = 0;
	if (alg != g->alg || memcmp(digest, g->digest, g->digest_size) != 0)
		return E2VERITY_ET_REPAIR_UNTRUSTED;
	if (!g->sig_size)
		return 0;
	*sig = malloc(g->sig_size);
	if (!*sig)
		return E2VERITY_ET_NO_MEMORY;
	memcpy(*sig, g->sig, g->sig_size);
	*sig_size = g->sig_size;
	return 0;
}

/* Whether the built-in signature of the damaged file may go back with the trusted digest */
static int e2v_keep_signature(const struct e2verity_repair_opts *o, const struct e2v_remnant *rm,
			      unsigned int alg, const uint8_t *digest)
{
	if (!rm->sig_size)
		return 0;
	if (o->verifier)
		return e2verity_verifier_verify(o->verifier, alg, digest, rm->sig, rm->sig_size) ==
		       0;
	return e2verity_signature_parse(rm->sig, rm->sig_size) == 0;
}

errcode_t e2verity_repair_reseal(ext2_filsys fs, ext2_ino_t ino,
				 const struct e2verity_repair_opts *opts,
				 struct e2verity_repair_result *res)
{
	struct e2v_reseal_gate gate = { 0 };
	struct e2verity_seal_opts so = { 0 };
	struct e2verity_seal_result sres;
	struct e2v_candidates cands;
	struct e2v_remnant rm;
	struct e2verity_result got;
	const struct e2v_candidate *trusted = NULL;
	errcode_t err;

	err = e2v_repair_begin(fs, opts->reserved, sizeof(opts->reserved), res);
	if (err)
		return err;
	if (opts->digest && !e2verity_hash_alg_by_num(opts->hash_alg))
		return E2VERITY_ET_BAD_HASH_ALG;
	if (!opts->digest && !opts->verifier)
		return E2VERITY_ET_REPAIR_NO_TRUST;
	err = e2v_read_remnant(fs, ino, &rm);
	if (err)
		return err;
	if (!opts->digest && !rm.sig_size) {
		err = E2VERITY_ET_REPAIR_NO_TRUST;
		goto out;
	}
	e2v_candidates(fs, opts, &rm, &cands);
	for (unsigned int i = 0; i < cands.n && !trusted; i++) {
		err = e2v_candidate_digest(fs, ino, opts, &cands.v[i], &got);
		if (err)
			goto out;
		if (opts->digest) {
			/* a manifest's word is final: a signature does not overrule it */
			if (memcmp(got.digest, opts->digest, got.digest_size) == 0) {
				trusted = &cands.v[i];
				res->trusted_by = E2VERITY_TRUST_DIGEST;
			}
		} else if (e2verity_verifier_verify(opts->verifier, cands.v[i].alg, got.digest,
						    rm.sig, rm.sig_size) == 0) {
			trusted = &cands.v[i];
			res->trusted_by = E2VERITY_TRUST_SIGNATURE;
		}
	}
	if (!trusted) {
		err = E2VERITY_ET_REPAIR_UNTRUSTED;
		goto out;
	}
	gate.alg = trusted->alg;
	gate.digest_size = got.digest_size;
	memcpy(gate.digest, got.digest, got.digest_size);
	if (res->trusted_by == E2VERITY_TRUST_SIGNATURE ||
	    e2v_keep_signature(opts, &rm, gate.alg, gate.digest)) {
		gate.sig = rm.sig;
		gate.sig_size = rm.sig_size;
		res->signature_kept = 1;
	} else {
		res->signature_dropped = rm.sig_size > 0;
	}
	so.params = (struct e2verity_params){ .hash_alg = trusted->alg,
					      .block_size = trusted->block_size,
					      .salt = trusted->salt_size ? trusted->salt : NULL,
					      .salt_size = trusted->salt_size,
					      .threads = opts->threads };
	so.flags = E2VERITY_SEAL_FORCE | E2VERITY_SEAL_REHASH;
	/* the signing step is the last gate: it sees the digest the seal computed itself */
	so.sign = e2v_reseal_sign;
	so.sign_ctx = &gate;
	so.sig_size_max = gate.sig_size ? gate.sig_size : 1;
	so.cancel = opts->cancel;
	err = e2verity_seal_inode(fs, ino, &so, &sres);
	if (err) {
		/* never left unsealed without its old metadata when the journal can take it back */
		if (err == E2VERITY_ET_REPAIR_UNTRUSTED && opts->txn)
			e2verity_txn_abort(opts->txn);
		goto out;
	}
	res->desc = sres.desc;
	memcpy(res->digest, sres.digest, sizeof(res->digest));
	res->digest_size = sres.digest_size;
	if (!e2verity_geometry(&so.params, sres.desc.data_size, &got.geo))
		res->tree_blocks = got.geo.tree_blocks;
out:
	free(rm.sig);
	return err;
}
