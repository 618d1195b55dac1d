/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.h - small helpers shared by the Check suites */
#ifndef E2VERITY_UNIT_H
#define E2VERITY_UNIT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "e2verity.h"

static inline void unit_hex2bin(const char *hex, uint8_t *out, size_t len)
{
	ck_assert_uint_eq(strlen(hex), 2 * len);
	for (size_t i = 0; i < len; i++) {
		unsigned int v;

		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = v;
	}
}

static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	e2verity_init();
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* E2VERITY_UNIT_H */
