// SPDX-License-Identifier: GPL-2.0-or-later
/* check.c - check one verity inode: flags, extents, size word, descriptor, tree, signature */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_private.h"

/* Byte offsets in the on-disk descriptor (include/uapi/linux/fsverity.h) */
#define DESC_ROOT_HASH 16
#define DESC_SALT 80
#define DESC_RESERVED 112

/* damaged files whose blocks past EOF are checked for other owners (a scan of all inodes each) */
#define E2V_OWNER_CHECKS 8

/* the smallest page size Linux has: bytes up to its end share the EOF page */
#define E2V_MIN_PAGE_SIZE 4096

errcode_t e2v_report(struct e2v_check *c, unsigned int code, struct e2verity_finding *f)
{
	const struct e2verity_check_opts *o = c->opts;

	f->problem = e2verity_problem_lookup(code);
	f->ino = c->file->ino;
	if (f->problem->severity == E2VERITY_SEV_ERROR)
		c->file->errors++;
	else
		c->file->warnings++;
	return o->finding ? o->finding(o->ctx, f) : 0;
}

errcode_t e2v_report_values(struct e2v_check *c, unsigned int code, uint64_t value,
			    uint64_t expected, uint64_t offset)
{
	struct e2verity_finding f = { .value = value, .expected = expected, .offset = offset };

	return e2v_report(c, code, &f);
}

/* the first non-zero byte of @buf, or -1 */
static long e2v_first_nonzero(const uint8_t *buf, size_t len)
{
	/* nearly always all zeros: let memcmp scan it at memory speed */
	if (e2v_all_zero(buf, len))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			return i;
	return -1;
}

/*
 * The descriptor of a file whose size word is bad, found where ext4 would
 * have put it for some hash algorithm and tree block size: it tells how the
 * metadata should end.  Returns 1 and the layout if one is found.
 */
static int e2v_guess_layout(struct e2v_ext4_file *f, struct e2verity_ext4_layout *l)
{
	const unsigned int bs = f->fs->blocksize;
	const uint64_t mpos = e2v_round_up(f->size, E2VERITY_EXT4_METADATA_ALIGN);
	uint8_t raw[E2VERITY_DESCRIPTOR_SIZE];

	for (unsigned int alg = E2VERITY_HASH_SHA256; alg <= E2VERITY_HASH_SHA512; alg++) {
		for (unsigned int log = 10; log <= 16; log++) {
			struct e2verity_params p = { .hash_alg = alg, .block_size = 1u << log };
			struct e2verity_geometry g;
			uint64_t dpos;

			if (e2verity_geometry(&p, f->size, &g))
				continue;
			dpos = e2v_round_up(mpos + g.tree_size, bs);
			if (dpos / bs >= (1ULL << 32) ||
			    e2v_ext4_file_read(f, raw, sizeof(raw), dpos))
				continue;
			if (raw[0] != 1 || raw[1] != alg || raw[2] != log || raw[3] > 32 ||
			    e2v_get_le64(raw + 8) != f->size ||
			    e2v_get_le32(raw + 4) > E2VERITY_MAX_SIGNATURE_SIZE ||
			    !e2v_all_zero(raw + DESC_RESERVED, sizeof(raw) - DESC_RESERVED))
				continue;
			if (e2verity_ext4_layout(f->size, g.tree_size, e2v_get_le32(raw + 4), bs,
						 l))
				continue;
			return 1;
		}
	}
	return 0;
}

/* The layout that ends first, of every hash and tree block size the filesystem allows */
static int e2v_smallest_layout(struct e2v_ext4_file *f, struct e2verity_ext4_layout *min)
{
	int found = 0;

	for (unsigned int alg = E2VERITY_HASH_SHA256; alg <= E2VERITY_HASH_SHA512; alg++) {
		for (unsigned int log = 10; log <= 16 && (1u << log) <= f->fs->blocksize; log++) {
			struct e2verity_params p = { .hash_alg = alg, .block_size = 1u << log };
			struct e2verity_ext4_layout l;
			struct e2verity_geometry g;

			if (e2verity_geometry(&p, f->size, &g) ||
			    e2verity_ext4_layout(f->size, g.tree_size, 0, f->fs->blocksize, &l))
				continue;
			if (!found || l.end < min->end)
				*min = l;
			found = 1;
		}
	}
	return found;
}

/*
 * Whether the extents end where ext4 would start the descriptor for some hash
 * and block size the filesystem allows, and not where the whole metadata of
 * another one would end: then the size word, not the length, is what is wrong.
 */
static int e2v_ends_at_descriptor(struct e2v_ext4_file *f, uint64_t end,
				  struct e2verity_ext4_layout *l)
{
	int found = 0;

	for (unsigned int alg = E2VERITY_HASH_SHA256; alg <= E2VERITY_HASH_SHA512; alg++) {
		for (unsigned int log = 10; log <= 16 && (1u << log) <= f->fs->blocksize; log++) {
			struct e2verity_params p = { .hash_alg = alg, .block_size = 1u << log };
			struct e2verity_ext4_layout x;
			struct e2verity_geometry g;

			if (e2verity_geometry(&p, f->size, &g) ||
			    e2verity_ext4_layout(f->size, g.tree_size, 0, f->fs->blocksize, &x))
				continue;
			if (x.end == end)
				return 0;
			if (x.desc_pos == end && !found) {
				*l = x;
				found = 1;
			}
		}
	}
	return found;
}

/* The kernel could not locate the descriptor from the size word: say why, as far as we can. */
static errcode_t e2v_diagnose_location(struct e2v_check *c, struct e2v_ext4_file *f,
				       const struct e2verity_ext4_layout *got)
{
	const unsigned int bs = f->fs->blocksize;
	struct e2verity_ext4_layout want;
	struct e2verity_finding fi = { 0 };

	if (!e2v_guess_layout(f, &want)) {
		/*
		 * No descriptor anywhere ext4 could have put it.  If the extents end
		 * before the smallest metadata any tree this filesystem allows
		 * (tree blocks up to its block size) and a bare descriptor would
		 * take, the metadata was cut short.
		 */
		if (e2v_smallest_layout(f, &want) && got->end < want.end)
			return e2v_report_values(c, E2VERITY_PR_METADATA_TRUNCATED, got->end,
						 want.end, 0);
		/* or they end exactly where the descriptor of some tree would begin */
		if (e2v_ends_at_descriptor(f, got->end, &want))
			return e2v_report_values(c, E2VERITY_PR_METADATA_TRUNCATED, got->end,
						 want.end, 0);
		return e2v_report_values(c, E2VERITY_PR_NO_DESCRIPTOR, got->desc_size, 0,
					 got->size_pos);
	}
	if (got->end > want.end) {
		for (size_t i = 0; i < f->nr_extents; i++) {
			const struct e2v_extent *e = &f->extents[i];
			uint64_t first = e->lblk, last = e->lblk + e->len;

			if (first < want.end / bs)
				first = want.end / bs;
			if (last > first)
				fi.count += last - first;
		}
		fi.expected = want.end;
		return e2v_report(c, E2VERITY_PR_BLOCKS_PAST_METADATA, &fi);
	}
	if (got->end < want.end)
		return e2v_report_values(c, E2VERITY_PR_METADATA_TRUNCATED, got->end, want.end, 0);
	return e2v_report_values(c, E2VERITY_PR_SIZE_WORD_BAD, got->desc_size, want.desc_size,
				 got->size_pos);
}

/*
 * Validates every field, not just the first bad one as the kernel does.
 * Returns 1 if the fields allow hashing the data (the kernel may still refuse the
 * file), 0 if not; *@err gets a callback's error.
 */
static int e2v_check_fields(struct e2v_check *c, struct e2v_ext4_file *f,
			    const struct e2v_verity_meta *m, errcode_t *err)
{
	const struct e2verity_descriptor *d = &m->desc;
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(d->hash_algorithm);
	const uint8_t *raw = m->raw;
	struct e2verity_params p = { 0 };
	struct e2verity_geometry g;
	int hashable = 1;
	long nz;

#define REPORT(code, v, x, o)                                                                      \
	do {                                                                                       \
		*err = e2v_report_values(c, code, v, x, o);                                        \
		if (*err)                                                                          \
			return 0;                                                                  \
	} while (0)

	if (d->version != 1)
		REPORT(E2VERITY_PR_DESC_BAD_VERSION, d->version, 1, 0);
	if (!alg) {
		REPORT(E2VERITY_PR_DESC_BAD_HASH_ALG, d->hash_algorithm, 0, 1);
		hashable = 0;
	}
	if (d->log_blocksize < 10 || d->log_blocksize > 16) {
		REPORT(E2VERITY_PR_DESC_BAD_LOG_BLOCKSIZE, d->log_blocksize, 0, 2);
		hashable = 0;
	} else if ((1u << d->log_blocksize) > f->fs->blocksize) {
		REPORT(E2VERITY_PR_DESC_BLOCK_TOO_LARGE, 1u << d->log_blocksize, f->fs->blocksize,
		       2);
		hashable = 0;
	}
	if (d->salt_size > E2VERITY_MAX_SALT_SIZE) {
		REPORT(E2VERITY_PR_DESC_BAD_SALT_SIZE, d->salt_size, E2VERITY_MAX_SALT_SIZE, 3);
		hashable = 0;
	}
	if (d->sig_size > m->layout.desc_size - E2VERITY_DESCRIPTOR_SIZE)
		REPORT(E2VERITY_PR_DESC_BAD_SIG_SIZE, d->sig_size,
		       m->layout.desc_size - E2VERITY_DESCRIPTOR_SIZE, 4);
	if (d->data_size != f->size) {
		REPORT(E2VERITY_PR_DESC_BAD_DATA_SIZE, d->data_size, f->size, 8);
		hashable = 0;
	}
	if (alg) {
		nz = e2v_first_nonzero(raw + DESC_ROOT_HASH + alg->digest_size,
				       DESC_SALT - DESC_ROOT_HASH - alg->digest_size);
		if (nz >= 0)
			REPORT(E2VERITY_PR_DESC_ROOT_PADDING,
			       raw[DESC_ROOT_HASH + alg->digest_size + nz], 0,
			       DESC_ROOT_HASH + alg->digest_size + nz);
	}
	if (d->salt_size <= E2VERITY_MAX_SALT_SIZE) {
		nz = e2v_first_nonzero(raw + DESC_SALT + d->salt_size,
				       DESC_RESERVED - DESC_SALT - d->salt_size);
		if (nz >= 0)
			REPORT(E2VERITY_PR_DESC_SALT_PADDING, raw[DESC_SALT + d->salt_size + nz], 0,
			       DESC_SALT + d->salt_size + nz);
	}
	nz = e2v_first_nonzero(raw + DESC_RESERVED, E2VERITY_DESCRIPTOR_SIZE - DESC_RESERVED);
	if (nz >= 0)
		REPORT(E2VERITY_PR_DESC_RESERVED_SET, raw[DESC_RESERVED + nz], 0,
		       DESC_RESERVED + nz);
	if (hashable) {
		p.hash_alg = d->hash_algorithm;
		p.block_size = 1u << d->log_blocksize;
		if (e2verity_geometry(&p, d->data_size, &g)) {
			REPORT(E2VERITY_PR_DESC_TOO_MANY_LEVELS, 0, 0, 0);
			hashable = 0;
		}
	}
#undef REPORT
	return hashable;
}

/* Metadata that the kernel accepts but that is not where ext4 puts it. */
static errcode_t e2v_check_layout(struct e2v_check *c, struct e2v_ext4_file *f,
				  const struct e2v_verity_meta *m)
{
	const struct e2verity_descriptor *d = &m->desc;
	struct e2verity_params p = { .hash_alg = d->hash_algorithm,
				     .block_size = 1u << d->log_blocksize };
	struct e2verity_ext4_layout want;
	struct e2verity_geometry g;
	uint32_t sig = d->sig_size <= E2VERITY_MAX_SIGNATURE_SIZE ? d->sig_size : 0;

	if (e2verity_geometry(&p, d->data_size, &g) ||
	    e2verity_ext4_layout(f->size, g.tree_size, sig, f->fs->blocksize, &want))
		return 0;
	if (m->layout.desc_pos != want.desc_pos || m->layout.end != want.end)
		return e2v_report_values(c, E2VERITY_PR_METADATA_LAYOUT, m->layout.end, want.end,
					 m->layout.desc_pos);
	if (m->layout.desc_size != want.desc_size)
		return e2v_report_values(c, E2VERITY_PR_SIZE_WORD_UNUSUAL, m->layout.desc_size,
					 want.desc_size, m->layout.size_pos);
	return 0;
}

/*
 * The tree the descriptor describes must lie in blocks the file really has,
 * before the descriptor: work is then bounded by the image, not by the
 * sizes it claims.  Returns 1 if the tree can be hashed.
 */
static int e2v_check_tree_space(struct e2v_check *c, struct e2v_ext4_file *f,
				const struct e2v_verity_meta *m, errcode_t *err)
{
	const struct e2verity_descriptor *d = &m->desc;
	const unsigned int bs = f->fs->blocksize;
	struct e2verity_params p = { .hash_alg = d->hash_algorithm,
				     .block_size = 1u << d->log_blocksize };
	const uint64_t mpos = m->layout.merkle_pos;
	struct e2verity_finding fi = { 0 };
	struct e2verity_geometry g;
	blk64_t first, end, hole, missing;

	*err = e2verity_geometry(&p, d->data_size, &g);
	if (*err)
		return 0;
	if (g.tree_size > m->layout.desc_pos - mpos) {
		*err = e2v_report_values(c, E2VERITY_PR_TREE_PAST_DESCRIPTOR, g.tree_size,
					 m->layout.desc_pos, mpos);
		return 0;
	}
	first = mpos / bs;
	end = e2v_div_round_up(mpos + g.tree_size, bs);
	missing = e2v_ext4_unmapped(f, first, end, &hole);
	if (!missing)
		return 1;
	fi.offset = hole * bs;
	fi.count = missing;
	fi.value = end - first;
	*err = e2v_report(c, E2VERITY_PR_TREE_HOLE, &fi);
	return 0;
}

/*
 * Bytes after EOF up to the Merkle tree must read as zeros: the kernel hashes
 * the page holding EOF whole (an error if not), and the rest should be a hole.
 */
static errcode_t e2v_check_tail(struct e2v_check *c, struct e2v_ext4_file *f)
{
	const uint64_t mpos = e2v_round_up(f->size, E2VERITY_EXT4_METADATA_ALIGN);
	const unsigned int page =
		f->fs->blocksize > E2V_MIN_PAGE_SIZE ? f->fs->blocksize : E2V_MIN_PAGE_SIZE;
	uint64_t pos = f->size, eof_page_end = e2v_round_up(f->size, page);
	uint8_t buf[4096];
	errcode_t err;
	long nz;

	while (pos < mpos) {
		size_t len = mpos - pos < sizeof(buf) ? mpos - pos : sizeof(buf);

		err = e2v_ext4_file_read(f, buf, len, pos);
		if (err)
			return err;
		nz = e2v_first_nonzero(buf, len);
		if (nz >= 0) {
			pos += nz;
			return e2v_report_values(c,
						 pos < eof_page_end ? E2VERITY_PR_TAIL_NOT_ZERO
								    : E2VERITY_PR_GAP_NOT_ZERO,
						 buf[nz], 0, pos);
		}
		pos += len;
	}
	return 0;
}

static errcode_t e2v_check_signature(struct e2v_check *c, const struct e2v_verity_meta *m)
{
	const struct e2verity_check_opts *o = c->opts;
	struct e2verity_check_file *file = c->file;
	errcode_t err;

	if (!m->sig) {
		if (o->require_signatures)
			return e2v_report_values(c, E2VERITY_PR_UNSIGNED, 0, 0, 0);
		return 0;
	}
	file->signed_file = 1;
	/* without a certificate it can still be garbage the kernel would refuse */
	if (!o->certfile && !o->cafile)
		err = e2verity_signature_parse(m->sig, m->desc.sig_size);
	else
		err = e2verity_verify_signature(m->desc.hash_algorithm, file->digest, m->sig,
						m->desc.sig_size, o->certfile, o->cafile);
	switch (err) {
	case 0:
		file->signature_verified = o->certfile || o->cafile;
		return 0;
	case E2VERITY_ET_SIG_MALFORMED:
		return e2v_report_values(c, E2VERITY_PR_SIG_MALFORMED, m->desc.sig_size, 0, 0);
	case E2VERITY_ET_SIG_INVALID:
		return e2v_report_values(c, E2VERITY_PR_SIG_MISMATCH, 0, 0, 0);
	case E2VERITY_ET_CERT_UNTRUSTED:
		return e2v_report_values(c, E2VERITY_PR_SIG_UNTRUSTED, 0, 0, 0);
	case E2VERITY_ET_SIGNER_NOT_FOUND:
		return e2v_report_values(c, E2VERITY_PR_SIG_NO_SIGNER, 0, 0, 0);
	default:
		/* the certificate cannot be loaded: nothing to do with this file */
		return err;
	}
}

static int e2v_is_decode_error(errcode_t err)
{
	switch (err) {
	case E2VERITY_ET_DESC_TOO_SHORT:
	case E2VERITY_ET_DESC_TOO_LARGE:
	case E2VERITY_ET_DESC_VERSION:
	case E2VERITY_ET_DESC_HASH_ALG:
	case E2VERITY_ET_DESC_LOG_BLOCKSIZE:
	case E2VERITY_ET_DESC_SALT_SIZE:
	case E2VERITY_ET_DESC_SIG_SIZE:
	case E2VERITY_ET_DESC_RESERVED:
	case E2VERITY_ET_DESC_TOO_MANY_LEVELS:
		return 1;
	}
	return 0;
}

/* Everything after the inode flags: the file's extents are readable. */
static errcode_t e2v_check_file(struct e2v_check *c, struct e2v_ext4_file *f)
{
	const struct e2v_extent *last = e2v_ext4_last_extent(f);
	struct e2verity_check_file *file = c->file;
	struct e2v_verity_meta m;
	unsigned int errors;
	errcode_t err;
	int hashable;

	if (!last)
		return e2v_report_values(c, E2VERITY_PR_NO_EXTENT, 0, 0, 0);
	if (last->uninit) {
		struct e2verity_finding fi = { .block = last->lblk };

		return e2v_report(c, E2VERITY_PR_LAST_EXTENT_UNWRITTEN, &fi);
	}
	err = e2v_verity_meta_read(f, &m);
	if (err && !m.raw) {
		/* the size word does not lead to a descriptor */
		if (err == E2VERITY_ET_NO_DESCRIPTOR || err == E2VERITY_ET_DESC_TOO_SHORT ||
		    err == E2VERITY_ET_DESC_TOO_LARGE)
			err = e2v_diagnose_location(c, f, &m.layout);
		goto out;
	}
	/* a decoding error is reported field by field below; a read error is ours */
	if (err && !e2v_is_decode_error(err))
		goto out;
	err = 0;
	errors = file->errors;
	hashable = e2v_check_fields(c, f, &m, &err);
	if (err)
		goto out;
	if (file->errors == errors) {
		file->have_descriptor = 1;
		file->desc = m.desc;
		file->digest_size = e2verity_hash_alg_by_num(m.desc.hash_algorithm)->digest_size;
		err = e2verity_descriptor_digest(&m.desc, file->digest);
		if (err)
			goto out;
	}
	if (hashable) {
		/* where ext4 would have put a descriptor that is itself wrong tells nothing */
		if (file->have_descriptor)
			err = e2v_check_layout(c, f, &m);
		if (!err && e2v_check_tree_space(c, f, &m, &err)) {
			err = e2v_check_tail(c, f);
			if (!err)
				err = e2v_check_tree(c, f, &m);
		}
		if (err)
			goto out;
	}
	if (file->have_descriptor)
		err = e2v_check_signature(c, &m);
out:
	e2v_verity_meta_free(&m);
	return err;
}

/*
 * Damaged metadata may be another file's blocks, or the filesystem's: what
 * unseal and seal --force would refuse to free is worth saying here.
 */
static errcode_t e2v_check_owner(struct e2v_check *c, struct e2v_ext4_file *f)
{
	struct e2verity_finding fi = { 0 };

	fi.err = e2v_check_past_eof(f, e2v_div_round_up(f->size, f->fs->blocksize), NULL);
	if (!fi.err)
		return 0;
	if (fi.err == E2VERITY_ET_NO_MEMORY)
		return fi.err;
	return e2v_report(c, E2VERITY_PR_METADATA_NOT_OWN, &fi);
}

/* Flags and mode of the inode, then its contents. */
static errcode_t e2v_check_flags(struct e2v_check *c, ext2_ino_t ino)
{
	struct ext2_inode_large inode;
	struct e2v_ext4_file f;
	uint32_t flags;
	errcode_t err;

	err = ext2fs_read_inode_full(c->fs, ino, EXT2_INODE(&inode), sizeof(inode));
	if (err)
		return err;
	flags = inode.i_flags;
	c->file->data_size = EXT2_I_SIZE(EXT2_INODE(&inode));
	if (!(flags & EXT4_VERITY_FL))
		return e2v_report_values(c, E2VERITY_PR_NOT_SEALED, 0, 0, 0);
	if (!ext2fs_has_feature_verity(c->fs->super)) {
		err = e2v_report_values(c, E2VERITY_PR_NO_VERITY_FEATURE, 0, 0, 0);
		if (err)
			return err;
	}
	if (!LINUX_S_ISREG(inode.i_mode))
		return e2v_report_values(c, E2VERITY_PR_NOT_REGULAR, inode.i_mode, 0, 0);
	if ((flags & EXT4_ENCRYPT_FL) && !ext2fs_has_feature_encrypt(c->fs->super))
		return e2v_report_values(c, E2VERITY_PR_ENCRYPT_NO_FEATURE, 0, 0, 0);
	if (flags & EXT4_ENCRYPT_FL) {
		c->file->skipped = 1;
		return e2v_report_values(c, E2VERITY_PR_ENCRYPTED, 0, 0, 0);
	}
	if (flags & EXT4_INLINE_DATA_FL)
		return e2v_report_values(c, E2VERITY_PR_INLINE_DATA, 0, 0, 0);
	if (!(flags & EXT4_EXTENTS_FL))
		return e2v_report_values(c, E2VERITY_PR_NO_EXTENTS_FLAG, 0, 0, 0);
	if (c->file->data_size > e2v_ext4_max_bytes(c->fs))
		return e2v_report_values(c, E2VERITY_PR_SIZE_TOO_LARGE, c->file->data_size,
					 e2v_ext4_max_bytes(c->fs), 0);

	err = e2v_ext4_file_open(c->fs, ino, &f);
	if (err == E2VERITY_ET_NO_MEMORY)
		return err;
	if (err) {
		struct e2verity_finding fi = { .err = err };

		return e2v_report(c, E2VERITY_PR_EXTENTS_UNREADABLE, &fi);
	}
	err = e2v_check_file(c, &f);
	/* a scan of every inode: for the first damaged files only, so work stays bounded */
	if (!err && c->file->errors && c->stats->failed < E2V_OWNER_CHECKS)
		err = e2v_check_owner(c, &f);
	e2v_ext4_file_close(&f);
	return err;
}

static errcode_t e2v_check_inode_with(ext2_filsys fs, ext2_ino_t ino,
				      const struct e2verity_check_opts *opts,
				      struct e2verity_check_stats *stats, uint64_t progress_base,
				      uint64_t progress_total, const struct e2v_ahead_job *job);

errcode_t e2v_check_one(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_check_opts *opts,
			struct e2verity_check_stats *stats, uint64_t progress_base,
			uint64_t progress_total, struct e2verity_batch *batch)
{
	struct e2v_ahead_job *job = e2v_ahead_take(batch, ino);
	errcode_t err;

	err = e2v_check_inode_with(fs, ino, opts, stats, progress_base, progress_total, job);
	e2v_ahead_job_free(job);
	return err;
}

static errcode_t e2v_check_inode_with(ext2_filsys fs, ext2_ino_t ino,
				      const struct e2verity_check_opts *opts,
				      struct e2verity_check_stats *stats, uint64_t progress_base,
				      uint64_t progress_total, const struct e2v_ahead_job *job)
{
	struct e2verity_check_file file = { .ino = ino };
	struct e2v_check c = {
		.fs = fs,
		.opts = opts,
		.file = &file,
		.stats = stats,
		.progress_base = progress_base,
		.progress_total = progress_total,
		.ahead = job,
	};
	errcode_t err;

	err = e2v_check_flags(&c, ino);
	if (err)
		return err;
	stats->files++;
	stats->errors += file.errors;
	stats->warnings += file.warnings;
	if (file.errors)
		stats->failed++;
	else if (file.skipped)
		stats->skipped++;
	else
		stats->passed++;
	if (file.signed_file)
		stats->signed_files++;
	return opts->file_done ? opts->file_done(opts->ctx, &file) : 0;
}

errcode_t e2verity_check_inode(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_check_opts *opts,
			       struct e2verity_check_stats *stats)
{
	struct ext2_inode inode;
	errcode_t err;

	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	return e2v_check_one(fs, ino, opts, stats, 0, EXT2_I_SIZE(&inode), NULL);
}
