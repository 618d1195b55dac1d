// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_measure.c - `e2verity measure`: digests from the stored descriptors, as `fsverity measure` */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"

enum {
	OPT_JSON = OPT_FIRST_PRIVATE,
};

struct e2v_named {
	ext2_ino_t ino;
	char *path;
};

static int e2v_named_cmp(const void *a, const void *b)
{
	const struct e2v_named *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* every sealed inode that has a name, sorted by path */
static errcode_t e2v_all_sealed(ext2_filsys fs, struct e2v_named **out, size_t *count)
{
	struct e2v_named *v = NULL;
	ext2_ino_t *inos;
	char **paths = NULL;
	size_t n, k = 0;
	errcode_t err;

	err = e2verity_list_verity_inodes(fs, &inos, &n);
	if (err)
		return err;
	paths = malloc((n + 1) * sizeof(*paths));
	v = malloc((n + 1) * sizeof(*v));
	if (!paths || !v) {
		err = ENOMEM;
		goto out;
	}
	err = e2verity_inode_paths(fs, inos, n, paths);
	if (err)
		goto out;
	/* an inode no directory names is e2fsck's business (lost+found) */
	for (size_t i = 0; i < n; i++)
		if (paths[i])
			v[k++] = (struct e2v_named){ inos[i], paths[i] };
	qsort(v, k, sizeof(*v), e2v_named_cmp);
	*out = v;
	*count = k;
	v = NULL;
out:
	free(v);
	free(paths);
	free(inos);
	return err;
}

static void e2v_json_measurement(struct e2v_json *j, const char *path, ext2_ino_t ino,
				 const struct e2verity_measurement *m, const char *digest)
{
	char salt[2 * E2VERITY_MAX_SALT_SIZE + 1];

	e2v_json_begin_object(j, NULL);
	e2v_json_string(j, "path", path);
	e2v_json_uint(j, "inode", ino);
	e2v_json_string(j, "digest", digest);
	e2v_json_string(j, "hash_algorithm",
			e2verity_hash_alg_by_num(m->desc.hash_algorithm)->name);
	e2v_json_uint(j, "block_size", 1u << m->desc.log_blocksize);
	e2v_bin2hex(m->desc.salt, m->desc.salt_size, salt);
	e2v_json_string(j, "salt", salt);
	e2v_json_uint(j, "data_size", m->desc.data_size);
	e2v_json_uint(j, "signature_size", m->desc.sig_size);
	e2v_json_end_object(j);
}

int cmd_measure(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct e2v_named *files = NULL;
	size_t nfiles = 0;
	const char *image;
	ext2_filsys fs = NULL;
	struct e2v_json j;
	struct e2v_getopt g;
	int all = 0, json = 0, opt, status = E2V_EXIT_OK;
	errcode_t err;

	e2v_getopt_init(&g, cmd, argc, argv, "a", longopts);
	while ((opt = e2v_getopt(&g)) != -1) {
		switch (opt) {
		case 'a':
			all = 1;
			break;
		case OPT_JSON:
			json = 1;
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
		err = e2v_all_sealed(fs, &files, &nfiles);
		if (err) {
			e2v_error(err, "while listing the sealed files of '%s'", image);
			status = E2V_EXIT_FAILURE;
			goto out;
		}
	} else {
		nfiles = argc - optind;
		files = calloc(nfiles, sizeof(*files));
		if (!files) {
			e2v_error(ENOMEM, "while measuring '%s'", image);
			status = E2V_EXIT_FAILURE;
			goto out;
		}
		for (size_t i = 0; i < nfiles; i++)
			files[i].path = strdup(argv[optind + i]);
	}
	if (json) {
		e2v_json_init(&j, stdout);
		e2v_json_begin_object(&j, NULL);
		e2v_json_string(&j, "image", image);
		e2v_json_begin_array(&j, "files");
	}
	for (size_t i = 0; i < nfiles; i++) {
		struct e2verity_measurement m;
		char digest[E2V_DIGEST_STRING_MAX];
		const char *path = files[i].path;

		if (!path) {
			e2v_error(ENOMEM, "while measuring '%s'", argv[optind + i]);
			status = E2V_EXIT_FAILURE;
			continue;
		}
		if (!all && e2v_cli_lookup(fs, image, path, &files[i].ino)) {
			status = E2V_EXIT_FAILURE;
			continue;
		}
		err = e2verity_measure_inode(fs, files[i].ino, &m);
		if (err) {
			e2v_error(err, "while measuring '%s'", path);
			status = E2V_EXIT_FAILURE;
			continue;
		}
		e2v_format_digest(m.desc.hash_algorithm, m.digest, digest);
		if (json)
			e2v_json_measurement(&j, path, files[i].ino, &m, digest);
		else
			printf("%s %s\n", digest, path);
	}
	if (json) {
		e2v_json_end_array(&j);
		e2v_json_end_object(&j);
	}
	if (e2v_flush_stdout())
		status = E2V_EXIT_FAILURE;
out:
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	ext2fs_close_free(&fs);
	return status;
}
