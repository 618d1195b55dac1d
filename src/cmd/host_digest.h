/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host_digest.h - the fs-verity digest of a host file */
#ifndef CLI_HOST_DIGEST_H
#define CLI_HOST_DIGEST_H

#include "cli/cli.h"

/* Computes the digest (and tree/descriptor files, when asked) of a host file. */
errcode_t cli_digest_host_file(const char *path, struct cli_tree_opts *t,
			       struct e2verity_result *res, const char **doing);

#endif /* CLI_HOST_DIGEST_H */
