#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - install what is missing, build, and run the whole test suite
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh
status=0
make -j"$(nproc)" check 2>&1 | tee test-run.log || status=1
# automake's totals, as one plain closing line
count() { sed -n "s/^# $1: *\([0-9]*\)$/\1/p" test-run.log | tail -n 1; }
pass=$(count PASS) fail=$(count FAIL) error=$(count ERROR) skip=$(count SKIP)
if [ -z "$pass" ] || [ "${fail:-0}" -ne 0 ] || [ "${error:-0}" -ne 0 ]; then
	status=1
	[ -f test-suite.log ] && tail -n 200 test-suite.log
fi
echo "${pass:-0} passed, $(( ${fail:-0} + ${error:-0} )) failed, ${skip:-0} skipped"
exit $status
