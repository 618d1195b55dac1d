/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_location.h - internal: check's diagnosis of a descriptor the size word does not lead to */
#ifndef E2VERITY_CHECK_LOCATION_H
#define E2VERITY_CHECK_LOCATION_H

#include "report.h"

/*
 * The kernel could not locate the descriptor from the size word (@got is
 * what it computed): reports whether the metadata was cut short, runs on past
 * its end, or only the size word is wrong.
 */
errcode_t e2v_diagnose_location(struct e2v_check *c, struct e2v_ext4_file *f,
				const struct e2verity_ext4_layout *got);

#endif /* E2VERITY_CHECK_LOCATION_H */
