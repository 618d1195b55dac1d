// SPDX-License-Identifier: GPL-2.0-or-later
/* seal-all.c - an embedder's view: seal or unseal every regular file of an image, library alone */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2verity.h"

struct run {
	char **paths;
};

/* a file sealed for good: "sha256:DIGEST /PATH", as `fsverity digest` prints it */
static errcode_t committed(void *ctx, size_t i, const struct e2verity_seal_result *res)
{
	const struct run *r = ctx;

	printf("%s:", e2verity_hash_alg_by_num(res->desc.hash_algorithm)->name);
	for (unsigned int k = 0; k < res->digest_size; k++)
		printf("%02x", res->digest[k]);
	printf(" %s\n", r->paths[i] ? r->paths[i] : "?");
	return 0;
}

/* a file unsealed (committed when the run returns 0) */
static void unsealed(void *ctx, size_t i, blk64_t freed)
{
	const struct run *r = ctx;

	printf("unsealed %s: %llu blocks freed\n", r->paths[i] ? r->paths[i] : "?",
	       (unsigned long long)freed);
}

int main(int argc, char *argv[])
{
	struct e2verity_seal_opts opts = { 0 };
	struct e2verity_files_totals tot = { 0 };
	struct run r = { 0 };
	const struct e2verity_seal_files_cb cb = { .committed = committed, .ctx = &r };
	ext2_ino_t ino, *inos = NULL;
	size_t n = 0;
	struct ext2_inode inode;
	ext2_inode_scan scan = NULL;
	struct e2verity_image *img = NULL;
	ext2_filsys fs;
	errcode_t err;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IMAGE THREADS|unseal\n", argv[0]);
		return 2;
	}
	e2verity_init();
	err = ext2fs_open(argv[1], EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (err)
		goto out;
	/* the library's state of the image (its transactions, its source), on fs->priv_data */
	err = e2verity_image_attach(fs, &img);
	if (err) {
		ext2fs_free(fs);
		goto out;
	}
	/* where fast reads of the data go: the image file, the filesystem at its start */
	fd = open(argv[1], O_RDONLY);
	err = fd < 0 ? (errcode_t)errno : e2verity_set_image_source(fs, fd, 0);
	if (fd >= 0)
		close(fd);
	/* every regular file in use */
	if (!err)
		err = ext2fs_open_inode_scan(fs, 0, &scan);
	while (!err && !(err = ext2fs_get_next_inode(scan, &ino, &inode)) && ino) {
		if (ino >= EXT2_FIRST_INO(fs->super) && inode.i_links_count &&
		    LINUX_S_ISREG(inode.i_mode)) {
			ext2_ino_t *more = realloc(inos, (n + 1) * sizeof(*inos));

			if (!more) {
				err = ENOMEM;
				break;
			}
			inos = more;
			inos[n++] = ino;
		}
	}
	if (scan)
		ext2fs_close_inode_scan(scan);
	if (!err) {
		r.paths = calloc(n + 1, sizeof(*r.paths));
		err = r.paths ? e2verity_inode_paths(fs, inos, n, r.paths) : ENOMEM;
	}
	/* all or none: every file judged first, then unsealed in one transaction */
	if (!err && !strcmp(argv[2], "unseal")) {
		const struct e2verity_unseal_opts uo = { .written = unsealed, .ctx = &r };

		err = e2verity_unseal_files(fs, NULL, inos, n, &uo, &tot);
		goto close;
	}
	/* the library judges every file and the space first, then seals in transactions */
	opts.params.threads.count = atoi(argv[2]);
	if (!err)
		err = e2verity_seal_files(fs, NULL, inos, n, &opts, NULL, &cb, &tot);
	/* the library's check of what it sealed; a cancel flag set stops it before any file */
	if (!err) {
		static volatile sig_atomic_t stop = 1;
		struct e2verity_check_opts co = { .threads = opts.params.threads, .cancel = &stop };
		struct e2verity_check_stats st = { 0 };

		if (e2verity_check_image(fs, &co, &st) != E2VERITY_ET_CANCELLED || st.files)
			err = EXT2_ET_OP_NOT_SUPPORTED;
		stop = 0;
		if (!err)
			err = e2verity_check_image(fs, &co, &st);
		fprintf(stderr, "checked: %llu passed, %llu failed\n",
			(unsigned long long)st.passed, (unsigned long long)st.failed);
	}
close:
	e2verity_image_detach(img);
	/* after a failure, what the library abandoned is not written */
	if (!err)
		err = ext2fs_close_free(&fs);
	else
		ext2fs_free(fs);
	for (size_t i = 0; r.paths && i < n; i++)
		free(r.paths[i]);
	free(r.paths);
	free(inos);
out:
	if (err)
		fprintf(stderr, "%s: %s: %s (step %d, file %zu)\n", argv[0], argv[1],
			error_message(err), err ? (int)tot.step : 0, tot.index);
	else
		fprintf(stderr, "%zu files done, %zu skipped\n", tot.done, tot.skipped);
	return err ? 1 : 0;
}
