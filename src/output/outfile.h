/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile.h - a file written on the host: whole, at the commit */
#ifndef CLI_OUTFILE_H
#define CLI_OUTFILE_H

#include <sys/stat.h>
#include <sys/types.h>

#include "e2verity.h"

/*
 * A file written on the host (outfile.c): what the user named gets the
 * content, complete, at the commit, and nothing else is replaced.  A symbolic
 * link is followed; a regular file is replaced by a new one with its mode,
 * owner, group and extended attributes (ACLs); a device, a FIFO, a file with
 * other hard links or in a directory not ours to add to is written in place.
 * Until the commit the content sits in a file without a name, gone with the
 * process however it ends.
 */
struct cli_outfile {
	const char *path; /* as named */
	char *target;	  /* @path with its symbolic links followed */
	char *tmpname;	  /* a named temporary file, where O_TMPFILE is not to be had */
	int fd;		  /* the content goes here until the commit */
	int out;	  /* the file itself, copied into at the commit; or -1 */
	int existed, opened;
	struct stat st; /* the file replaced */
	char why[192];	/* after a refusal: " (the reason)", or "" */
};
/* CLI_OUT_WHOLE: only replace whole (an image): refuse what would be written in place */
#define CLI_OUT_WHOLE 0x1
errcode_t cli_outfile_open(struct cli_outfile *o, const char *path, unsigned int flags);
errcode_t cli_outfile_write(struct cli_outfile *o, const void *buf, size_t len);
errcode_t cli_outfile_commit(struct cli_outfile *o);
/* Drops what was written; the named file is as it was.  Safe on a zeroed struct. */
void cli_outfile_abort(struct cli_outfile *o);
/*
 * @path with every symbolic link of its last component followed, as open()
 * would follow them, also when the last one points to nothing yet (then the
 * file is created there).  *@target is malloc()ed.
 */
errcode_t cli_follow_links(const char *path, char **target);
/* $TMPDIR, or /tmp */
const char *cli_tmpdir(void);
/*
 * A new file in @dir that no name reaches (O_TMPFILE) when the system has
 * them, or -1 (errno).  With @name, *@name is a path that opens it
 * (/proc/self/fd/N, or a named file where there is no O_TMPFILE or /proc: the
 * caller unlinks that); without, any name is gone before it returns.
 */
int cli_tmpfile(const char *dir, mode_t mode, char **name);

#endif /* CLI_OUTFILE_H */
