// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_signature.c - libFuzzer harness: the built-in signature parser check runs on every signature
 */
#include "e2verity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	errcode_t err = e2verity_signature_parse(data, size);

	if (err && err != E2VERITY_ET_SIG_MALFORMED && err != E2VERITY_ET_SIG_REFUSED)
		__builtin_trap();
	return 0;
}
