// SPDX-License-Identifier: GPL-2.0-or-later
/* descriptor.c - encode, decode, validate and digest struct fsverity_descriptor */
#include "config.h"

#include <string.h>

#include "private.h"

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

errcode_t e2verity_descriptor_decode(const uint8_t *buf, size_t len, struct e2verity_descriptor *d)
{
	struct e2verity_params p = { 0 };
	struct e2verity_geometry g;

	memset(d, 0, sizeof(*d));
	if (len < E2VERITY_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_TOO_SHORT;
	d->version = buf[DESC_VERSION];
	d->hash_algorithm = buf[DESC_HASH_ALG];
	d->log_blocksize = buf[DESC_LOG_BLOCKSIZE];
	d->salt_size = buf[DESC_SALT_SIZE];
	d->sig_size = e2v_get_le32(buf + DESC_SIG_SIZE);
	d->data_size = e2v_get_le64(buf + DESC_DATA_SIZE);
	memcpy(d->root_hash, buf + DESC_ROOT_HASH, sizeof(d->root_hash));
	memcpy(d->salt, buf + DESC_SALT, sizeof(d->salt));

	/* The same checks, in the same order, as the kernel's fs/verity/open.c */
	if (len > E2VERITY_MAX_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_TOO_LARGE;
	if (d->version != 1)
		return E2VERITY_ET_DESC_VERSION;
	if (!e2v_all_zero(buf + DESC_RESERVED, E2VERITY_DESCRIPTOR_SIZE - DESC_RESERVED))
		return E2VERITY_ET_DESC_RESERVED;
	if (d->salt_size > E2VERITY_MAX_SALT_SIZE)
		return E2VERITY_ET_DESC_SALT_SIZE;
	if (d->sig_size > len - E2VERITY_DESCRIPTOR_SIZE)
		return E2VERITY_ET_DESC_SIG_SIZE;
	if (!e2verity_hash_alg_by_num(d->hash_algorithm))
		return E2VERITY_ET_DESC_HASH_ALG;
	if (d->log_blocksize < 10 || d->log_blocksize > 16)
		return E2VERITY_ET_DESC_LOG_BLOCKSIZE;
	p.hash_alg = d->hash_algorithm;
	p.block_size = 1u << d->log_blocksize;
	if (e2verity_geometry(&p, d->data_size, &g))
		return E2VERITY_ET_DESC_TOO_MANY_LEVELS;
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
