// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_image.c - libFuzzer harness: check, measure, dump and unseal on a small mutated image */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2verity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char e2v_path[] = "/tmp/e2verity-fuzz-image.XXXXXX";
static int e2v_fd = -1;

static void e2v_cleanup(void)
{
	unlink(e2v_path);
}

static errcode_t e2v_finding(void *ctx, const struct e2verity_finding *f)
{
	char msg[512];

	(void)ctx;
	/* every finding must format: its row exists and its template is well formed */
	if (!f->problem || e2verity_finding_format(f, msg, sizeof(msg)) == 0)
		abort();
	return 0;
}

/*
 * Opens the image, ignoring checksums (or most mutations would stop at the
 * superblock), and only if its geometry fits the input: e2verity's work,
 * not libext2fs's bitmap allocation for a claimed 2^40 blocks, is under test.
 */
static ext2_filsys e2v_open(size_t size, int flags)
{
	ext2_filsys fs = NULL;

	if (ext2fs_open(e2v_path, flags | EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			unix_io_manager, &fs))
		return NULL;
	if (ext2fs_blocks_count(fs->super) > size / fs->blocksize ||
	    fs->super->s_inodes_count > 4096) {
		ext2fs_close_free(&fs);
		return NULL;
	}
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	return fs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e2verity_check_opts opts = { .finding = e2v_finding };
	struct e2verity_check_stats stats = { 0 };
	static uint8_t buf[1 << 16];
	ext2_filsys fs;
	ext2_ino_t *inos = NULL;
	size_t count = 0;

	if (e2v_fd < 0) {
		e2verity_init();
		e2v_fd = mkstemp(e2v_path);
		if (e2v_fd < 0)
			abort();
		atexit(e2v_cleanup);
	}
	if (ftruncate(e2v_fd, 0) || pwrite(e2v_fd, data, size, 0) != (ssize_t)size)
		abort();

	fs = e2v_open(size, 0);
	if (!fs)
		return 0;
	(void)e2verity_check_image(fs, &opts, &stats);
	if (e2verity_list_verity_inodes(fs, &inos, &count) == 0) {
		for (size_t i = 0; i < count; i++) {
			struct e2verity_measurement m;
			size_t got;

			(void)e2verity_measure_inode(fs, inos[i], &m);
			for (unsigned int t = E2VERITY_METADATA_MERKLE_TREE;
			     t <= E2VERITY_METADATA_SIGNATURE; t++)
				(void)e2verity_read_metadata(fs, inos[i], t, 0, buf, sizeof(buf),
							     &got);
		}
	}
	ext2fs_close_free(&fs);

	/* unseal writes: only what it proved is the file's own, or nothing */
	fs = e2v_open(size, EXT2_FLAG_RW);
	if (fs) {
		for (size_t i = 0; i < count; i++)
			(void)e2verity_unseal_inode(fs, inos[i], NULL);
		ext2fs_close_free(&fs);
	}
	free(inos);
	return 0;
}
