/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_files.h - check's records: one per file, found again by inode, and their findings */
#ifndef CLI_CHECK_FILES_H
#define CLI_CHECK_FILES_H

#include "check/check_run.h"

/* A new file record (zeroed but for @ino and a copy of @path); NULL without memory */
struct cli_checked *cli_check_add_file(struct cli_check_run *c, ext2_ino_t ino, const char *path);
/* The record of inode @ino, or NULL */
struct cli_checked *cli_check_file_of(struct cli_check_run *c, ext2_ino_t ino);
/* Adds a finding of @code to @r (about @path when it is not @r's own name); -1 without memory */
int cli_check_add_finding(struct cli_check_run *c, struct cli_checked *r, unsigned int code,
			  const struct e2verity_finding *f, const char *path);

/* Frees the index of the records by inode. */
void cli_check_files_free(void);

#endif /* CLI_CHECK_FILES_H */
