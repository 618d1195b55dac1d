// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_measure.c - `e2verity measure`: digests from the stored descriptors, as `fsverity measure` */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

enum {
	OPT_JSON = OPT_FIRST_PRIVATE,
};

/* --all: every name of every sealed inode; an inode no directory names is e2fsck's business */
static errcode_t e2v_all_sealed(ext2_filsys fs, const char *image, struct e2v_manifest *mf)
{
	ext2fs_inode_bitmap want = NULL;
	ext2_ino_t *inos = NULL;
	size_t n;
	errcode_t err;

	err = e2verity_list_verity_inodes(fs, &inos, &n);
	if (!err)
		err = ext2fs_allocate_inode_bitmap(fs, "sealed inodes", &want);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++)
		ext2fs_mark_inode_bitmap2(want, inos[i]);
	err = e2v_manifest_collect(fs, image, want, mf);
out:
	if (want)
		ext2fs_free_inode_bitmap(want);
	free(inos);
	return err;
}

int cmd_measure(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		E2V_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	enum e2v_manifest_format format = E2V_MANIFEST_TEXT;
	struct e2v_manifest mf = { 0 };
	const char *image;
	ext2_filsys fs = NULL;
	struct e2v_getopt g;
	int all = 0, opt, status = E2V_EXIT_OK;
	errcode_t err;

	e2v_getopt_init(&g, cmd, argc, argv, "a", longopts);
	while ((opt = e2v_getopt(&g)) != -1) {
		switch (opt) {
		case 'a':
			all = 1;
			break;
		case OPT_JSON:
			format = E2V_MANIFEST_JSON;
			break;
		case OPT_COMPACT:
			format = E2V_MANIFEST_COMPACT;
			break;
		default:
			return g.status ? g.status : e2v_usage_error(cmd, NULL);
		}
	}
	if (optind >= argc)
		return e2v_usage_error(cmd, "no IMAGE given");
	image = argv[optind++];
	if (all == (optind < argc))
		return e2v_usage_error(cmd, all ? "--all and PATHs exclude each other"
						: "no PATH given (or --all)");
	status = e2v_image_paths(cmd, argv + optind, argc - optind);
	if (status)
		return status;
	if (e2v_cli_open_image(image, 0, &fs))
		return E2V_EXIT_FAILURE;
	if (all) {
		err = e2v_all_sealed(fs, image, &mf);
		if (err) {
			e2v_error(err, "while listing the sealed files of '%s'", image);
			status = E2V_EXIT_FAILURE;
			goto out;
		}
	}
	for (int i = optind; i < argc; i++) {
		ext2_ino_t ino;

		if (e2v_cli_lookup(fs, image, argv[i], &ino)) {
			status = E2V_EXIT_FAILURE;
			continue;
		}
		err = e2v_manifest_add(&mf, argv[i], ino);
		if (err) {
			e2v_error(err, "while measuring '%s'", argv[i]);
			status = E2V_EXIT_FAILURE;
			goto out;
		}
	}
	if (e2v_manifest_measure(fs, &mf))
		status = E2V_EXIT_FAILURE;
	e2v_manifest_write(stdout, format, 0, image, &mf);
	if (e2v_flush_stdout())
		status = E2V_EXIT_FAILURE;
out:
	e2v_manifest_free(&mf);
	e2v_cli_close_image(image, &fs, 0);
	return status;
}
