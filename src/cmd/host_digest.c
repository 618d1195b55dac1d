// SPDX-License-Identifier: GPL-2.0-or-later
/* host_digest.c - fs-verity digest, tree and descriptor of a file on the host */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/host_digest.h"
#include "cli/cli.h"
#include "cli/util.h"
#include "output/outfile.h"

static errcode_t cli_read_fd(void *ctx, void *buf, size_t count, uint64_t offset)
{
	int fd = *(int *)ctx;
	char *p = buf;

	while (count) {
		ssize_t n = pread(fd, p, count, offset);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return E2VERITY_ET_SHORT_READ; /* the file shrank under us */
		p += n;
		count -= n;
		offset += n;
	}
	return 0;
}

/* lseek's SEEK_DATA: a sparse file's holes are never read */
static errcode_t cli_seek_data_fd(void *ctx, uint64_t offset, uint64_t *data)
{
	int fd = *(int *)ctx;
	off_t next = lseek(fd, offset, SEEK_DATA);

	if (next >= 0)
		*data = next;
	else if (errno == ENXIO)
		*data = UINT64_MAX; /* only a hole up to the end */
	else
		*data = offset; /* no SEEK_DATA here: read everything */
	return 0;
}

errcode_t cli_digest_host_file(const char *path, struct cli_tree_opts *t,
			       struct e2verity_result *res, const char **doing)
{
	struct cli_outfile tree_out = { .fd = -1 }, desc_out = { .fd = -1 };
	uint8_t raw[E2VERITY_DESCRIPTOR_SIZE];
	struct stat st;
	errcode_t err;
	int fd;

	*doing = "opening";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = fstat(fd, &st) ? errno : 0;
	if (!err && !S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	if (err)
		goto out;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (t->out_merkle_tree) {
		*doing = "creating the Merkle tree file for";
		err = cli_outfile_open(&tree_out, t->out_merkle_tree, 0);
		if (err)
			goto out;
	}
	*doing = "hashing";
	err = e2verity_compute_sparse(&t->params, st.st_size, cli_read_fd, cli_seek_data_fd, &fd,
				      t->out_merkle_tree ? cli_tree_to_fd : NULL, &tree_out.fd,
				      res);
	if (err)
		goto out;
	if (t->out_descriptor) {
		*doing = "writing the descriptor of";
		e2verity_descriptor_encode(&res->desc, raw);
		err = cli_outfile_open(&desc_out, t->out_descriptor, 0);
		if (!err)
			err = cli_outfile_write(&desc_out, raw, sizeof(raw));
		if (!err)
			err = cli_outfile_commit(&desc_out);
		if (err)
			goto out;
	}
	if (t->out_merkle_tree) {
		*doing = "writing the Merkle tree of";
		err = cli_outfile_commit(&tree_out);
	}
out:
	cli_outfile_abort(&tree_out);
	cli_outfile_abort(&desc_out);
	close(fd);
	return err;
}
