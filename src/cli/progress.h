/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.h - one progress display for every command */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdint.h>

/*
 * Progress, one style for every command: a line redrawn on a terminal's
 * stderr (nothing when it is not a terminal), and e2fsck -C's machine lines
 * ("PASS DONE TOTAL DEVICE") on a descriptor.  The work is counted in bytes
 * of data plus a block's worth per file, so that a run over empty files moves
 * too; the line names the files done.
 */
struct cli_progress {
	int bar, fd, pass, last, drawn;
	const char *device;
	uint64_t files, bytes;		 /* the whole run */
	uint64_t files_done, bytes_done; /* the files done and their data */
	int64_t drawn_at;		 /* CLOCK_MONOTONIC, ns */
};
void cli_progress_init(struct cli_progress *p, int bar, int fd, const char *device);
int cli_progress_active(const struct cli_progress *p);
/* What the run goes through: @files files of @bytes bytes of data in all. */
void cli_progress_total(struct cli_progress *p, uint64_t files, uint64_t bytes);
/* @done bytes of the file under way are through; @label (or NULL) names it. */
void cli_progress_bytes(struct cli_progress *p, uint64_t done, const char *label);
/* One more file of @size bytes is done. */
void cli_progress_file(struct cli_progress *p, uint64_t size, const char *label);
/* Erases the line before other output. */
void cli_progress_clear(struct cli_progress *p);

#endif /* CLI_PROGRESS_H */
