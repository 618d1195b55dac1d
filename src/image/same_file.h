/* SPDX-License-Identifier: GPL-2.0-or-later */
/* same_file.h - the files a run names: no output may be the image, an input or another output */
#ifndef CLI_SAME_FILE_H
#define CLI_SAME_FILE_H

#include "cli/cli.h"

/* A file a command names: the image, an input it reads, an output it writes */
struct cli_named {
	const char *path; /* as given; NULL or "-" (standard input or output): nothing to judge */
	const char *what; /* for the message: "the image", "the undo file (-z)" */
	unsigned int use;
};

/* the image (IMAGE?io_options: the file before '?') */
#define CLI_NAMED_IMAGE 0x1
/* written by the run: the image in place, an output whole */
#define CLI_NAMED_WRITTEN 0x2
/* an undo file: a directory stands for the file made in it, named after the image */
#define CLI_NAMED_UNDO 0x4

/*
 * The undo file that -z @undo gives for the image file @image: @undo, or,
 * when it is a directory, e2verity-<image's last component>.e2undo in it.
 * malloc()ed; NULL without memory.
 */
char *cli_undo_name(const char *undo, const char *image);

/*
 * Whether two of @v[0..@n) are one file although one of them is written
 * (an output, or the image while the run writes it): the same path, another
 * path to it (".", "..", a linked directory), a symbolic link, or the same
 * inode (a hard link).  An output that is the image would destroy it, one
 * that is another output or an input would replace it, and an input that is
 * the image is read while the image changes.  Only looks (stat, lstat,
 * readlink, realpath): nothing is opened, made, truncated or removed.
 *
 * Return: 0, or E2VERITY_ET_SAME_FILE with *@which the later of the two,
 * *@name the file it names (an undo directory's file; malloc()ed) and @why
 * (of @size bytes) the rest of the message after "... '<*@name>'".
 */
errcode_t cli_named_clash(const struct cli_named *v, size_t n, size_t *which, char **name,
			  char *why, size_t size);

/* A command line's files, gathered in the order image, inputs, outputs */
struct cli_names {
	struct cli_named *v;
	size_t n, cap;
	int nomem;
};
/* Adds a file; NULL and "-" are kept, and judged as nothing */
void cli_names_add(struct cli_names *l, const char *path, const char *what, unsigned int use);

/*
 * cli_named_clash() for a command line, before anything is touched: says what
 * is wrong (com_err's form) and returns the usage status, or returns 0.
 * Frees the list either way.
 */
int cli_names_check(const struct cli_command *cmd, struct cli_names *l);

#endif /* CLI_SAME_FILE_H */
