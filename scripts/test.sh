#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - install what is missing, build, and run the whole test suite
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh
status=0
rm -f test-run.failed
# automake's totals, as one plain closing line
count() { sed -n "s/^# $1: *\([0-9]*\)$/\1/p" "$2" | tail -n 1; }
totals()
{
	pass=$(count PASS "$1") fail=$(count FAIL "$1") error=$(count ERROR "$1") skip=$(count SKIP "$1")
	if [ "${pass:-0}" -eq 0 ] || [ "${fail:-0}" -ne 0 ] || [ "${error:-0}" -ne 0 ]; then
		echo 1 >test-run.failed
		[ -f test-suite.log ] && tail -n 200 test-suite.log >&2
	fi
	echo "$2${pass:-0} passed, $(( ${fail:-0} + ${error:-0} )) failed, ${skip:-0} skipped"
}
make -j"$(nproc)" check 2>&1 | tee test-run.log || status=1
whole=$(totals test-run.log "")
# which kernels each kernel test booted (a kernel that could not be had is a SKIP line there, not
# a failed test), and the seconds they took: the record of a CI run shows the matrix
kernel_matrix()
{
	for l in tests/kernel/*.log; do
		[ -f "$l" ] && sed -n '/^kernel matrix of/,/^[^ ]/{/^kernel matrix of\|^  /p}' "$l"
	done | awk '{ print } /^  .*, [0-9]+ s\)$/ { n = $(NF - 1); s += n }
		END { printf "kernel tests: %d s of kernel boots and checks in all\n", s }'
}
kernels=$(kernel_matrix)
# Once more on the OpenSSL hashing that CPUs without SHA-NI take: every test that hashes
# data, without the slow real-kernel boots (the bytes they check are the same on both paths).
E2VERITY_HASH=openssl make -j"$(nproc)" check TESTS="$(sed -n 's/^FALLBACK_TESTS = //p' tests/Makemodule.am)" \
	2>&1 | tee test-run-openssl.log || status=1
totals test-run-openssl.log "E2VERITY_HASH=openssl: "
echo "$kernels"
echo "$whole"
[ -f test-run.failed ] && status=1
rm -f test-run.failed
exit $status
