// SPDX-License-Identifier: GPL-2.0-or-later
/* seal-lib-helper.c - test driver: seal one inode through the library with a given signature */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2verity.h"

/* a signer callback that hands back the bytes of a file made by `fsverity sign` */
struct sig_file {
	uint8_t *bytes;
	size_t size;
	unsigned int calls;
};

static errcode_t sign_from_file(void *ctx, unsigned int alg, const uint8_t *digest, uint8_t **sig,
				size_t *sig_size)
{
	struct sig_file *s = ctx;

	(void)alg, (void)digest; /* the same signature, whatever the file */
	s->calls++;
	*sig = malloc(s->size);
	if (!*sig)
		return E2VERITY_ET_NO_MEMORY;
	memcpy(*sig, s->bytes, s->size);
	*sig_size = s->size;
	return 0;
}

static int read_file(const char *path, struct sig_file *s)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	s->size = n;
	s->bytes = malloc(n ? n : 1);
	if (!s->bytes || fread(s->bytes, 1, n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

int main(int argc, char *argv[])
{
	struct e2verity_seal_opts opts = { 0 };
	struct e2verity_seal_result res;
	struct sig_file sig = { 0 };
	ext2_filsys fs;
	ext2_ino_t ino;
	char hex[2 * E2VERITY_MAX_DIGEST_SIZE + 1];
	errcode_t err;

	if (argc != 5 || (strcmp(argv[4], "bytes") && strcmp(argv[4], "callback") &&
			  strcmp(argv[4], "reserved"))) {
		fprintf(stderr, "usage: %s IMAGE PATH SIGFILE bytes|callback|reserved\n", argv[0]);
		return 2;
	}
	e2verity_init();
	if (read_file(argv[3], &sig)) {
		perror(argv[3]);
		return 1;
	}
	if (strcmp(argv[4], "reserved") == 0) {
		/* as a program built for a later version would fill it in */
		opts.sig = sig.bytes;
		opts.sig_size = sig.size;
		opts.reserved[sizeof(opts.reserved) / sizeof(opts.reserved[0]) - 1] = 1;
	} else if (strcmp(argv[4], "bytes") == 0) {
		opts.sig = sig.bytes;
		opts.sig_size = sig.size;
	} else {
		opts.sign = sign_from_file;
		opts.sign_ctx = &sig;
		opts.sig_size_max = sig.size;
	}
	err = ext2fs_open(argv[1], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (!err)
		err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, argv[2], &ino);
	if (!err)
		err = e2verity_seal_inode(fs, ino, &opts, &res);
	if (err) {
		com_err(argv[0], err, "while sealing '%s'", argv[2]);
		return 1;
	}
	err = ext2fs_close_free(&fs);
	if (err) {
		com_err(argv[0], err, "while closing '%s'", argv[1]);
		return 1;
	}
	for (unsigned int i = 0; i < res.digest_size; i++)
		sprintf(hex + 2 * i, "%02x", res.digest[i]);
	printf("sha256:%s %s sig_size=%u calls=%u\n", hex, argv[2], res.desc.sig_size, sig.calls);
	free(sig.bytes);
	return 0;
}
