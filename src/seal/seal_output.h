/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seal_output.h - what a run prints, and the manifest */
#ifndef CLI_SEAL_OUTPUT_H
#define CLI_SEAL_OUTPUT_H

#include "cmd/select.h"
#include "seal/seal_run.h"

/*
 * One committed file: its digest line, its manifest entry, a note for a skip,
 * a re-signed file or -v.
 */
errcode_t cli_seal_report(struct cli_seal_run *c, const struct cli_target *t,
			  const struct cli_seal_rec *rec, const struct e2verity_seal_result *res,
			  unsigned int bs);
int cli_seal_report_skips(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
			  const struct cli_seal_rec *plans);
/* How many files were sealed already (one line each with -v, said as they were met). */
void cli_seal_note_skips(const struct cli_seal_run *c);
/*
 * A dry run's line for file @i: "ACTION PATH (N blocks at most@more)", then
 * its other names.
 */
void cli_seal_list(const struct cli_selection *sel, size_t i, const char *action, uint64_t blocks,
		   const char *more);
int cli_seal_digests(struct cli_seal_run *c, ext2_filsys fs, const struct cli_selection *sel,
		     const struct cli_seal_rec *plans);
/* Opens the manifest's file before the image is written: a bad path costs nothing. */
int cli_seal_manifest_open(struct cli_seal_run *c);
/* Writes the manifest; @sealed: the image was written, which a failure here does not undo. */
int cli_seal_manifest_write(struct cli_seal_run *c, int sealed);

#endif /* CLI_SEAL_OUTPUT_H */
