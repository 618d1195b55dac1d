// SPDX-License-Identifier: GPL-2.0-or-later
/* descriptor.c - encode, decode, validate and digest struct fsverity_descriptor */
#include "config.h"

#include <string.h>

#include "descriptor.h"
#include "geometry.h"

/* Byte offsets in the on-disk descriptor (include/uapi/linux/fsverity.h) */
#define DESC_VERSION 0
#define DESC_HASH_ALG 1
#define DESC_LOG_BLOCKSIZE 2
#define DESC_SALT_SIZE 3
#define DESC_SIG_SIZE 4
#define DESC_DATA_SIZE 8
#define DESC_ROOT_HASH 16
#define DESC_SALT 80
#define DESC_RESERVED 112

void e2verity_descriptor_encode(const struct e2verity_descriptor *d, uint8_t *out)
{
	memset(out, 0, E2VERITY_DESCRIPTOR_SIZE);
	out[DESC_VERSION] = d->version;
	out[DESC_HASH_ALG] = d->hash_algorithm;
	out[DESC_LOG_BLOCKSIZE] = d->log_blocksize;
	out[DESC_SALT_SIZE] = d->salt_size;
	e2v_put_le32(out + DESC_SIG_SIZE, d->sig_size);
	e2v_put_le64(out + DESC_DATA_SIZE, d->data_size);
	memcpy(out + DESC_ROOT_HASH, d->root_hash, sizeof(d->root_hash));
	memcpy(out + DESC_SALT, d->salt, sizeof(d->salt));
}

void e2v_descriptor_unpack(const uint8_t *raw, struct e2verity_descriptor *d)
{
	d->version = raw[DESC_VERSION];
	d->hash_algorithm = raw[DESC_HASH_ALG];
	d->log_blocksize = raw[DESC_LOG_BLOCKSIZE];
	d->salt_size = raw[DESC_SALT_SIZE];
	d->sig_size = e2v_get_le32(raw + DESC_SIG_SIZE);
	d->data_size = e2v_get_le64(raw + DESC_DATA_SIZE);
	memcpy(d->root_hash, raw + DESC_ROOT_HASH, sizeof(d->root_hash));
	memcpy(d->salt, raw + DESC_SALT, sizeof(d->salt));
}

void e2v_descriptor_clear_sig_size(uint8_t *raw)
{
	e2v_put_le32(raw + DESC_SIG_SIZE, 0);
}

/* appends a problem to the list */
static void e2v_note(struct e2v_desc_problem *out, size_t *n, unsigned int code, uint64_t value,
		     uint64_t expected, uint64_t offset, int refused)
{
	out[(*n)++] = (struct e2v_desc_problem){ code, value, expected, offset, refused };
}

/* a padding region that must be zero: the first byte that is not */
static void e2v_note_padding(struct e2v_desc_problem *out, size_t *n, unsigned int code,
			     const uint8_t *raw, size_t start, size_t end, int refused)
{
	long nz = e2v_first_nonzero(raw + start, end - start);

	if (nz >= 0)
		e2v_note(out, n, code, raw[start + nz], 0, start + nz, refused);
}

size_t e2v_descriptor_problems(const uint8_t *raw, const struct e2v_desc_limits *lim,
			       struct e2v_desc_problem *out, int *hashable)
{
	struct e2verity_descriptor d;
	const struct e2verity_hash_alg *alg;
	const size_t sig_room = lim->stored - E2VERITY_DESCRIPTOR_SIZE;
	struct e2verity_params p = { 0 };
	struct e2verity_geometry g;
	int ok = 1;
	size_t n = 0;

	e2v_descriptor_unpack(raw, &d);
	alg = e2verity_hash_alg_by_num(d.hash_algorithm);
	if (d.version != 1)
		e2v_note(out, &n, E2VERITY_PR_DESC_BAD_VERSION, d.version, 1, DESC_VERSION, 1);
	if (!alg) {
		e2v_note(out, &n, E2VERITY_PR_DESC_BAD_HASH_ALG, d.hash_algorithm, 0, DESC_HASH_ALG,
			 1);
		ok = 0;
	}
	if (!e2v_log_blocksize_valid(d.log_blocksize)) {
		e2v_note(out, &n, E2VERITY_PR_DESC_BAD_LOG_BLOCKSIZE, d.log_blocksize, 0,
			 DESC_LOG_BLOCKSIZE, 1);
		ok = 0;
	} else if (lim->fs_block_size && (1u << d.log_blocksize) > lim->fs_block_size) {
		e2v_note(out, &n, E2VERITY_PR_DESC_BLOCK_TOO_LARGE, 1u << d.log_blocksize,
			 lim->fs_block_size, DESC_LOG_BLOCKSIZE, 0);
		ok = 0;
	}
	if (d.salt_size > E2VERITY_MAX_SALT_SIZE) {
		e2v_note(out, &n, E2VERITY_PR_DESC_BAD_SALT_SIZE, d.salt_size,
			 E2VERITY_MAX_SALT_SIZE, DESC_SALT_SIZE, 1);
		ok = 0;
	}
	if (d.sig_size > sig_room)
		e2v_note(out, &n, E2VERITY_PR_DESC_BAD_SIG_SIZE, d.sig_size, sig_room,
			 DESC_SIG_SIZE, 1);
	if (lim->have_data_size && d.data_size != lim->data_size) {
		e2v_note(out, &n, E2VERITY_PR_DESC_BAD_DATA_SIZE, d.data_size, lim->data_size,
			 DESC_DATA_SIZE, 1);
		ok = 0;
	}
	/* the kernel hashes the padding: a wrong byte changes the digest, not the tree */
	if (alg)
		e2v_note_padding(out, &n, E2VERITY_PR_DESC_ROOT_PADDING, raw,
				 DESC_ROOT_HASH + alg->digest_size, DESC_SALT, 0);
	if (d.salt_size <= E2VERITY_MAX_SALT_SIZE)
		e2v_note_padding(out, &n, E2VERITY_PR_DESC_SALT_PADDING, raw,
				 DESC_SALT + d.salt_size, DESC_RESERVED, 0);
	e2v_note_padding(out, &n, E2VERITY_PR_DESC_RESERVED_SET, raw, DESC_RESERVED,
			 E2VERITY_DESCRIPTOR_SIZE, 1);
	if (ok) {
		p.hash_alg = d.hash_algorithm;
		p.block_size = 1u << d.log_blocksize;
		if (e2verity_geometry(&p, d.data_size, &g)) {
			e2v_note(out, &n, E2VERITY_PR_DESC_TOO_MANY_LEVELS, 0, 0, 0, 1);
			ok = 0;
		}
	}
	if (hashable)
		*hashable = ok;
	return n;
}

int e2v_descriptor_refused(const uint8_t *raw, const struct e2v_desc_limits *lim)
{
	struct e2v_desc_problem found[E2V_DESC_MAX_PROBLEMS];
	size_t n = e2v_descriptor_problems(raw, lim, found, NULL);

	for (size_t i = 0; i < n; i++)
		if (found[i].refused)
			return 1;
	return 0;
}

/* The order of the kernel's checks (fs/verity/open.c), and their error codes */
static const struct {
	unsigned int code;
	errcode_t err;
} e2v_kernel_order[] = {
	{ E2VERITY_PR_DESC_BAD_VERSION, E2VERITY_ET_DESC_VERSION },
	{ E2VERITY_PR_DESC_RESERVED_SET, E2VERITY_ET_DESC_RESERVED },
	{ E2VERITY_PR_DESC_BAD_SALT_SIZE, E2VERITY_ET_DESC_SALT_SIZE },
	{ E2VERITY_PR_DESC_BAD_SIG_SIZE, E2VERITY_ET_DESC_SIG_SIZE },
	{ E2VERITY_PR_DESC_BAD_HASH_ALG, E2VERITY_ET_DESC_HASH_ALG },
	{ E2VERITY_PR_DESC_BAD_LOG_BLOCKSIZE, E2VERITY_ET_DESC_LOG_BLOCKSIZE },
	{ E2VERITY_PR_DESC_TOO_MANY_LEVELS, E2VERITY_ET_DESC_TOO_MANY_LEVELS },
};

errcode_t e2verity_descriptor_decode(const uint8_t *buf, size_t len, struct e2verity_descriptor *d)
{
	struct e2v_desc_problem found[E2V_DESC_MAX_PROBLEMS];
	struct e2v_desc_limits lim = { .stored = len };
	size_t n;

	memset(d, 0, sizeof(*d));
	if (len < E2VERITY_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_TOO_SHORT;
	e2v_descriptor_unpack(buf, d);
	if (len > E2VERITY_MAX_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_TOO_LARGE;
	n = e2v_descriptor_problems(buf, &lim, found, NULL);
	for (size_t k = 0; k < E2V_ARRAY_SIZE(e2v_kernel_order); k++)
		for (size_t i = 0; i < n; i++)
			if (found[i].code == e2v_kernel_order[k].code)
				return e2v_kernel_order[k].err;
	return 0;
}

errcode_t e2verity_descriptor_digest(const struct e2verity_descriptor *d, uint8_t *out)
{
	struct e2verity_descriptor unsigned_desc = *d;
	uint8_t raw[E2VERITY_DESCRIPTOR_SIZE];

	/* The signature is not part of what it signs: hash with sig_size 0. */
	unsigned_desc.sig_size = 0;
	e2verity_descriptor_encode(&unsigned_desc, raw);
	return e2verity_hash_buf(d->hash_algorithm, raw, sizeof(raw), out);
}

int e2v_descriptor_same_digest(const struct e2verity_descriptor *a,
			       const struct e2verity_descriptor *b)
{
	struct e2verity_descriptor x = *a, y = *b;
	uint8_t ra[E2VERITY_DESCRIPTOR_SIZE], rb[E2VERITY_DESCRIPTOR_SIZE];

	x.sig_size = 0;
	y.sig_size = 0;
	e2verity_descriptor_encode(&x, ra);
	e2verity_descriptor_encode(&y, rb);
	return memcmp(ra, rb, sizeof(ra)) == 0;
}

errcode_t e2verity_formatted_digest(unsigned int alg_num, const uint8_t *digest, uint8_t *out,
				    size_t *out_len)
{
	const struct e2verity_hash_alg *alg = e2verity_hash_alg_by_num(alg_num);

	if (!alg)
		return E2VERITY_ET_BAD_HASH_ALG;
	memcpy(out, "FSVerity", 8);
	e2v_put_le16(out + 8, alg->num);
	e2v_put_le16(out + 10, alg->digest_size);
	memcpy(out + 12, digest, alg->digest_size);
	*out_len = 12 + alg->digest_size;
	return 0;
}
