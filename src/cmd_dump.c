// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_dump.c - `e2verity dump`: raw verity metadata to stdout, as `fsverity dump_metadata` */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

enum {
	OPT_OFFSET = OPT_FIRST_PRIVATE,
	OPT_LENGTH,
};

#define E2V_DUMP_CHUNK (1u << 20)

static const struct {
	const char *name;
	unsigned int type;
} e2v_dump_types[] = {
	{ "merkle_tree", E2VERITY_METADATA_MERKLE_TREE },
	{ "descriptor", E2VERITY_METADATA_DESCRIPTOR },
	{ "signature", E2VERITY_METADATA_SIGNATURE },
};

static int e2v_parse_u64(const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (arg[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end)
		return -1;
	*out = v;
	return 0;
}

int cmd_dump(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "length", required_argument, NULL, OPT_LENGTH },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t offset = 0, length = UINT64_MAX;
	const char *image, *path, *doing;
	unsigned int type = 0;
	ext2_filsys fs = NULL;
	ext2_ino_t ino;
	uint8_t *buf = NULL;
	int opt, status = E2V_EXIT_FAILURE;
	errcode_t err;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_OFFSET:
			if (e2v_parse_u64(optarg, &offset))
				return e2v_usage_error(cmd, "invalid offset '%s'", optarg);
			break;
		case OPT_LENGTH:
			if (e2v_parse_u64(optarg, &length))
				return e2v_usage_error(cmd, "invalid length '%s'", optarg);
			break;
		case OPT_HELP:
			e2v_usage(cmd, stdout);
			return E2V_EXIT_OK;
		default:
			return e2v_usage_error(cmd, NULL);
		}
	}
	if (argc - optind != 3)
		return e2v_usage_error(cmd, "IMAGE, PATH and the metadata type are needed");
	image = argv[optind];
	path = argv[optind + 1];
	for (size_t i = 0; i < sizeof(e2v_dump_types) / sizeof(e2v_dump_types[0]); i++)
		if (strcmp(argv[optind + 2], e2v_dump_types[i].name) == 0)
			type = e2v_dump_types[i].type;
	if (!type)
		return e2v_usage_error(cmd, "unknown metadata type '%s'", argv[optind + 2]);
	if (path[0] != '/')
		return e2v_usage_error(cmd, "'%s' is not an absolute path inside the image", path);

	err = e2v_open_image(image, 0, &fs, &doing);
	if (err) {
		e2v_error(err, "while %s '%s'", doing, image);
		return E2V_EXIT_FAILURE;
	}
	err = e2v_lookup_path(fs, path, &ino);
	if (err) {
		e2v_error(err, "while looking up '%s'", path);
		goto out;
	}
	buf = malloc(E2V_DUMP_CHUNK);
	if (!buf) {
		e2v_error(ENOMEM, "while dumping '%s'", path);
		goto out;
	}
	while (length) {
		size_t want = length < E2V_DUMP_CHUNK ? length : E2V_DUMP_CHUNK, got;

		err = e2verity_read_metadata(fs, ino, type, offset, buf, want, &got);
		if (err) {
			e2v_error(err, "while reading the %s of '%s'", argv[optind + 2], path);
			goto out;
		}
		if (!got)
			break;
		if (fwrite(buf, 1, got, stdout) != got)
			break;
		offset += got;
		length -= got;
	}
	if (fflush(stdout) || ferror(stdout)) {
		e2v_error(errno, "while writing to standard output");
		goto out;
	}
	status = E2V_EXIT_OK;
out:
	free(buf);
	ext2fs_close_free(&fs);
	return status;
}
