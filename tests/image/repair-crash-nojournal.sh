#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# repair-crash-nojournal.sh - on images without a journal, check -p (trees flipped) and
# check -y (a descriptor zeroed too) cut at every write: each file as damaged or repaired whole,
# never half (tests/image/repair-cuts-lib.sh)
# (tests/image/crash-nojournal-lib.sh says what each cut must leave)
# shellcheck source=tests/image/crash-nojournal-lib.sh disable=SC1091
. "${top_srcdir:-.}/tests/image/crash-nojournal-lib.sh"

make_sealed
# shellcheck source=tests/image/repair-cuts-lib.sh disable=SC1091
. "$top_srcdir/tests/image/repair-cuts-lib.sh"
repair_setup sealed.img
repair_cuts "check -p" preen "kill fail term" -p
repair_cuts "check -y" preen "kill fail term" -y --manifest=want.all
finish
