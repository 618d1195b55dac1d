/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select.h - which files of an image a command works on: paths, -r, -a, --files-from, --exclude */
#ifndef E2VERITY_SELECT_H
#define E2VERITY_SELECT_H

#include "cmd.h"

struct e2v_target {
	char *path; /* absolute, inside the image */
	ext2_ino_t ino;
	int walked; /* found by -a or -r, not named */
};

struct e2v_selection {
	ext2_filsys fs;
	const char *image; /* its name, for messages */
	const char *verb;  /* what -r does, for messages: "seals" */
	struct e2v_target *v;
	size_t n, cap;
	ext2fs_inode_bitmap seen; /* each inode once, even with several names */
	const char **excludes;	  /* globs */
	size_t nexcludes;
	int recursive; /* -r: a directory stands for the regular files under it */
	int all_names;		   /* every name of a hard-linked file, not the first only */
	ext2fs_inode_bitmap only;  /* when set: only these inodes are selected */
	int verbose;
	unsigned int errors; /* paths that could not be selected (each reported) */
};

errcode_t e2v_select_init(struct e2v_selection *s, ext2_filsys fs, const char *image);
void e2v_select_free(struct e2v_selection *s);

/* 1 if an --exclude glob matches @path (the whole path, or its last part for globs without '/') */
int e2v_select_excluded(const struct e2v_selection *s, const char *path);

/*
 * Adds one named path.  A directory needs -r; anything else is added and
 * judged later by the command.  Problems are reported and counted in
 * s->errors; the return value is only for errors that stop the selection,
 * reported too except ENOMEM.
 */
errcode_t e2v_select_path(struct e2v_selection *s, const char *path);
/* Adds every regular file of the filesystem (-a). */
errcode_t e2v_select_all(struct e2v_selection *s);
/*
 * Adds the paths listed in @list ("-" is standard input): one per line, or
 * NUL-terminated when @nul (-0).  A NUL byte in a line list is an error.
 */
errcode_t e2v_select_files_from(struct e2v_selection *s, const char *list, int nul);

#endif /* E2VERITY_SELECT_H */
