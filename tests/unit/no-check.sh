#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# no-check.sh - stands in for the unit tests when Check was not found: they skip, never pass
echo "SKIP: Check (libcheck) not found at configure time; unit tests not built" >&2
exit 77
