#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel-table.sh - README's "Kernel compatibility" table is what scripts/kernel-table.sh makes of
# tests/kernel/results/, the verdicts tests/kernel/block-sizes-kernel.sh compares each kernel with
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir

sed -n '/<!-- kernel-table begin/,/<!-- kernel-table end/p' "$top_srcdir/README.md" |
	sed '1d;$d' >"$T_TMP/readme"
sh "$top_srcdir/scripts/kernel-table.sh" >"$T_TMP/made"
check "README has the kernel table" test -s "$T_TMP/readme"
if cmp -s "$T_TMP/readme" "$T_TMP/made"; then
	pass "README's kernel table is the tested results'"
else
	fail "README's kernel table differs from tests/kernel/results (scripts/kernel-table.sh --update): $(diff "$T_TMP/readme" "$T_TMP/made")"
fi
# every kernel of the matrix has its results, and each
# says what a 4 KiB filesystem with 4 KiB tree blocks did, the case every kernel since 5.4 reads
for k in 6.1-amd64 6.12-amd64 6.12-arm64-16k; do
	f=$top_srcdir/tests/kernel/results/$k.txt
	check "results of $k" test -f "$f"
	check "$k read 4 KiB blocks with 4 KiB trees" grep -qx '4096 4096 reads' "$f"
done
finish
