// SPDX-License-Identifier: GPL-2.0-or-later
/* verify-sig.c - test helper: e2verity_verify_signature() on a signature file, for shell tests */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2verity.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int main(int argc, char *argv[])
{
	const struct e2verity_hash_alg *alg;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE], *sig = NULL;
	size_t sig_size;
	errcode_t err;
	FILE *f;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s HASH_ALG DIGEST_HEX SIGFILE CERTFILE [CAFILE]\n",
			argv[0]);
		return 2;
	}
	e2verity_init();
	alg = e2verity_hash_alg_by_name(argv[1]);
	if (!alg || strlen(argv[2]) != 2 * alg->digest_size) {
		fprintf(stderr, "%s: bad hash algorithm or digest\n", argv[0]);
		return 2;
	}
	for (unsigned int i = 0; i < alg->digest_size; i++) {
		int hi = hexval(argv[2][2 * i]), lo = hexval(argv[2][2 * i + 1]);

		if (hi < 0 || lo < 0) {
			fprintf(stderr, "%s: bad digest\n", argv[0]);
			return 2;
		}
		digest[i] = hi << 4 | lo;
	}
	f = fopen(argv[3], "rb");
	if (!f) {
		perror(argv[3]);
		return 2;
	}
	sig = malloc(E2VERITY_MAX_DESCRIPTOR_SIZE);
	if (!sig)
		return 2;
	sig_size = fread(sig, 1, E2VERITY_MAX_DESCRIPTOR_SIZE, f);
	fclose(f);
	err = e2verity_verify_signature(alg->num, digest, sig, sig_size, argv[4],
					argc == 6 ? argv[5] : NULL);
	free(sig);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[3], error_message(err));
		return 1;
	}
	return 0;
}
