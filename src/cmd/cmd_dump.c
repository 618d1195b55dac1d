// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_dump.c - `e2verity dump`: raw verity metadata to stdout, as `fsverity dump_metadata` */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd_dump.h"
#include "cli/cli.h"
#include "image/disk.h"
#include "image/image.h"
#include "output/names.h"

enum {
	OPT_OFFSET = OPT_FIRST_PRIVATE,
	OPT_LENGTH,
};

#define CLI_DUMP_CHUNK (1u << 20)
/* not verity metadata: the security.ima extended attribute, as `getfattr -e hex` shows it */
#define CLI_DUMP_IMA 0x100

/* The bytes of security.ima from @offset, at most @length */
static errcode_t cli_dump_ima(ext2_filsys fs, ext2_ino_t ino, uint64_t offset, uint64_t length)
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
} cli_dump_types[] = {
	{ "merkle_tree", E2VERITY_METADATA_MERKLE_TREE },
	{ "descriptor", E2VERITY_METADATA_DESCRIPTOR },
	{ "signature", E2VERITY_METADATA_SIGNATURE },
	{ "ima", CLI_DUMP_IMA },
};

static unsigned int cli_dump_type(const char *name)
{
	for (size_t i = 0; i < sizeof(cli_dump_types) / sizeof(cli_dump_types[0]); i++)
		if (strcmp(name, cli_dump_types[i].name) == 0)
			return cli_dump_types[i].type;
	return 0;
}

int cmd_dump(const struct cli_command *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "length", required_argument, NULL, OPT_LENGTH },
		CLI_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t offset = 0, length = UINT64_MAX;
	const char *image, *type_name;
	char why[256];
	char *path;
	unsigned int type;
	struct cli_getopt g;
	ext2_filsys fs = NULL;
	ext2_ino_t ino;
	uint8_t *buf = NULL;
	int opt, status = CLI_EXIT_FAILURE;
	errcode_t err;

	cli_getopt_init(&g, cmd, argc, argv, "", longopts);
	while ((opt = cli_getopt(&g)) != -1) {
		switch (opt) {
		case OPT_OFFSET:
			if (cli_parse_u64(optarg, UINT64_MAX, &offset))
				return cli_usage_error(cmd, "invalid offset '%s'", optarg);
			break;
		case OPT_LENGTH:
			if (cli_parse_u64(optarg, UINT64_MAX, &length))
				return cli_usage_error(cmd, "invalid length '%s'", optarg);
			break;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	if (argc - optind > 3)
		return cli_usage_error(cmd,
				       "too many operands: '%s' after IMAGE, PATH and the type",
				       cli_name(argv[optind + 3]));
	if (argc - optind != 3)
		return cli_usage_error(cmd, "IMAGE, PATH and the metadata type are needed");
	image = argv[optind];
	if (!cli_disk_name_valid(image, why, sizeof(why)))
		return cli_usage_error(cmd, "invalid IMAGE '%s'%s", cli_name(image), why);
	/* fsverity dump_metadata's order, TYPE then FILE, is taken too */
	if (!cli_dump_type(argv[optind + 2]) && cli_dump_type(argv[optind + 1])) {
		type_name = argv[optind + 1];
		path = argv[optind + 2];
	} else {
		type_name = argv[optind + 2];
		path = argv[optind + 1];
	}
	type = cli_dump_type(type_name);
	if (!type)
		return cli_usage_error(cmd,
				       "unknown metadata type '%s' (merkle_tree, descriptor, "
				       "signature or ima)",
				       cli_name(type_name));
	if (cli_normalize_path(path))
		return cli_usage_error(cmd, CLI_MSG_RELATIVE, cli_name(path));

	if (cli_open_image(image, 0, &fs))
		return CLI_EXIT_FAILURE;
	if (cli_lookup(fs, image, path, &ino))
		goto out;
	if (type == CLI_DUMP_IMA) {
		err = cli_dump_ima(fs, ino, offset, length);
		if (err) {
			cli_error(err, "while reading the security.ima of '%s'", cli_name(path));
			goto out;
		}
		status = cli_flush_stdout() ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
		goto out;
	}
	buf = malloc(CLI_DUMP_CHUNK);
	if (!buf) {
		cli_error(ENOMEM, "while dumping '%s'", cli_name(path));
		goto out;
	}
	while (length) {
		size_t want = length < CLI_DUMP_CHUNK ? length : CLI_DUMP_CHUNK, got;

		err = e2verity_read_metadata(fs, ino, type, offset, buf, want, &got);
		if (err) {
			cli_error(err, "while reading the %s of '%s'", type_name, cli_name(path));
			goto out;
		}
		if (!got)
			break;
		if (fwrite(buf, 1, got, stdout) != got)
			break;
		offset += got;
		length -= got;
	}
	if (cli_flush_stdout())
		goto out;
	status = CLI_EXIT_OK;
out:
	free(buf);
	cli_close_image(image, &fs);
	return status;
}
