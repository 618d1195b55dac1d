// SPDX-License-Identifier: GPL-2.0-or-later
/* check_core.c - the filesystem-agnostic half of the library, used with its header alone */
#include <stdio.h>
#include <string.h>

#include "e2verity_core.h"

/* the point of the split: nothing of libext2fs comes along */
#ifdef _EXT2FS_EXT2FS_H
#error "e2verity_core.h includes <ext2fs/ext2fs.h>"
#endif

static errcode_t read_mem(void *ctx, void *buf, size_t count, uint64_t offset)
{
	memcpy(buf, (const char *)ctx + offset, count);
	return 0;
}

int main(void)
{
	static const char data[] = "hello\n";
	struct e2verity_params p = { .hash_alg = E2VERITY_HASH_SHA256 };
	struct e2verity_result res;
	struct e2verity_descriptor d;
	uint8_t raw[E2VERITY_DESCRIPTOR_SIZE], digest[E2VERITY_MAX_DIGEST_SIZE];
	uint8_t fmt[E2VERITY_FORMATTED_DIGEST_MAX];
	size_t fmt_len;

	e2verity_init();
	if (e2verity_compute(&p, sizeof(data) - 1, read_mem, (void *)data, NULL, NULL, &res)) {
		fprintf(stderr, "FAIL: e2verity_compute\n");
		return 1;
	}
	/* the descriptor goes through the codec and gives the same digest back */
	e2verity_descriptor_encode(&res.desc, raw);
	if (e2verity_descriptor_decode(raw, sizeof(raw), &d) ||
	    e2verity_descriptor_digest(&d, digest) ||
	    memcmp(digest, res.digest, res.digest_size) != 0) {
		fprintf(stderr, "FAIL: descriptor round trip\n");
		return 1;
	}
	if (e2verity_formatted_digest(d.hash_algorithm, digest, fmt, &fmt_len) ||
	    fmt_len != 12 + res.digest_size || memcmp(fmt, "FSVerity", 8) != 0) {
		fprintf(stderr, "FAIL: formatted digest\n");
		return 1;
	}
	printf("ok: hash, tree, descriptor and signing input without ext2fs.h\n");
	return 0;
}
