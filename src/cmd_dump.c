// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_dump.c - `e2verity dump`: raw verity metadata to stdout, as `fsverity dump_metadata` */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk.h"

enum {
	OPT_OFFSET = OPT_FIRST_PRIVATE,
	OPT_LENGTH,
};

#define E2V_DUMP_CHUNK (1u << 20)
/* not verity metadata: the security.ima extended attribute, as `getfattr -e hex` shows it */
#define E2V_DUMP_IMA 0x100

/* The bytes of security.ima from @offset, at most @length */
static errcode_t e2v_dump_ima(ext2_filsys fs, ext2_ino_t ino, uint64_t offset, uint64_t length)
{
	uint8_t *value;
	size_t len;
	errcode_t err;

	err = e2verity_ima_get(fs, ino, &value, &len);
	if (err)
		return err;
	if (offset < len) {
		len -= offset;
		if (length < len)
			len = length;
		if (fwrite(value + offset, 1, len, stdout) != len)
			err = errno ? errno : EIO;
	}
	free(value);
	return err;
}

static const struct {
	const char *name;
	unsigned int type;
} e2v_dump_types[] = {
	{ "merkle_tree", E2VERITY_METADATA_MERKLE_TREE },
	{ "descriptor", E2VERITY_METADATA_DESCRIPTOR },
	{ "signature", E2VERITY_METADATA_SIGNATURE },
	{ "ima", E2V_DUMP_IMA },
};

static unsigned int e2v_dump_type(const char *name)
{
	for (size_t i = 0; i < sizeof(e2v_dump_types) / sizeof(e2v_dump_types[0]); i++)
		if (strcmp(name, e2v_dump_types[i].name) == 0)
			return e2v_dump_types[i].type;
	return 0;
}

int cmd_dump(const struct e2v_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "length", required_argument, NULL, OPT_LENGTH },
		E2V_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t offset = 0, length = UINT64_MAX;
	const char *image, *type_name;
	char why[256];
	char *path;
	unsigned int type;
	struct e2v_getopt g;
	ext2_filsys fs = NULL;
	ext2_ino_t ino;
	uint8_t *buf = NULL;
	int opt, status = E2V_EXIT_FAILURE;
	errcode_t err;

	e2v_getopt_init(&g, cmd, argc, argv, "", longopts);
	while ((opt = e2v_getopt(&g)) != -1) {
		switch (opt) {
		case OPT_OFFSET:
			if (e2v_parse_u64(optarg, UINT64_MAX, &offset))
				return e2v_usage_error(cmd, "invalid offset '%s'", optarg);
			break;
		case OPT_LENGTH:
			if (e2v_parse_u64(optarg, UINT64_MAX, &length))
				return e2v_usage_error(cmd, "invalid length '%s'", optarg);
			break;
		default:
			return g.status ? g.status : e2v_usage_error(cmd, NULL);
		}
	}
	if (argc - optind > 3)
		return e2v_usage_error(cmd,
				       "too many operands: '%s' after IMAGE, PATH and the type",
				       e2v_name(argv[optind + 3]));
	if (argc - optind != 3)
		return e2v_usage_error(cmd, "IMAGE, PATH and the metadata type are needed");
	image = argv[optind];
	if (!e2v_disk_name_valid(image, why, sizeof(why)))
		return e2v_usage_error(cmd, "invalid IMAGE '%s'%s", e2v_name(image), why);
	/* fsverity dump_metadata's order, TYPE then FILE, is taken too */
	if (!e2v_dump_type(argv[optind + 2]) && e2v_dump_type(argv[optind + 1])) {
		type_name = argv[optind + 1];
		path = argv[optind + 2];
	} else {
		type_name = argv[optind + 2];
		path = argv[optind + 1];
	}
	type = e2v_dump_type(type_name);
	if (!type)
		return e2v_usage_error(cmd,
				       "unknown metadata type '%s' (merkle_tree, descriptor, "
				       "signature or ima)",
				       e2v_name(type_name));
	if (e2v_normalize_path(path))
		return e2v_usage_error(cmd, E2V_MSG_RELATIVE, e2v_name(path));

	if (e2v_cli_open_image(image, 0, &fs))
		return E2V_EXIT_FAILURE;
	if (e2v_cli_lookup(fs, image, path, &ino))
		goto out;
	if (type == E2V_DUMP_IMA) {
		err = e2v_dump_ima(fs, ino, offset, length);
		if (err) {
			e2v_error(err, "while reading the security.ima of '%s'", e2v_name(path));
			goto out;
		}
		status = e2v_flush_stdout() ? E2V_EXIT_FAILURE : E2V_EXIT_OK;
		goto out;
	}
	buf = malloc(E2V_DUMP_CHUNK);
	if (!buf) {
		e2v_error(ENOMEM, "while dumping '%s'", e2v_name(path));
		goto out;
	}
	while (length) {
		size_t want = length < E2V_DUMP_CHUNK ? length : E2V_DUMP_CHUNK, got;

		err = e2verity_read_metadata(fs, ino, type, offset, buf, want, &got);
		if (err) {
			e2v_error(err, "while reading the %s of '%s'", type_name, e2v_name(path));
			goto out;
		}
		if (!got)
			break;
		if (fwrite(buf, 1, got, stdout) != got)
			break;
		offset += got;
		length -= got;
	}
	if (e2v_flush_stdout())
		goto out;
	status = E2V_EXIT_OK;
out:
	free(buf);
	e2v_cli_close_image(image, &fs, 0);
	return status;
}
