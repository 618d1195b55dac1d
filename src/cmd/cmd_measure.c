// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_measure.c - `e2verity measure`: digests from the stored descriptors, as `fsverity measure` */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_measure.h"
#include "cli/cli.h"
#include "image/image.h"
#include "output/ipe_policy.h"
#include "output/manifest.h"
#include "output/names.h"

enum {
	OPT_JSON = OPT_FIRST_PRIVATE,
	OPT_FORMAT,
	OPT_POLICY_NAME,
	OPT_POLICY_VERSION,
};

/* --all: every name of every sealed inode; an inode no directory names is e2fsck's business */
static errcode_t cli_all_sealed(ext2_filsys fs, const char *image, struct cli_manifest *mf)
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
	err = cli_manifest_collect(fs, image, want, mf);
out:
	if (want)
		ext2fs_free_inode_bitmap(want);
	free(inos);
	return err;
}

struct cli_measure_run {
	const char *image;
	char **paths;
	int npaths, all;
	enum cli_manifest_format format;
	int ipe; /* --format=ipe: an IPE policy, not a manifest */
	const char *policy_name, *policy_version;
};

/* --format=: the manifest's forms by the names of --json and --compact, or an IPE policy */
static int cli_measure_format(const struct cli_command *cmd, const char *arg,
			      struct cli_measure_run *c)
{
	c->ipe = 0;
	if (!strcmp(arg, "text"))
		c->format = CLI_MANIFEST_TEXT;
	else if (!strcmp(arg, "compact"))
		c->format = CLI_MANIFEST_COMPACT;
	else if (!strcmp(arg, "json"))
		c->format = CLI_MANIFEST_JSON;
	else if (!strcmp(arg, "ipe"))
		c->ipe = 1;
	else
		return cli_usage_error(cmd, "--format=%s: not text, compact, json or ipe",
				       cli_name(arg));
	return 0;
}

static int cli_measure_parse(const struct cli_command *cmd, int argc, char *argv[],
			     struct cli_measure_run *c)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "policy-name", required_argument, NULL, OPT_POLICY_NAME },
		{ "policy-version", required_argument, NULL, OPT_POLICY_VERSION },
		CLI_IMAGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_getopt g;
	int opt, status;

	cli_getopt_init(&g, cmd, argc, argv, "a", longopts);
	while ((opt = cli_getopt(&g)) != -1) {
		switch (opt) {
		case 'a':
			c->all = 1;
			break;
		case OPT_JSON:
			c->format = CLI_MANIFEST_JSON;
			c->ipe = 0;
			break;
		case OPT_COMPACT:
			c->format = CLI_MANIFEST_COMPACT;
			c->ipe = 0;
			break;
		case OPT_FORMAT:
			status = cli_measure_format(cmd, optarg, c);
			if (status)
				return status;
			break;
		case OPT_POLICY_NAME:
			if (cli_ipe_name_ok(optarg))
				return cli_usage_error(
					cmd,
					"--policy-name=%s: an IPE policy name is one "
					"word, without '#' or control characters",
					cli_name(optarg));
			c->policy_name = optarg;
			break;
		case OPT_POLICY_VERSION:
			if (cli_ipe_version_ok(optarg))
				return cli_usage_error(cmd,
						       "--policy-version=%s: an IPE policy version "
						       "is MAJOR.MINOR.REVISION, each 0 to 65535",
						       cli_name(optarg));
			c->policy_version = optarg;
			break;
		default:
			return g.status ? g.status : cli_usage_error(cmd, NULL);
		}
	}
	if (!c->ipe && (c->policy_name || c->policy_version))
		return cli_usage_error(cmd,
				       "--policy-name and --policy-version go with --format=ipe");
	status = cli_image_operands(cmd, argc, argv, &c->image, &c->paths, &c->npaths);
	if (status)
		return status;
	if (c->all == (c->npaths > 0))
		return cli_usage_error(cmd, c->all ? "--all and PATHs exclude each other"
						   : "no PATH given (or --all)");
	return cli_image_paths(cmd, c->paths, c->npaths);
}

/*
 * The files to measure, with --all or by name.  A name that cannot be looked
 * up is reported and the others are measured all the same (@status turns to
 * failure); an error that stops the run is returned, reported.
 */
static errcode_t cli_measure_select(const struct cli_measure_run *c, ext2_filsys fs,
				    struct cli_manifest *mf, int *status)
{
	errcode_t err;

	if (c->all) {
		err = cli_all_sealed(fs, c->image, mf);
		if (err)
			cli_error(err, "while listing the sealed files of '%s'",
				  cli_name(c->image));
		return err;
	}
	for (int i = 0; i < c->npaths; i++) {
		ext2_ino_t ino;

		if (cli_lookup(fs, c->image, c->paths[i], &ino)) {
			*status = CLI_EXIT_FAILURE;
			continue;
		}
		err = cli_manifest_add(mf, c->paths[i], ino);
		if (err) {
			cli_error(err, "while measuring '%s'", cli_name(c->paths[i]));
			return err;
		}
	}
	return 0;
}

/* --format=ipe: the policy, named after the image unless --policy-name says otherwise */
static int cli_measure_ipe(const struct cli_measure_run *c, const struct cli_manifest *mf,
			   int status)
{
	char *name = NULL;

	if (!c->policy_name) {
		name = cli_ipe_default_name(c->image);
		if (!name) {
			cli_error(EXT2_ET_NO_MEMORY, "while naming the IPE policy");
			return CLI_EXIT_FAILURE;
		}
	}
	cli_ipe_policy_write(stdout, c->policy_name ? c->policy_name : name,
			     c->policy_version ? c->policy_version : "0.0.0", mf);
	free(name);
	return status;
}

int cmd_measure(const struct cli_command *cmd, int argc, char *argv[])
{
	struct cli_measure_run c = { .format = CLI_MANIFEST_TEXT };
	struct cli_manifest mf = { 0 };
	ext2_filsys fs = NULL;
	int status;

	status = cli_measure_parse(cmd, argc, argv, &c);
	if (status)
		return status;
	if (cli_open_image(c.image, 0, &fs))
		return CLI_EXIT_FAILURE;
	if (cli_measure_select(&c, fs, &mf, &status)) {
		status = CLI_EXIT_FAILURE;
		goto out;
	}
	/* what security.ima holds is in the JSON form only: not read for the others */
	if (cli_manifest_measure(fs, &mf, c.format == CLI_MANIFEST_JSON && !c.ipe))
		status = CLI_EXIT_FAILURE;
	if (c.ipe)
		status = cli_measure_ipe(&c, &mf, status);
	else
		cli_manifest_write(stdout, c.format, 0, c.image, &mf);
	if (cli_flush_stdout())
		status = CLI_EXIT_FAILURE;
out:
	cli_manifest_free(&mf);
	cli_close_image(c.image, &fs);
	return status;
}
