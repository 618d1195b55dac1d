// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_unseal.c - `e2verity unseal`: remove fs-verity from files of an unmounted image */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int cmd_unseal(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *image, *undo = NULL;
	struct e2v_image img = { 0 };
	ext2_filsys fs;
	ext2_ino_t *inos = NULL;
	unsigned int flags = E2V_IMAGE_WRITE;
	int opt, verbose = 0, npaths, status = E2V_EXIT_FAILURE;
	char **paths;
	errcode_t err;

	while ((opt = getopt_long(argc, argv, "vz:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v':
			verbose = 1;
			break;
		case 'z':
			undo = optarg;
			break;
		case 'f':
			flags |= E2V_IMAGE_FORCE;
			break;
		case OPT_HELP:
			e2v_usage(cmd, stdout);
			return E2V_EXIT_OK;
		default:
			return e2v_usage_error(cmd, NULL);
		}
	}
	if (argc - optind < 2)
		return e2v_usage_error(cmd, "IMAGE and at least one PATH are needed");
	image = argv[optind];
	paths = argv + optind + 1;
	npaths = argc - optind - 1;
	for (int i = 0; i < npaths; i++)
		if (paths[i][0] != '/')
			return e2v_usage_error(cmd, "'%s' is not an absolute path inside the image",
					       paths[i]);

	e2v_catch_signals();
	err = e2v_image_open(&img, image, flags, undo);
	if (err) {
		e2v_error(err, "while %s '%s'", img.doing, img.what);
		goto out;
	}
	fs = img.fs;
	inos = calloc(npaths, sizeof(*inos));
	if (!inos) {
		e2v_error(ENOMEM, "while unsealing files of '%s'", image);
		goto out;
	}
	/* every file is checked before anything is written */
	for (int i = 0; i < npaths; i++) {
		struct ext2_inode inode;

		err = e2v_lookup_path(fs, paths[i], &inos[i]);
		if (err) {
			e2v_error(err, "while looking up '%s'", paths[i]);
			goto out;
		}
		err = ext2fs_read_inode(fs, inos[i], &inode);
		if (!err && !(inode.i_flags & EXT4_VERITY_FL))
			err = E2VERITY_ET_NOT_SEALED;
		if (!err && !LINUX_S_ISREG(inode.i_mode))
			err = E2VERITY_ET_NOT_REGULAR;
		if (err) {
			e2v_error(err, "while unsealing '%s'", paths[i]);
			goto out;
		}
	}
	/* one transaction: every file is unsealed, or none (a signal drops them all) */
	for (int i = 0; i < npaths && !e2v_cancel; i++) {
		blk64_t freed;

		err = e2verity_unseal_inode(fs, inos[i], &freed);
		if (err == E2VERITY_ET_NOT_SEALED)
			continue; /* the same file named twice */
		if (err) {
			e2v_error(err, "while unsealing '%s'", paths[i]);
			goto out;
		}
		if (verbose)
			printf("unsealed %s: %llu blocks freed\n", paths[i],
			       (unsigned long long)freed);
	}
	if (e2v_cancel) {
		fprintf(stderr, "%s: %s: nothing unsealed\n", e2v_prog, strsignal(e2v_cancel));
		status = 128 + e2v_cancel;
		goto out;
	}
	status = E2V_EXIT_OK;
out:
	free(inos);
	if (status != E2V_EXIT_OK)
		e2v_image_abandon(&img);
	err = e2v_image_close(&img);
	if (err && status == E2V_EXIT_OK) {
		e2v_error(err, "while %s '%s'", img.doing, img.what);
		status = E2V_EXIT_FAILURE;
	}
	return status;
}
