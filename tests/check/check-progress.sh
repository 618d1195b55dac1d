#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-progress.sh - check -C FD writes e2fsck's machine-readable completion lines; -C 0 and
# --progress draw nothing when standard error is not a terminal; -p is e2fsck's preen (no change)
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
make_data src/big 3000000
make_data src/small 5000
mke2fs -q -F -t ext4 -b 4096 -O verity -d src img 32M >/dev/null 2>&1 || fail "mke2fs"
"$E2VERITY" seal -q img /big /small || fail "seal"

"$E2VERITY" check img >plain.out 2>plain.err
check "check: exit 0" test $? -eq 0

"$E2VERITY" check -C 3 img 3>progress >out 2>err
check "-C 3: exit 0" test $? -eq 0
check "-C 3: the same report" cmp plain.out out
check "-C 3: nothing on stderr" test ! -s err
# e2fsck's form: PASS DONE TOTAL DEVICE, DONE never above TOTAL, and the last line complete
check "-C 3: e2fsck's line form" sh -c "test -s progress && ! grep -v -E '^1 [0-9]+ [0-9]+ img\$' progress"
awk '$2 > $3 { bad = 1 } END { exit bad }' progress || fail "-C 3: done above total"
check "-C 3: ends complete" sh -c "tail -n 1 progress | awk '{ exit !(\$2 == \$3 && \$3 > 0) }'"
awk 'NR > 1 && $2 < last { bad = 1 } { last = $2 } END { exit bad }' progress ||
	fail "-C 3: progress went backwards"

"$E2VERITY" check -C 0 img >out 2>err
check "-C 0 off a terminal: silent" test ! -s err
check "-C 0: the same report" cmp plain.out out
"$E2VERITY" check --progress img >out 2>err
check "--progress off a terminal: silent" test ! -s err
"$E2VERITY" check -p img >out 2>err
check "-p (preen): exit 0, the same report" sh -c "cmp plain.out out && test ! -s err"
expect_fail "-C on a closed descriptor" 16 "-C 7: no such open file descriptor" \
	"$E2VERITY" check -C 7 img
expect_fail "-C with a bad number" 16 "invalid file descriptor 'x'" "$E2VERITY" check -C x img
"$E2VERITY" seal -p -q img /small >out 2>err
check "seal -p off a terminal: silent" test ! -s err
finish
