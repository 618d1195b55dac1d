// SPDX-License-Identifier: GPL-2.0-or-later
/* use-lib.c - a program built against the installed libe2verity through pkg-config */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <e2verity.h>

struct host_file {
	int fd;
};

static errcode_t read_host(void *ctx, void *buf, size_t count, uint64_t offset)
{
	struct host_file *h = ctx;
	size_t done = 0;

	while (done < count) {
		ssize_t n = pread(h->fd, (char *)buf + done, count - done, offset + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		done += n;
	}
	return 0;
}

static void print_digest(unsigned int alg, const uint8_t *digest, unsigned int size,
			 const char *path)
{
	printf("%s:", e2verity_hash_alg_by_num(alg)->name);
	for (unsigned int i = 0; i < size; i++)
		printf("%02x", digest[i]);
	printf(" %s\n", path);
}

/* the digest of a host file, computed by the library */
static int digest_host(const char *path)
{
	struct e2verity_params p = { 0 };
	struct e2verity_result res;
	struct host_file h;
	struct stat st;
	errcode_t err;

	h.fd = open(path, O_RDONLY);
	if (h.fd < 0 || fstat(h.fd, &st)) {
		fprintf(stderr, "use-lib: %s: %s\n", path, strerror(errno));
		if (h.fd >= 0)
			close(h.fd);
		return 1;
	}
	err = e2verity_compute(&p, st.st_size, read_host, &h, NULL, NULL, &res);
	close(h.fd);
	if (err) {
		fprintf(stderr, "use-lib: %s while hashing %s\n", error_message(err), path);
		return 1;
	}
	print_digest(res.desc.hash_algorithm, res.digest, res.digest_size, path);
	return 0;
}

/* the digest stored in a sealed image for @path */
static int measure_image(ext2_filsys fs, const char *path)
{
	struct e2verity_measurement m;
	ext2_ino_t ino;
	errcode_t err;

	err = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (!err)
		err = e2verity_measure_inode(fs, ino, &m);
	if (err) {
		fprintf(stderr, "use-lib: %s while measuring %s\n", error_message(err), path);
		return 1;
	}
	print_digest(m.desc.hash_algorithm, m.digest, m.digest_size, path);
	return 0;
}

int main(int argc, char *argv[])
{
	ext2_filsys fs;
	errcode_t err;
	int status = 0;

	e2verity_init();
	if (argc >= 2 && strcmp(argv[1], "digest") == 0) {
		for (int i = 2; i < argc; i++)
			status |= digest_host(argv[i]);
		return status;
	}
	if (argc >= 3 && strcmp(argv[1], "measure") == 0) {
		err = ext2fs_open(argv[2], 0, 0, 0, unix_io_manager, &fs);
		if (err) {
			fprintf(stderr, "use-lib: %s while opening %s\n", error_message(err),
				argv[2]);
			return 1;
		}
		for (int i = 3; i < argc; i++)
			status |= measure_image(fs, argv[i]);
		ext2fs_close_free(&fs);
		return status;
	}
	fprintf(stderr, "usage: use-lib digest FILE... | measure IMAGE PATH...\n");
	return 2;
}
