// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - option parsing, messages, hex and output files for the subcommands */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util.h"
#include "output/names.h"

int cli_grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 32;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

void cli_bin2hex(const uint8_t *bin, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[bin[i] >> 4];
		hex[2 * i + 1] = digits[bin[i] & 15];
	}
	hex[2 * len] = '\0';
}

int cli_hex2bin(const char *hex, uint8_t *bin, size_t max)
{
	size_t len = strlen(hex);

	if (len % 2 || len / 2 > max)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = cli_hex_digit(hex[2 * i]), lo = cli_hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		bin[i] = hi << 4 | lo;
	}
	return len / 2;
}

errcode_t cli_write_all(int fd, const void *buf, size_t len, off_t offset)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, offset);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		len -= n;
		offset += n;
	}
	return 0;
}

errcode_t cli_tree_to_fd(void *ctx, const void *block, size_t size, uint64_t offset)
{
	return cli_write_all(*(int *)ctx, block, size, offset);
}

errcode_t cli_read_whole(const char *path, size_t max, uint8_t **ret, size_t *size)
{
	uint8_t *buf;
	size_t n = 0;
	errcode_t err = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	/* one byte more than allowed tells a file of @max bytes from a larger one */
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		return ENOMEM;
	}
	while (n <= max) {
		ssize_t r = read(fd, buf + n, max + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	if (!err && n > max)
		err = EFBIG;
	if (err) {
		free(buf);
		return err;
	}
	*ret = buf;
	*size = n;
	return 0;
}
