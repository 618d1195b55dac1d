// SPDX-License-Identifier: GPL-2.0-or-later
/* image-digest.c - test only: a SHA-256 of a file's bytes that reads only its data, not its holes */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

/*
 * Usage: image-digest FILE
 *
 * Prints the hex SHA-256 of the file's size, then of each of its data regions (SEEK_DATA to
 * SEEK_HOLE) as its offset, its length and its bytes.  Two files with the same digest hold the
 * same bytes: a hole reads as zeros wherever it is.  (Two files with the same bytes may have
 * different digests, when their holes differ: a key to skip work, never to pass a difference.)
 * The crash tests' images are 64 MiB of which a few are data: reading only those, the digest of
 * each cut costs a few milliseconds where md5sum's of the whole file costs a hundred.
 */
#define BUF_SIZE (1u << 20)

static int hash_u64(EVP_MD_CTX *md, uint64_t v)
{
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	return EVP_DigestUpdate(md, le, sizeof(le)) ? 0 : -1;
}

static int hash_region(EVP_MD_CTX *md, int fd, off_t start, off_t end, uint8_t *buf)
{
	if (hash_u64(md, (uint64_t)start) || hash_u64(md, (uint64_t)(end - start)))
		return -1;
	while (start < end) {
		size_t want = end - start < BUF_SIZE ? (size_t)(end - start) : BUF_SIZE;
		ssize_t n = pread(fd, buf, want, start);

		if (n <= 0)
			return -1;
		if (!EVP_DigestUpdate(md, buf, (size_t)n))
			return -1;
		start += n;
	}
	return 0;
}

int main(int argc, char *argv[])
{
	static uint8_t buf[BUF_SIZE];
	uint8_t digest[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	EVP_MD_CTX *md = NULL;
	struct stat st;
	off_t pos = 0;
	int fd = -1, rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		goto out;
	}
	md = EVP_MD_CTX_new();
	if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) || hash_u64(md, (uint64_t)st.st_size))
		goto fail;
	while (pos < st.st_size) {
		off_t start = lseek(fd, pos, SEEK_DATA), end;

		if (start < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (start < 0)
			goto fail;
		end = lseek(fd, start, SEEK_HOLE);
		if (end < 0 || hash_region(md, fd, start, end, buf))
			goto fail;
		pos = end;
	}
	if (!EVP_DigestFinal_ex(md, digest, &len))
		goto fail;
	for (unsigned int i = 0; i < len; i++)
		printf("%02x", digest[i]);
	printf("\n");
	rc = ferror(stdout) || fflush(stdout) ? 1 : 0;
	goto out;
fail:
	fprintf(stderr, "%s: cannot read or hash: %s\n", argv[1], strerror(errno));
out:
	EVP_MD_CTX_free(md);
	if (fd >= 0)
		close(fd);
	return rc;
}
