/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_lookup.h - a PATH whose lookup fails on a damaged directory: a finding, not a typo */
#ifndef CLI_CHECK_LOOKUP_H
#define CLI_CHECK_LOOKUP_H

#include "check/check_run.h"

/*
 * 1 when the lookup of the absolute @path fails because a directory on it is
 * damaged (an entry libext2fs cannot read, a mode that is no file type):
 * the path then gets a record with PATH_LOOKUP_FAILED, as the kernel's lookup
 * fails too.  0 when the path resolves, or fails as a user's mistake would
 * (a name that is not there, a file's name with more after it): the
 * selection reports those as before, and so is an indexed directory that
 * libext2fs cannot read, which the kernel may still search by the name's
 * hash.  -1 without memory.
 */
int cli_check_lookup_damage(struct cli_check_run *c, ext2_filsys fs, const char *path);

#endif /* CLI_CHECK_LOOKUP_H */
