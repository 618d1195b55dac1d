// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_descriptor.c - libFuzzer harness: the descriptor codec and the ext4 placement arithmetic */
#include <stdlib.h>
#include <string.h>

#include "ext4/layout.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Offsets that come from an image: nothing may wrap, everything must stay in order. */
static void e2v_fuzz_layout(const uint8_t *data, size_t size)
{
	struct e2verity_ext4_layout l;
	uint64_t data_size, tree_size, end;
	unsigned int bs;
	uint32_t sig;

	if (size < 29)
		return;
	data_size = e2v_get_le64(data);
	tree_size = e2v_get_le64(data + 8);
	end = e2v_get_le64(data + 16);
	sig = e2v_get_le32(data + 24);
	bs = 1024u << (data[28] % 7);
	if (!e2v_ext4_layout(data_size, tree_size, sig, bs, &l)) {
		if (l.merkle_pos < data_size || l.desc_pos < l.merkle_pos + tree_size ||
		    l.end < l.desc_pos + l.desc_size + 4 || l.end % bs || l.desc_pos % bs)
			abort();
	}
	if (!e2v_ext4_locate(data_size, end, sig, bs, &l)) {
		if (l.desc_pos < l.merkle_pos || l.desc_pos + l.desc_size > l.size_pos ||
		    l.size_pos + 4 != end)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2verity_descriptor d, again;
	uint8_t raw[E2VERITY_DESCRIPTOR_SIZE];
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];

	e2v_fuzz_layout(data, size);
	if (e2verity_descriptor_decode(data, size, &d))
		return 0;
	/* whatever decodes is re-encoded to the same bytes, and decodes the same again */
	e2verity_descriptor_encode(&d, raw);
	if (memcmp(raw, data, sizeof(raw)) != 0)
		abort();
	if (d.sig_size == 0 && (e2verity_descriptor_decode(raw, sizeof(raw), &again) != 0 ||
				memcmp(&d, &again, sizeof(d)) != 0))
		abort();
	if (e2verity_descriptor_digest(&d, digest))
		abort();
	return 0;
}
