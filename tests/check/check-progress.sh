#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-progress.sh - check -C FD writes e2fsck's machine-readable completion lines, which move
# file by file through empty files too; -C 0 and --progress draw nothing when standard error is not
# a terminal, and a line naming the files done when it is (seal -p too, even with -q); e2fsck's
# letters: -n and -f accepted, -p/-a/-y refused (check cannot repair yet), -q, -V
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
# e2fsck's habits: -n (read only) is what check does, -f (even if clean) is what it always does
"$E2VERITY" check -n -f img >out 2>err
check "-n -f: exit 0, the same report" sh -c "cmp plain.out out && test ! -s err"
"$E2VERITY" check -fn img >out 2>err
check "-fn: the same report" sh -c "cmp plain.out out && test ! -s err"
# -p and -y repair; on a clean image they find nothing to repair and write nothing
for o in -p -y -fy; do
	cp img rw.img
	"$E2VERITY" check $o rw.img >out 2>err
	same "check $o on a clean image: exit 0" $? 0
	check "check $o on a clean image: the image is not written" cmp -s img rw.img
	check "check $o: says no file was repaired" grep -q '; 0 files repaired, 0 left with errors$' out
done
expect_fail "-p -y" 16 "-p and -y exclude each other" "$E2VERITY" check -p -y img
expect_fail "-n -p" 16 "-n and -p exclude each other" "$E2VERITY" check -n -p img
# -a (e2fsck's old -p) means "all files" to seal and measure: refused, the image not written
cp img rw.img
expect_fail "-a" 16 "-a is not an option of check: -p repairs .*; check always checks every sealed file" \
	"$E2VERITY" check -a rw.img
check "check -a: the image is not written" cmp -s img rw.img
expect_fail "-z without -p or -y" 16 "-z needs -p or -y" "$E2VERITY" check -z undo img
"$E2VERITY" check -q img >out 2>err
same "-q: exit 0" $? 0
check "-q: nothing printed" sh -c "test ! -s out && test ! -s err"
expect_fail "-q -v" 16 "-q and -v exclude each other" "$E2VERITY" check -q -v img
"$E2VERITY" check -V >out 2>err
same "-V: exit 0" $? 0
check "-V: the version" grep -q '^e2verity [0-9]' out
# a damaged file: -q still prints the problem, and the status says it
cp img bad.img
off=$(debugfs -R "bmap /small 0" bad.img 2>/dev/null)
printf 'X' | dd of=bad.img bs=1 seek=$((off * 4096 + 10)) conv=notrunc 2>/dev/null
"$E2VERITY" check -q bad.img >out 2>err
same "-q on a damaged file: exit 4" $? 4
check "-q on a damaged file: the problem, no summary" sh -c \
	"grep -q '^/small (inode [0-9]*): error ' out && ! grep -q 'files checked' out"

# many empty files: the progress moves file by file, not once at the end
mkdir empty
i=0
while [ $i -lt 300 ]; do
	: >"empty/e$i"
	i=$((i + 1))
done
mke2fs -q -F -t ext4 -b 4096 -O verity -d empty e.img 32M >/dev/null 2>&1 || fail "mke2fs"
"$E2VERITY" seal -q -a e.img || fail "seal the empty files"
"$E2VERITY" check -C 3 e.img 3>eprogress >/dev/null 2>&1 || fail "check -C 3 of empty files"
check "-C 3, 300 empty files: one line per file or more" test "$(wc -l <eprogress)" -ge 300
awk 'NR > 1 && $2 <= last { bad = 1 } { last = $2 } END { exit bad }' eprogress ||
	fail "-C 3, empty files: the progress does not move at each line"
check "-C 3, empty files: ends complete" sh -c "tail -n 1 eprogress | awk '{ exit !(\$2 == \$3 && \$3 > 0) }'"
# and on a terminal (script(1) gives one): the line counts the files
if command -v script >/dev/null 2>&1; then
	script -qc "'$E2VERITY' check -C 0 e.img" /dev/null >tty.out 2>&1
	check "-C 0 on a terminal: the files counted" grep -q '(300/300 files)' tty.out
	mke2fs -q -F -t ext4 -b 4096 -O verity -d empty e2.img 32M >/dev/null 2>&1 || fail "mke2fs"
	script -qc "'$E2VERITY' seal -q -p -a e2.img" /dev/null >tty.out 2>&1
	check "seal -q -p on a terminal: progress by files" grep -q '(300/300 files)' tty.out
	check "seal -q -p: no digest printed" test "$(grep -c sha256 tty.out)" -eq 0
else
	echo "note: no script(1); the terminal's progress line is not exercised" >&2
fi
expect_fail "-C on a closed descriptor" 16 "-C 7: no such open file descriptor" \
	"$E2VERITY" check -C 7 img
expect_fail "-C with a bad number" 16 "invalid file descriptor 'x'" "$E2VERITY" check -C x img
"$E2VERITY" seal -p -q img /small >out 2>err
check "seal -p off a terminal: silent" test ! -s err
finish
