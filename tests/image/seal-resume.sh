#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-resume.sh - a seal run again over files sealed already (a resumed run) says how many it
# skipped in one line (each with -v), and a stopped run counts them as skipped, not as sealed
#
# Oracle for the summary: the files measure --all lists before and after the stopped run.
. "${top_srcdir:-.}/tests/lib.sh"
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
require_cmd mke2fs truncate
t_tmpdir
cd "$T_TMP" || exit 1

# five new files, ten sealed already, then a file large enough (64 MiB) that the files before it
# are committed first: a stop while it is sealed leaves those
mkdir src
for i in 0 1 2 3 4; do printf 'new %s\n' $i >src/n$i; done
for i in 0 1 2 3 4 5 6 7 8 9; do printf 'old %s\n' $i >src/s$i; done
truncate -s 70M src/zbig
printf x | dd of=src/zbig bs=1 seek=1000 conv=notrunc status=none
mke2fs -q -F -t ext4 -b 4096 -d src base.img 128M >/dev/null 2>&1 || fail "mke2fs"
"$E2VERITY" seal -q base.img /s0 /s1 /s2 /s3 /s4 /s5 /s6 /s7 /s8 /s9 || fail "sealing /s*"

# resumed to the end: one line for the ten, not ten
cp base.img full.img
"$E2VERITY" seal -a full.img >full.out 2>full.err || fail "seal -a: exit $?"
check "resumed: one line on stderr" test "$(wc -l <full.err)" -eq 1
check "resumed: the count of skipped files" grep -qx \
	'e2verity: 10 files are already sealed with these parameters; skipped (-v names them)' full.err
check "resumed: every digest on stdout" test "$(wc -l <full.out)" -eq 16
cp base.img full.img
"$E2VERITY" seal -v -a full.img >/dev/null 2>full.err || fail "seal -v -a: exit $?"
check "resumed -v: each skipped file named" test "$(grep -c 'is already sealed with these' full.err)" -eq 10

# stopped by SIGTERM while the large file is sealed (the last writes are its own)
cp base.img count.img
E2VERITY_FAULT_LOG=writes.log "$FAULT" seal -q -a count.img || fail "uncut seal"
total=$(tail -n 1 writes.log)
# the cut: the last write before which the large file is not yet sealed (the final commit's
# writes come after its own)
before=$("$E2VERITY" measure --all base.img | wc -l)
n=$total found=
while [ "$n" -gt 1 ] && [ -z "$found" ]; do
	n=$((n - 1))
	cp base.img cut.img
	E2VERITY_FAULT_AT=$n E2VERITY_FAULT_MODE=term "$FAULT" seal -a cut.img >/dev/null 2>cut.err
	rc=$?
	after=$("$E2VERITY" measure --all cut.img | wc -l)
	[ $rc -eq 143 ] && [ "$after" -eq $((before + 5)) ] && found=$n
done
check "stopped while the large file is sealed (write $n of $total)" test -n "$found"
check "stopped: the summary counts what this run sealed, and the skips apart" grep -qx \
	"e2verity: Terminated: 5 of 16 files sealed, 10 skipped (sealed already)" cut.err
check "stopped: no second count of the skips" test "$(wc -l <cut.err)" -eq 1
finish
