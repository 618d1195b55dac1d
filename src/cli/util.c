// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - option parsing, messages, hex and output files for the subcommands */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"

static int cli_parse_block_size(const char *arg, unsigned int *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, E2VERITY_MAX_BLOCK_SIZE, &v) || v < E2VERITY_MIN_BLOCK_SIZE ||
	    (v & (v - 1)))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_tree_option(int opt, const char *arg, struct cli_tree_opts *t)
{
	const struct e2verity_hash_alg *alg;
	int n;

	switch (opt) {
	case OPT_HASH_ALG:
		alg = e2verity_hash_alg_by_name(arg);
		if (!alg) {
			fprintf(stderr, "%s: unknown hash algorithm '%s' (known: sha256 sha512)\n",
				cli_prog, arg);
			return -1;
		}
		t->params.hash_alg = alg->num;
		return 1;
	case OPT_BLOCK_SIZE:
		if (cli_parse_block_size(arg, &t->params.block_size)) {
			fprintf(stderr,
				"%s: invalid block size '%s': must be a power of 2 from 1024 to "
				"65536\n",
				cli_prog, arg);
			return -1;
		}
		return 1;
	case OPT_SALT:
		n = cli_hex2bin(arg, t->salt, sizeof(t->salt));
		if (n < 0) {
			fprintf(stderr, "%s: invalid salt '%s': must be hex, at most %d bytes\n",
				cli_prog, arg, E2VERITY_MAX_SALT_SIZE);
			return -1;
		}
		t->params.salt = t->salt;
		t->params.salt_size = n;
		return 1;
	case OPT_OUT_MERKLE_TREE:
		t->out_merkle_tree = arg;
		return 1;
	case OPT_OUT_DESCRIPTOR:
		t->out_descriptor = arg;
		return 1;
	}
	return 0;
}

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
