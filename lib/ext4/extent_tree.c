// SPDX-License-Identifier: GPL-2.0-or-later
/* extent_tree.c - internal: read an inode's extent tree, judged as fs/ext4/extents.c judges it */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "block_validity.h"
#include "extent_tree.h"
#include "core/array.h"

/* struct ext4_extent_header, ext4_extent and ext4_extent_idx: 12 bytes each */
#define E2V_EXT_MAGIC 0xf30a
#define E2V_EXT_HDR 12
#define E2V_EXT_ENTRY 12
/* sizeof(ext4_inode_info.i_data): the root lives in the inode's 60 bytes of i_block */
#define E2V_EXT_ROOT_BYTES 60
/* EXT4_MAX_EXTENT_DEPTH: ext4_find_extent() refuses deeper trees */
#define E2V_EXT_MAX_DEPTH 5
/* EXT_INIT_MAX_LEN: a longer ee_len is an unwritten extent of ee_len - 32768 blocks */
#define E2V_EXT_INIT_MAX_LEN 32768
/* ext4_lblk_t is 32 bits: an extent must end before it wraps */
#define E2V_LBLK_END (1ULL << 32)

/* The matching error code of each problem, for seal, unseal and measure */
static const struct {
	unsigned int problem;
	errcode_t err;
} e2v_extent_errs[] = {
	{ E2VERITY_PR_EXTENT_BAD_MAGIC, E2VERITY_ET_EXTENT_BAD_MAGIC },
	{ E2VERITY_PR_EXTENT_BAD_DEPTH, E2VERITY_ET_EXTENT_BAD_DEPTH },
	{ E2VERITY_PR_EXTENT_TOO_DEEP, E2VERITY_ET_EXTENT_TOO_DEEP },
	{ E2VERITY_PR_EXTENT_BAD_MAX, E2VERITY_ET_EXTENT_BAD_MAX },
	{ E2VERITY_PR_EXTENT_BAD_ENTRIES, E2VERITY_ET_EXTENT_BAD_ENTRIES },
	{ E2VERITY_PR_EXTENT_EMPTY_INDEX, E2VERITY_ET_EXTENT_EMPTY_INDEX },
	{ E2VERITY_PR_EXTENT_INDEX_MISMATCH, E2VERITY_ET_EXTENT_INDEX_MISMATCH },
	{ E2VERITY_PR_EXTENT_ZERO_LENGTH, E2VERITY_ET_EXTENT_ZERO_LENGTH },
	{ E2VERITY_PR_EXTENT_LBLK_OVERFLOW, E2VERITY_ET_EXTENT_LBLK_OVERFLOW },
	{ E2VERITY_PR_EXTENT_OUTSIDE_FS, E2VERITY_ET_EXTENT_OUTSIDE_FS },
	{ E2VERITY_PR_EXTENT_IN_SYSTEM_ZONE, E2VERITY_ET_EXTENT_IN_SYSTEM_ZONE },
	{ E2VERITY_PR_EXTENT_OUT_OF_ORDER, E2VERITY_ET_EXTENT_OUT_OF_ORDER },
	{ E2VERITY_PR_EXTENT_DUPLICATE, E2VERITY_ET_EXTENT_DUPLICATE },
	{ E2VERITY_PR_EXTENT_OVERLAP, E2VERITY_ET_EXTENT_OVERLAP },
	{ E2VERITY_PR_EXTENT_INDEX_ORDER, E2VERITY_ET_EXTENT_INDEX_ORDER },
	{ E2VERITY_PR_EXTENT_BAD_CHECKSUM, E2VERITY_ET_EXTENT_BAD_CHECKSUM },
	{ E2VERITY_PR_EXTENT_PAST_INDEX, E2VERITY_ET_EXTENT_PAST_INDEX },
};

struct e2v_walk {
	ext2_filsys fs;
	ext2_ino_t ino;
	struct e2v_extent_tree *t;
	size_t cap;
	uint8_t *bufs; /* one block per level below the root */
	int csum;
	uint32_t csum_seed; /* ext4_inode_info.i_csum_seed */
	/* every block run named so far, for the system zone test at the end */
	struct e2v_blockref *refs;
	size_t nrefs, refcap;
	uint64_t seq; /* counts the kernel's checks, in the order it makes them */
};

const struct e2v_extent *e2v_extent_find(const struct e2v_extent *v, size_t n, blk64_t lblk)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].lblk + v[mid].len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? &v[lo] : NULL;
}

static errcode_t e2v_extent_err(unsigned int problem)
{
	for (size_t i = 0; i < E2V_ARRAY_SIZE(e2v_extent_errs); i++)
		if (e2v_extent_errs[i].problem == problem)
			return e2v_extent_errs[i].err;
	return E2VERITY_ET_CORRUPT;
}

static void e2v_fault_set(struct e2v_extent_fault *f, unsigned int problem, blk64_t node,
			  uint64_t value, uint64_t expected, uint64_t count)
{
	*f = (struct e2v_extent_fault){
		.problem = problem,
		.err = e2v_extent_err(problem),
		.node = node,
		.value = value,
		.expected = expected,
		.count = count,
	};
}

/* The kernel's refusal: the walk stops here.  Always returns 1. */
static int e2v_refuse(struct e2v_walk *w, unsigned int problem, blk64_t node, uint64_t value,
		      uint64_t expected, uint64_t count)
{
	e2v_fault_set(&w->t->fault, problem, node, value, expected, count);
	return 1;
}

static void e2v_past_index(struct e2v_walk *w, blk64_t node, uint32_t lblk, uint64_t end)
{
	if (!w->t->warn.problem)
		e2v_fault_set(&w->t->warn, E2VERITY_PR_EXTENT_PAST_INDEX, node, lblk, end, 0);
}

static errcode_t e2v_add_ref(struct e2v_walk *w, blk64_t pblk, blk64_t len, uint32_t lblk)
{
	if (e2v_array_room(&w->refs, &w->refcap, w->nrefs, sizeof(*w->refs)))
		return E2VERITY_ET_NO_MEMORY;
	w->refs[w->nrefs++] =
		(struct e2v_blockref){ .pblk = pblk, .len = len, .seq = w->seq, .lblk = lblk };
	return 0;
}

static errcode_t e2v_add_extent(struct e2v_walk *w, uint32_t lblk, uint32_t len, blk64_t pblk,
				int uninit)
{
	struct e2v_extent_tree *t = w->t;

	if (e2v_array_room(&t->extents, &w->cap, t->nr, sizeof(*t->extents)))
		return E2VERITY_ET_NO_MEMORY;
	t->extents[t->nr++] =
		(struct e2v_extent){ .lblk = lblk, .pblk = pblk, .len = len, .uninit = uninit };
	return 0;
}

/*
 * __ext4_ext_check() before the entries: 1 if the kernel refuses the header.
 * @room is what the node can hold (ext4_ext_max_entries()).
 */
static int e2v_check_header(struct e2v_walk *w, const uint8_t *h, unsigned int room,
			    unsigned int depth, blk64_t node)
{
	const unsigned int magic = e2v_get_le16(h), entries = e2v_get_le16(h + 2);
	const unsigned int max = e2v_get_le16(h + 4), d = e2v_get_le16(h + 6);

	w->seq++;
	if (magic != E2V_EXT_MAGIC)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_BAD_MAGIC, node, magic, E2V_EXT_MAGIC, 0);
	if (d != depth)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_BAD_DEPTH, node, d, depth, 0);
	if (max == 0 || max > room)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_BAD_MAX, node, max, room, 0);
	if (entries > max)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_BAD_ENTRIES, node, entries, max, 0);
	if (entries == 0 && depth > 0)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_EMPTY_INDEX, node, 0, 0, 0);
	return 0;
}

/*
 * ext4_valid_extent_entries() for a leaf: 1 if refused, else *@err.  Below
 * the root the first entry must start where the index entry said (@first).
 */
static int e2v_check_leaf(struct e2v_walk *w, const uint8_t *h, int root, uint32_t first,
			  blk64_t node, errcode_t *err)
{
	const unsigned int n = e2v_get_le16(h + 2);
	uint32_t prev = 0;
	uint64_t cur = 0;

	if (!n)
		return 0;
	w->seq++;
	if (!root && e2v_get_le32(h + E2V_EXT_HDR) != first)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_INDEX_MISMATCH, node,
				  e2v_get_le32(h + E2V_EXT_HDR), first, 0);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *e = h + E2V_EXT_HDR + i * E2V_EXT_ENTRY;
		const uint32_t lblk = e2v_get_le32(e);
		const unsigned int raw = e2v_get_le16(e + 4);
		const uint32_t len = raw <= E2V_EXT_INIT_MAX_LEN ? raw : raw - E2V_EXT_INIT_MAX_LEN;
		const blk64_t pblk = (blk64_t)e2v_get_le16(e + 6) << 32 | e2v_get_le32(e + 8);

		/* ext4_valid_extent(): no zero length, no wrap, inside the filesystem ... */
		w->seq++;
		if (len == 0)
			return e2v_refuse(w, E2VERITY_PR_EXTENT_ZERO_LENGTH, node, lblk, 0, 0);
		if ((uint64_t)lblk + len >= E2V_LBLK_END)
			return e2v_refuse(w, E2VERITY_PR_EXTENT_LBLK_OVERFLOW, node, lblk, 0, len);
		if (!e2v_block_range_valid(w->fs, pblk, len))
			return e2v_refuse(w, E2VERITY_PR_EXTENT_OUTSIDE_FS, node, lblk, pblk, len);
		/* ... and outside the system zone, tested at the end */
		w->seq++;
		*err = e2v_add_ref(w, pblk, len, lblk);
		if (*err)
			return 0;
		/* then strictly after the previous extent's end */
		w->seq++;
		if (lblk < cur) {
			if (lblk < prev)
				return e2v_refuse(w, E2VERITY_PR_EXTENT_OUT_OF_ORDER, node, lblk,
						  prev, 0);
			if (lblk == prev)
				return e2v_refuse(w, E2VERITY_PR_EXTENT_DUPLICATE, node, lblk, 0,
						  0);
			return e2v_refuse(w, E2VERITY_PR_EXTENT_OVERLAP, node, lblk, cur - 1, 0);
		}
		prev = lblk;
		cur = (uint64_t)lblk + len;
	}
	return 0;
}

/* ext4_valid_extent_entries() for an index node, as e2v_check_leaf() */
static int e2v_check_index(struct e2v_walk *w, const uint8_t *h, int root, uint32_t first,
			   blk64_t node, errcode_t *err)
{
	const unsigned int n = e2v_get_le16(h + 2);
	uint32_t prev = 0, cur = 0;

	w->seq++;
	if (!root && e2v_get_le32(h + E2V_EXT_HDR) != first)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_INDEX_MISMATCH, node,
				  e2v_get_le32(h + E2V_EXT_HDR), first, 0);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *e = h + E2V_EXT_HDR + i * E2V_EXT_ENTRY;
		const uint32_t lblk = e2v_get_le32(e);
		const blk64_t child = (blk64_t)e2v_get_le16(e + 8) << 32 | e2v_get_le32(e + 4);

		w->seq++;
		if (!e2v_block_range_valid(w->fs, child, 1))
			return e2v_refuse(w, E2VERITY_PR_EXTENT_OUTSIDE_FS, node, lblk, child, 1);
		w->seq++;
		*err = e2v_add_ref(w, child, 1, lblk);
		if (*err)
			return 0;
		w->seq++;
		/* the kernel's cur is an ext4_lblk_t: after 0xffffffff it wraps to 0 */
		if (lblk < cur)
			return e2v_refuse(w, E2VERITY_PR_EXTENT_INDEX_ORDER, node, lblk, prev, 0);
		prev = lblk;
		cur = lblk + 1;
	}
	return 0;
}

/* ext4_extent_block_csum_verify(): crc32c of the node up to its tail, seeded per inode */
static int e2v_node_csum_ok(const struct e2v_walk *w, const uint8_t *h)
{
	const size_t tail = E2V_EXT_HDR + (size_t)E2V_EXT_ENTRY * e2v_get_le16(h + 4);

	if (!w->csum)
		return 1;
	return ext2fs_crc32c_le(w->csum_seed, (unsigned char *)h, tail) == e2v_get_le32(h + tail);
}

static int e2v_walk_node(struct e2v_walk *w, const uint8_t *h, unsigned int depth, int root,
			 uint32_t first, uint64_t end, int rightmost, blk64_t node, errcode_t *err);

/*
 * The children of a checked index node, left to right.  Entry i covers
 * logical blocks [its start, the next one's start) within [.., @end): the
 * kernel's lookups never reach a child whose range is empty, nor the part
 * of a leaf past its range.
 */
static int e2v_walk_children(struct e2v_walk *w, const uint8_t *h, unsigned int depth, uint64_t end,
			     int rightmost, blk64_t node, errcode_t *err)
{
	const unsigned int bs = w->fs->blocksize, n = e2v_get_le16(h + 2);
	uint8_t *buf = w->bufs + (size_t)(depth - 1) * bs;

	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *e = h + E2V_EXT_HDR + i * E2V_EXT_ENTRY;
		const uint32_t lblk = e2v_get_le32(e);
		const blk64_t child = (blk64_t)e2v_get_le16(e + 8) << 32 | e2v_get_le32(e + 4);
		uint64_t child_end = i + 1 < n ? e2v_get_le32(e + E2V_EXT_ENTRY) : end;

		if (child_end > end)
			child_end = end;
		if (lblk >= child_end) {
			e2v_past_index(w, node, lblk, end);
			continue;
		}
		*err = io_channel_read_blk64(w->fs->io, child, 1, buf);
		if (*err)
			return 0;
		w->t->node_blocks++;
		if (e2v_walk_node(w, buf, depth - 1, 0, lblk, child_end, rightmost && i + 1 == n,
				  child, err) ||
		    *err)
			return !*err;
	}
	return 0;
}

/* Checks one node as __ext4_ext_check() does, then keeps its extents or walks its children. */
static int e2v_walk_node(struct e2v_walk *w, const uint8_t *h, unsigned int depth, int root,
			 uint32_t first, uint64_t end, int rightmost, blk64_t node, errcode_t *err)
{
	const unsigned int room =
		((root ? E2V_EXT_ROOT_BYTES : w->fs->blocksize) - E2V_EXT_HDR) / E2V_EXT_ENTRY;
	const unsigned int n = e2v_get_le16(h + 2);

	if (e2v_check_header(w, h, room, depth, node))
		return 1;
	if (depth ? e2v_check_index(w, h, root, first, node, err)
		  : e2v_check_leaf(w, h, root, first, node, err))
		return 1;
	if (*err)
		return 0;
	w->seq++;
	if (root && depth > E2V_EXT_MAX_DEPTH)
		return e2v_refuse(w, E2VERITY_PR_EXTENT_TOO_DEEP, node, depth, E2V_EXT_MAX_DEPTH,
				  0);
	if (!root && !e2v_node_csum_ok(w, h))
		return e2v_refuse(w, E2VERITY_PR_EXTENT_BAD_CHECKSUM, node, 0, 0, 0);
	if (depth)
		return e2v_walk_children(w, h, depth, end, rightmost, node, err);
	if (!n && rightmost)
		w->t->last_leaf_empty = 1;
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *e = h + E2V_EXT_HDR + i * E2V_EXT_ENTRY;
		const uint32_t lblk = e2v_get_le32(e);
		const unsigned int raw = e2v_get_le16(e + 4);
		uint32_t len = raw <= E2V_EXT_INIT_MAX_LEN ? raw : raw - E2V_EXT_INIT_MAX_LEN;
		const blk64_t pblk = (blk64_t)e2v_get_le16(e + 6) << 32 | e2v_get_le32(e + 8);

		if (lblk >= end) {
			e2v_past_index(w, node, lblk, end);
			break;
		}
		if (lblk + (uint64_t)len > end) {
			e2v_past_index(w, node, lblk, end);
			len = end - lblk;
		}
		*err = e2v_add_extent(w, lblk, len, pblk, raw > E2V_EXT_INIT_MAX_LEN);
		if (*err)
			return 0;
	}
	return 0;
}

void e2v_extent_tree_free(struct e2v_extent_tree *t)
{
	free(t->extents);
	t->extents = NULL;
	t->nr = 0;
}

errcode_t e2v_extent_tree_read(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode *inode,
			       int flags, const struct e2v_system_zone *zone,
			       struct e2v_extent_tree *t)
{
	struct e2v_walk w = { .fs = fs, .ino = ino, .t = t };
	const uint8_t *root = (const uint8_t *)inode->i_block;
	unsigned int depth = e2v_get_le16(root + 6);
	errcode_t err = 0;
	int refused;

	memset(t, 0, sizeof(*t));
	if (ext2fs_has_feature_metadata_csum(fs->super)) {
		uint8_t le[4];

		w.csum = 1;
		e2v_put_le32(le, ino);
		w.csum_seed = ext2fs_crc32c_le(fs->csum_seed, le, sizeof(le));
		e2v_put_le32(le, inode->i_generation);
		w.csum_seed = ext2fs_crc32c_le(w.csum_seed, le, sizeof(le));
	}
	/* the buffers below the root, if the root's depth gets past its checks */
	if (depth && depth <= E2V_EXT_MAX_DEPTH) {
		w.bufs = malloc((size_t)depth * fs->blocksize);
		if (!w.bufs)
			return E2VERITY_ET_NO_MEMORY;
	}
	refused = e2v_walk_node(&w, root, depth, 1, 0, E2V_LBLK_END, 1, 0, &err);
	if (err)
		goto out;
	/* what the kernel tests of each entry before going on, it tests before any later fault */
	if (!(flags & E2V_TREE_NO_ZONE) && w.nrefs) {
		struct e2v_blockref hit;
		blk64_t block;
		int found;

		err = e2v_system_zone_check(fs, zone, ino, w.refs, w.nrefs, &found, &hit, &block);
		if (err)
			goto out;
		if (found) {
			e2v_fault_set(&t->fault, E2VERITY_PR_EXTENT_IN_SYSTEM_ZONE, 0, hit.lblk,
				      block, hit.len);
			refused = 1;
		}
	}
	if (refused)
		err = t->fault.err;
out:
	if (err)
		e2v_extent_tree_free(t);
	free(w.refs);
	free(w.bufs);
	return err;
}
