// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_unseal.c - `e2verity unseal`: remove fs-verity from files of an unmounted image */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "cmd.h"

int cmd_unseal(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *image, *doing;
	ext2_filsys fs = NULL;
	ext2_ino_t *inos = NULL;
	int opt, verbose = 0, npaths, status = E2V_EXIT_FAILURE;
	char **paths;
	errcode_t err;

	while ((opt = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v':
			verbose = 1;
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

	err = e2v_open_image(image, 1, &fs, &doing);
	if (err) {
		e2v_error(err, "while %s '%s' for writing", doing, image);
		return E2V_EXIT_FAILURE;
	}
	inos = calloc(npaths, sizeof(*inos));
	if (!inos) {
		e2v_error(ENOMEM, "while unsealing files of '%s'", image);
		goto out;
	}
	/* every file is checked before anything is written */
	for (int i = 0; i < npaths; i++) {
		err = e2v_lookup_path(fs, paths[i], &inos[i]);
		if (err) {
			e2v_error(err, "while looking up '%s'", paths[i]);
			goto out;
		}
		err = e2verity_unseal_check(fs, inos[i]);
		if (err) {
			e2v_error(err, "while unsealing '%s'", paths[i]);
			goto out;
		}
	}
	for (int i = 0; i < npaths; i++) {
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
	status = E2V_EXIT_OK;
out:
	free(inos);
	if (fs) {
		err = ext2fs_close_free(&fs);
		if (err && status == E2V_EXIT_OK) {
			e2v_error(err, "while writing '%s'", image);
			status = E2V_EXIT_FAILURE;
		}
	}
	return status;
}
