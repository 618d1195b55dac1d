// SPDX-License-Identifier: GPL-2.0-or-later
/* check_inode.c - check one verity inode: flags, extents, size word, descriptor, tree, signature */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_inode.h"
#include "check_location.h"
#include "core/descriptor.h"
#include "core/geometry.h"
#include "ext4/image.h"
#include "ext4/inode_rules.h"
#include "ext4/layout.h"
#include "ext4/past_eof.h"
#include "ext4/read_path.h"
#include "check_tree.h"
#include "report.h"
#include "core/verify.h"

/* damaged files whose blocks past EOF are checked for other owners (a scan of all inodes each) */
#define E2V_OWNER_CHECKS 8

/* the smallest page size Linux has: bytes up to its end share the EOF page */
#define E2V_MIN_PAGE_SIZE 4096

/*
 * Reports every bad field of the descriptor, not just the first as the kernel
 * does.  Returns 1 if the fields allow hashing the data (the kernel may still
 * refuse the file), 0 if not; *@err gets a callback's error.
 */
static int e2v_check_fields(struct e2v_check *c, struct e2v_ext4_file *f,
			    const struct e2v_verity_meta *m, errcode_t *err)
{
	const struct e2v_desc_limits lim = { .stored = m->layout.desc_size,
					     .have_data_size = 1,
					     .data_size = f->size,
					     .fs_block_size = f->fs->blocksize };
	struct e2v_desc_problem found[E2V_DESC_MAX_PROBLEMS];
	int hashable;
	size_t n;

	n = e2v_descriptor_problems(m->raw, &lim, found, &hashable);
	for (size_t i = 0; i < n; i++) {
		*err = e2v_report_values(c, found[i].code, found[i].value, found[i].expected,
					 found[i].offset);
		if (*err)
			return 0;
	}
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
	    e2v_ext4_layout(f->size, g.tree_size, sig, f->fs->blocksize, &want))
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

	/* the thread that hashed the file ahead looked at the block holding EOF */
	if (c->ahead && c->ahead->tail_zero && c->ahead->size == f->size)
		pos = e2v_round_up(f->size, f->fs->blocksize);
	while (pos < mpos) {
		size_t len = mpos - pos < sizeof(buf) ? mpos - pos : sizeof(buf);
		uint64_t next = e2v_ext4_next_data(f, pos);

		/* holes read as zeros: only what is mapped needs a look */
		if (next >= mpos)
			break;
		if (next > pos) {
			pos = next;
			len = mpos - pos < sizeof(buf) ? mpos - pos : sizeof(buf);
		}
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
	const struct e2verity_verifier *ver = o->verifier;
	struct e2verity_verifier *own = NULL;
	struct e2v_sig_report rep;
	errcode_t err;

	if (!m->sig) {
		if (o->require_signatures)
			return e2v_report_values(c, E2VERITY_PR_UNSIGNED, 0, 0, 0);
		return 0;
	}
	file->signed_file = 1;
	/* a caller of e2verity_check_inode() may give the files alone */
	if (!ver && (o->certfile || o->cafile)) {
		err = e2verity_verifier_load(o->certfile, o->cafile, e2v_image_log(c->fs)->fn,
					     e2v_image_log(c->fs)->ctx, &own);
		if (err)
			return err;
		ver = own;
	}
	if (e2v_ahead_judged(c->ahead, ver, m->desc.hash_algorithm, file->digest, file->digest_size,
			     m->sig, m->desc.sig_size)) {
		E2V_ANALYZER_ASSUME(c->ahead); /* e2v_ahead_judged() is 0 without a job */
		rep = c->ahead->verify_rep;
		err = 0;
	} else {
		/* without a certificate it can still be one the kernel refuses whatever its keys */
		err = e2v_signature_check(m->desc.hash_algorithm, file->digest, m->sig,
					  m->desc.sig_size, ver, &rep);
	}
	e2verity_verifier_free(own);
	if (err)
		return err;
	for (unsigned int i = 0; i < rep.count; i++) {
		uint64_t value = rep.f[i].value;

		/* SIG_MALFORMED tells the size the descriptor gives */
		if (rep.f[i].code == E2VERITY_PR_SIG_MALFORMED)
			value = m->desc.sig_size;
		err = e2v_report_values(c, rep.f[i].code, value, rep.f[i].expected, 0);
		if (err)
			return err;
	}
	file->signature_verified = rep.verified;
	return 0;
}

/*
 * What the kernel the image is for cannot read: its filesystem blocks, which
 * it would not even mount, or its tree blocks, whose file it would not open.
 */
static errcode_t e2v_check_kernel(struct e2v_check *c, struct e2v_ext4_file *f,
				  const struct e2verity_descriptor *d)
{
	const struct e2verity_check_opts *o = c->opts;
	const unsigned int page = o->kernel_page_size ? o->kernel_page_size : 4096;
	const unsigned int bs = f->fs->blocksize, tbs = 1u << d->log_blocksize;
	unsigned int need;

	if (!o->min_kernel)
		return 0;
	/* the filesystem alone: a tree block of the filesystem's size is the best case */
	need = e2verity_kernel_min(bs, bs < page ? bs : page, page);
	if (!need || need > o->min_kernel)
		return e2v_report_values(c, E2VERITY_PR_KERNEL_FS_BLOCK, bs, page, 0);
	need = e2verity_kernel_min(bs, tbs, page);
	if (!need || need > o->min_kernel)
		return e2v_report_values(c, E2VERITY_PR_KERNEL_TREE_BLOCK, tbs, page, 0);
	return 0;
}

/* Whether security.ima is looked at: the IMA options ask for it */
static int e2v_wants_ima(const struct e2verity_check_opts *o)
{
	return o->ima_verifier || o->ima_certfile || o->require_ima;
}

/*
 * security.ima as the kernel's appraisal judges it under a verity sigv3
 * policy: there, an fs-verity signature, by a key of the keyring, of this
 * digest.  Without certificates, its form only.
 */
static errcode_t e2v_check_ima(struct e2v_check *c)
{
	const struct e2verity_check_opts *o = c->opts;
	struct e2verity_check_file *file = c->file;
	struct e2verity_ima_verifier *own = NULL;
	const struct e2verity_ima_verifier *v = o->ima_verifier;
	struct e2verity_finding fi = { 0 };
	struct e2verity_ima_sig h;
	uint8_t *value = NULL;
	size_t len;
	errcode_t err;

	if (!e2v_wants_ima(o))
		return 0;
	err = e2verity_ima_get(c->fs, file->ino, &value, &len);
	if (err == E2VERITY_ET_IMA_NONE)
		return o->require_ima ? e2v_report_values(c, E2VERITY_PR_IMA_MISSING, 0, 0, 0) : 0;
	if (err == E2VERITY_ET_NO_MEMORY)
		return err;
	if (err) {
		fi.err = err;
		return e2v_report(c, E2VERITY_PR_IMA_UNREADABLE, &fi);
	}
	err = e2verity_ima_parse(value, len, &h);
	if (err == E2VERITY_ET_IMA_NOT_VERITY) {
		file->ima = E2VERITY_CHECK_IMA_OTHER;
		err = e2v_report_values(c, E2VERITY_PR_IMA_NOT_VERITY, h.type, 0, 0);
		goto out;
	}
	if (err) {
		file->ima = E2VERITY_CHECK_IMA_MALFORMED;
		err = e2v_report_values(c, E2VERITY_PR_IMA_MALFORMED, len, 0, 0);
		goto out;
	}
	file->ima = E2VERITY_CHECK_IMA_VERITY;
	file->ima_key_id = h.key_id;
	c->stats->ima_files++;
	/* a certificate that cannot be read fails the call, as for built-in signatures */
	if (!v && o->ima_certfile) {
		err = e2verity_ima_verifier_load(o->ima_certfile, e2v_image_log(c->fs)->fn,
						 e2v_image_log(c->fs)->ctx, &own);
		if (err)
			goto out;
		v = own;
	}
	if (!v)
		goto out;
	err = e2verity_ima_verify(v, file->desc.hash_algorithm, file->digest, value, len);
	switch (err) {
	case 0:
		file->ima_verified = 1;
		break;
	case E2VERITY_ET_IMA_UNKNOWN_KEY:
		err = e2v_report_values(c, E2VERITY_PR_IMA_UNKNOWN_KEY, h.key_id, 0, 0);
		break;
	case E2VERITY_ET_IMA_MISMATCH:
		err = e2v_report_values(c, E2VERITY_PR_IMA_MISMATCH, h.key_id, 0, 0);
		break;
	}
out:
	e2verity_ima_verifier_free(own);
	free(value);
	return err;
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
		/* the hashing thread's, when it made this very descriptor: a hash fewer here */
		if (c->ahead && e2v_descriptor_same_digest(&m.desc, &c->ahead->res.desc))
			memcpy(file->digest, c->ahead->res.digest, file->digest_size);
		else
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
	if (file->have_descriptor) {
		err = e2v_check_kernel(c, f, &m.desc);
		if (!err)
			err = e2v_check_signature(c, &m);
		if (!err)
			err = e2v_check_ima(c);
	}
out:
	e2v_verity_meta_free(&m);
	return err;
}

/*
 * Metadata may be another file's blocks, or the filesystem's: what unseal
 * and seal --force would refuse to free is worth saying here.  Another
 * inode's unreadable map is not this file's fault: it goes unsaid.
 */
static errcode_t e2v_check_owner(struct e2v_check *c, struct e2v_ext4_file *f)
{
	struct e2verity_finding fi = { 0 };

	fi.err = e2v_check_past_eof(f, e2v_div_round_up(f->size, f->fs->blocksize), c->owners);
	if (!fi.err || fi.err == E2VERITY_ET_META_UNPROVEN)
		return 0;
	if (fi.err == E2VERITY_ET_NO_MEMORY)
		return fi.err;
	return e2v_report(c, E2VERITY_PR_METADATA_NOT_OWN, &fi);
}

/* What the kernel refuses in the extent tree (or never reads), as a finding */
static errcode_t e2v_report_fault(struct e2v_check *c, const struct e2v_extent_fault *x)
{
	struct e2verity_finding fi = {
		.value = x->value, .expected = x->expected, .count = x->count, .block = x->node
	};

	return e2v_report(c, x->problem, &fi);
}

/*
 * The metadata region the hashing thread read for @j (taken from it), when
 * it is the one of @f: the same i_size and extents of the same image (check
 * writes nothing), so the same bytes.  Saves a read per file.
 */
static void e2v_check_meta_from(struct e2v_ahead_job *j, struct e2v_ext4_file *f)
{
	/* struct e2v_extent has no padding: memcmp() compares its fields */
	if (!j->meta || f->meta || j->size != f->size || j->nr_extents != f->nr_extents ||
	    memcmp(j->extents, f->extents, f->nr_extents * sizeof(*f->extents)) != 0)
		return;
	/* the same extents and size: the same region, of the same length */
	f->meta = j->meta;
	f->meta_buf = j->meta_buf;
	j->meta = NULL;
	j->meta_buf = NULL;
}

/* The directories on the path that named the file, as the kernel's lookup reads them */
static errcode_t e2v_check_lookup(struct e2v_check *c)
{
	struct e2v_lookup_fault found[E2V_LOOKUP_MAX_FAULTS];
	size_t n;
	errcode_t err;

	if (!c->path)
		return 0;
	err = e2v_lookup_judge(c->fs, c->path, found, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		struct e2verity_finding fi = { .value = found[i].dir, .block = found[i].lblk };

		err = e2v_report(c, found[i].problem, &fi);
	}
	return err;
}

/*
 * The inode as __ext4_iget() loads it for a lookup by name, before anything
 * else: each refusal is an error, and the checks go on to report more.
 */
static errcode_t e2v_check_iget(struct e2v_check *c, ext2_ino_t ino)
{
	struct e2v_iget_fault found[E2V_IGET_MAX_FAULTS];
	size_t n;
	errcode_t err;

	err = e2v_check_lookup(c);
	if (err)
		return err;
	err = e2v_iget_judge(c->fs, e2v_owners_zone(c->owners), ino, found, &n);
	if (err == E2VERITY_ET_NO_MEMORY)
		return err;
	/* the inode table block cannot be read: libext2fs' read below says so */
	if (err)
		return 0;
	for (size_t i = 0; i < n && !err; i++) {
		struct e2verity_finding fi = { .value = found[i].value,
					       .expected = found[i].expected };

		/* a checksum reads as the hex of its 32-bit value */
		if (found[i].problem == E2VERITY_PR_INODE_CHECKSUM) {
			fi.hash_size = 4;
			for (unsigned int b = 0; b < 4; b++) {
				fi.stored[b] = found[i].value >> (24 - 8 * b);
				fi.computed[b] = found[i].expected >> (24 - 8 * b);
			}
		}
		err = e2v_report(c, found[i].problem, &fi);
	}
	return err;
}

/* Flags and mode of the inode, then its contents. */
static errcode_t e2v_check_flags(struct e2v_check *c, ext2_ino_t ino)
{
	struct e2v_ahead_job *j = c->ahead;
	/* check writes nothing: what the prepare callback read of the file is still true */
	const int prepared = j && j->opened && j->ino == ino;
	const struct e2v_inode_rule *rule;
	struct ext2_inode_large inode;
	struct e2v_ext4_file f;
	errcode_t err = 0;

	err = e2v_check_iget(c, ino);
	if (err)
		return err;
	if (prepared)
		inode = j->inode;
	else
		err = ext2fs_read_inode_full(c->fs, ino, EXT2_INODE(&inode), sizeof(inode));
	if (err)
		return err;
	c->file->data_size = EXT2_I_SIZE(EXT2_INODE(&inode));
	if (!(inode.i_flags & EXT4_VERITY_FL))
		return e2v_report_values(c, E2VERITY_PR_NOT_SEALED, 0, 0, 0);
	if (!ext2fs_has_feature_verity(c->fs->super)) {
		err = e2v_report_values(c, E2VERITY_PR_NO_VERITY_FEATURE, 0, 0, 0);
		if (err)
			return err;
	}
	rule = e2v_inode_verity_rule(c->fs, EXT2_INODE(&inode), E2V_VERITY_CARRY);
	if (rule) {
		switch (rule->problem) {
		case E2VERITY_PR_NOT_REGULAR:
			/*
			 * __ext4_iget() loads a directory or a symlink with the
			 * flag, and only ext4_file_open() of a regular file asks
			 * fs-verity (fsverity_file_open()): a warning there
			 */
			if (LINUX_S_ISDIR(inode.i_mode) || LINUX_S_ISLNK(inode.i_mode))
				return e2v_report_values(c, E2VERITY_PR_VERITY_NOT_FILE,
							 inode.i_mode, 0, 0);
			return e2v_report_values(c, rule->problem, inode.i_mode, 0, 0);
		case E2VERITY_PR_ENCRYPTED:
			c->file->skipped = 1;
			break;
		case E2VERITY_PR_SIZE_TOO_LARGE:
			return e2v_report_values(c, rule->problem, c->file->data_size,
						 e2v_ext4_max_bytes(c->fs), 0);
		}
		return e2v_report_values(c, rule->problem, 0, 0, 0);
	}

	if (prepared) {
		e2v_ext4_file_reopen(&f, c->fs, e2v_owners_zone(c->owners), ino, &j->inode,
				     &j->extents, j->nr_extents, j->tree_node_blocks,
				     j->last_leaf_empty);
		/* the extents of the metadata region the hashing thread read */
		f.meta = j->meta;
		f.meta_buf = j->meta_buf;
		j->meta = NULL;
		j->meta_buf = NULL;
		j->nr_extents = 0;
		err = 0;
	} else {
		err = e2v_ext4_file_open_in(c->fs, e2v_owners_zone(c->owners), ino, &f);
	}
	if (err == E2VERITY_ET_NO_MEMORY)
		return err;
	if (err && f.fault.problem && f.fault.err == err)
		return e2v_report_fault(c, &f.fault);
	if (err) {
		struct e2verity_finding fi = { .err = err };

		return e2v_report(c, E2VERITY_PR_EXTENTS_UNREADABLE, &fi);
	}
	/* entries the kernel never reads: it reads the file all the same */
	if (f.fault.problem) {
		err = e2v_report_fault(c, &f.fault);
		if (err)
			goto out;
	}
	/* a file hashed ahead: its metadata is read the way its data was */
	if (c->ahead && c->ahead->fd >= 0) {
		e2v_ahead_reader(c->ahead, &f);
		e2v_check_meta_from(c->ahead, &f);
	}
	err = e2v_check_file(c, &f);
	/* without a map, a scan of every inode: for the first damaged files only */
	if (!err && (c->owners || (c->file->errors && c->stats->failed < E2V_OWNER_CHECKS)))
		err = e2v_check_owner(c, &f);
out:
	e2v_ext4_file_close(&f);
	return err;
}

static errcode_t e2v_check_inode_with(ext2_filsys fs, ext2_ino_t ino, const char *path,
				      const struct e2verity_check_opts *opts,
				      struct e2verity_check_stats *stats, uint64_t progress_base,
				      uint64_t progress_total, struct e2verity_batch *batch,
				      struct e2v_ahead_job *job);

errcode_t e2v_check_one(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_check_opts *opts,
			struct e2verity_check_stats *stats, uint64_t progress_base,
			uint64_t progress_total, struct e2verity_batch *batch)
{
	struct e2v_ahead_job *job = e2v_ahead_take(batch, ino);
	errcode_t err;

	err = e2v_check_inode_with(fs, ino, NULL, opts, stats, progress_base, progress_total, batch,
				   job);
	e2v_ahead_job_free(job);
	return err;
}

static errcode_t e2v_check_inode_with(ext2_filsys fs, ext2_ino_t ino, const char *path,
				      const struct e2verity_check_opts *opts,
				      struct e2verity_check_stats *stats, uint64_t progress_base,
				      uint64_t progress_total, struct e2verity_batch *batch,
				      struct e2v_ahead_job *job)
{
	struct e2verity_check_file file = { .ino = ino };
	struct e2v_check c = {
		.fs = fs,
		.opts = opts,
		.file = &file,
		.stats = stats,
		.progress_base = progress_base,
		.progress_total = progress_total,
		.batch = batch,
		.ahead = job,
		.owners = opts->owners,
		.path = path,
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

errcode_t e2verity_check_path(ext2_filsys fs, const char *path, ext2_ino_t ino,
			      const struct e2verity_check_opts *opts,
			      struct e2verity_check_stats *stats)
{
	struct ext2_inode inode;
	errcode_t err;

	if (!e2v_all_zero(opts->reserved, sizeof(opts->reserved)))
		return E2VERITY_ET_RESERVED_NOT_ZERO;
	if (opts->cancel && *opts->cancel)
		return E2VERITY_ET_CANCELLED;
	err = ext2fs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	return e2v_check_inode_with(fs, ino, path, opts, stats, 0, EXT2_I_SIZE(&inode), NULL, NULL);
}

errcode_t e2verity_check_inode(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_check_opts *opts,
			       struct e2verity_check_stats *stats)
{
	return e2verity_check_path(fs, NULL, ino, opts, stats);
}
