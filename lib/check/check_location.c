// SPDX-License-Identifier: GPL-2.0-or-later
/* check_location.c - why the kernel cannot find a file's descriptor: cut short, too long, or the
 * word */
#include "config.h"

#include "check_location.h"
#include "core/descriptor.h"
#include "core/geometry.h"
#include "ext4/layout.h"

/*
 * The descriptor of a file whose size word is bad, found where ext4 would
 * have put it for some hash algorithm and tree block size: it tells how the
 * metadata should end.  Returns 1 and the layout if one is found.
 */
static int e2v_guess_layout(struct e2v_ext4_file *f, struct e2verity_ext4_layout *l)
{
	const unsigned int bs = f->fs->blocksize;
	const uint64_t mpos = e2v_round_up(f->size, E2VERITY_EXT4_METADATA_ALIGN);
	/* any signature the kernel could take, and the data size of this file */
	const struct e2v_desc_limits lim = { .stored = E2VERITY_MAX_DESCRIPTOR_SIZE,
					     .have_data_size = 1,
					     .data_size = f->size };
	uint8_t raw[E2VERITY_DESCRIPTOR_SIZE];
	struct e2verity_descriptor d;

	for (unsigned int alg = E2VERITY_HASH_SHA256; alg <= E2VERITY_HASH_SHA512; alg++) {
		for (unsigned int log = E2V_MIN_LOG_BLOCKSIZE; log <= E2V_MAX_LOG_BLOCKSIZE;
		     log++) {
			struct e2verity_params p = { .hash_alg = alg, .block_size = 1u << log };
			struct e2verity_geometry g;
			uint64_t dpos;

			if (e2verity_geometry(&p, f->size, &g))
				continue;
			dpos = e2v_round_up(mpos + g.tree_size, bs);
			if (dpos / bs >= (1ULL << 32) ||
			    e2v_ext4_file_read(f, raw, sizeof(raw), dpos))
				continue;
			e2v_descriptor_unpack(raw, &d);
			if (d.hash_algorithm != alg || d.log_blocksize != log ||
			    e2v_descriptor_refused(raw, &lim))
				continue;
			if (e2v_ext4_layout(f->size, g.tree_size, d.sig_size, bs, l))
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
		for (unsigned int log = E2V_MIN_LOG_BLOCKSIZE;
		     log <= E2V_MAX_LOG_BLOCKSIZE && (1u << log) <= f->fs->blocksize; log++) {
			struct e2verity_params p = { .hash_alg = alg, .block_size = 1u << log };
			struct e2verity_ext4_layout l;
			struct e2verity_geometry g;

			if (e2verity_geometry(&p, f->size, &g) ||
			    e2v_ext4_layout(f->size, g.tree_size, 0, f->fs->blocksize, &l))
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
		for (unsigned int log = E2V_MIN_LOG_BLOCKSIZE;
		     log <= E2V_MAX_LOG_BLOCKSIZE && (1u << log) <= f->fs->blocksize; log++) {
			struct e2verity_params p = { .hash_alg = alg, .block_size = 1u << log };
			struct e2verity_ext4_layout x;
			struct e2verity_geometry g;

			if (e2verity_geometry(&p, f->size, &g) ||
			    e2v_ext4_layout(f->size, g.tree_size, 0, f->fs->blocksize, &x))
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
errcode_t e2v_diagnose_location(struct e2v_check *c, struct e2v_ext4_file *f,
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
