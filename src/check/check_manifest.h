/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_manifest.h - check --manifest and --require-sealed: the image against a list */
#ifndef CLI_CHECK_MANIFEST_H
#define CLI_CHECK_MANIFEST_H

#include "check/check_run.h"

/*
 * The image against the manifest: every listed path must be a sealed file
 * with the listed digest (and parameters), every name of a sealed file must
 * be listed.  Each deviation is a finding of its file.
 */
errcode_t cli_check_manifest(struct cli_check_run *c, ext2_filsys fs);
/* --require-sealed: every regular file under the paths (but the excluded) must be sealed */
errcode_t cli_check_required(struct cli_check_run *c, ext2_filsys fs);
/*
 * --digest-names=DIR: every regular file under DIR is sealed and named
 * XX/REST by its fs-verity digest in lowercase hex (composefs' objects/).
 */
errcode_t cli_check_digest_names(struct cli_check_run *c, ext2_filsys fs);
/* After a repair of @r: its digest against the manifest again (findings marked after) */
int cli_check_manifest_again(struct cli_check_run *c, struct cli_checked *r);

#endif /* CLI_CHECK_MANIFEST_H */
