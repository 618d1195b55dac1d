/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ipe_policy.h - an IPE policy that lets exactly the measured files execute */
#ifndef E2VERITY_IPE_POLICY_H
#define E2VERITY_IPE_POLICY_H

#include <stdio.h>

#include "output/manifest.h"

/*
 * 0 if @name can be an IPE policy_name: not empty, no blank, no '#', no
 * control byte (security/ipe/policy_parser.c splits a line at blanks and
 * ends it at '#').
 */
int cli_ipe_name_ok(const char *name);
/* 0 if @version is an IPE policy_version: three decimal numbers up to 65535, '.' between */
int cli_ipe_version_ok(const char *version);
/*
 * The name of the policy for an image when none is given: the image's file
 * name, each byte that cli_ipe_name_ok() would refuse (and '/') made '_';
 * malloc'd, NULL when out of memory.
 */
char *cli_ipe_default_name(const char *image);
/*
 * Writes a policy IPE parses: the header, every operation allowed by
 * default but EXECUTE, which is denied, and one rule a file allowing its
 * fs-verity digest, each after a comment naming the file (escaped as every
 * command prints names, so never a line break).  Entries that failed to
 * measure are left out.  Returns 0 or EIO.
 */
int cli_ipe_policy_write(FILE *f, const char *name, const char *version,
			 const struct cli_manifest *mf);

#endif /* E2VERITY_IPE_POLICY_H */
