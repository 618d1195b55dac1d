/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sign_batch.h - `e2verity sign --digests-from`: every digest of a manifest signed in one run */
#ifndef CLI_SIGN_BATCH_H
#define CLI_SIGN_BATCH_H

#include "cmd/signer.h"

/*
 * Signs every digest of the manifest @manifest ("-": standard input) with
 * the key of @so on @threads threads, into @sigdir/<path as printed>.sig,
 * the layout `seal --signatures-from` reads.  Nothing is written unless
 * the manifest, the key and every output path are good; then every
 * signature appears, or (after a failure) none.  Returns the exit status.
 */
int cli_sign_batch(const char *manifest, const char *sigdir, const struct cli_signer_opts *so,
		   unsigned int threads);

#endif /* CLI_SIGN_BATCH_H */
