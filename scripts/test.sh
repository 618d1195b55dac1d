#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - install what is missing, build, run the static gates and the whole test suite
#
# The suite runs once, on a build with ASan and UBSan (./configure --enable-sanitizers) made in a copy
# of the tree under $TMPDIR (E2V_SAN_DIR, by default one a tree), so the tree's own build stays the plain one demo.sh and
# the README use. That one pass holds everything: the unit tests, the oracle comparisons, the kernel
# matrix under qemu, the cases, and the tests that hash data once more on the OpenSSL hashing
# (tests/hash-openssl.sh). valgrind.sh and the memory tests, which the sanitizers exclude, run the
# tree's plain build (E2V_PLAIN_BUILDDIR).
#   E2V_CONFIGURE_FLAGS  more ./configure options for both builds (CI: --enable-werror)
#   E2V_NO_GATES=1       skip scripts/gates.sh (a quick local run)
#   TESTS="..."          run only these tests (names as in tests/Makemodule.am)
set -e
cd "$(dirname "$0")/.."
src=$PWD
sh scripts/install-deps.sh
sh scripts/build.sh
# the fault helper of the plain build too: the crash tests' kill cuts run it (tests/image/image-lib.sh)
make tests/helpers/e2verity-fault >/dev/null
# the static gates run beside the sanitizer build and the suite, at a lower priority: they fill
# the cores the tests leave idle (a kernel boot's single thread, the suite's last long test), and
# their output is printed once they are done
gates_log=$src/gates.log
gates_pid=
# a step below that fails ends the run (set -e): the gates, a process group of their own, are
# stopped then, not left analyzing in the background, and what they printed so far is shown
gates_stop()
{
	[ -n "$gates_pid" ] || return 0
	kill -- "-$gates_pid" 2>/dev/null || true
	wait "$gates_pid" 2>/dev/null || true
	echo "static gates: stopped unfinished, the run failed first; what they printed:"
	cat "$gates_log"
}
if [ -z "${E2V_NO_GATES:-}" ]; then
	trap gates_stop EXIT
	setsid nice -n 10 sh scripts/gates.sh >"$gates_log" 2>&1 &
	gates_pid=$!
fi

# the sanitizer build, in a copy outside the source tree: a configured tree cannot be the source of
# another (VPATH) build, and tests that copy "what git tracks" (pkg/deb.sh) need a work tree of their own
# (one a source tree: two trees tested at once must not share it)
dst=${E2V_SAN_DIR:-${TMPDIR:-/tmp}/e2verity-sanitizers-$(printf %s "$src" | cksum | cut -d' ' -f1)}
rm -rf "$dst"
mkdir -p "$dst"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z | tar --null -T - -cf - | (cd "$dst" && tar xf -)
else
	tar cf - --exclude='*.o' --exclude='*.lo' --exclude=.libs . | (cd "$dst" && tar xf -)
	(cd "$dst" && { [ ! -f Makefile ] || make distclean >/dev/null; })
fi
cd "$dst"
./autogen.sh >/dev/null 2>&1 || autoreconf -fi >/dev/null
# built by clang where there is one (scripts/install-deps.sh installs it): its ASan and UBSan are
# one runtime linked into the program, where GCC's are two shared libraries whose 12 MB of data
# LeakSanitizer scans at every exit; a run of the command costs ~20 ms of CPU less (seal, check
# and measure of the sample image: 284 ms against 346), and the suite starts thousands. It is
# also a second compiler's warnings on every line (-Werror in CI).
san_cc=
command -v clang >/dev/null 2>&1 && san_cc=clang
# shellcheck disable=SC2086 # E2V_CONFIGURE_FLAGS: options, word-split
${san_cc:+env CC=$san_cc} ./configure --enable-sanitizers ${E2V_CONFIGURE_FLAGS:-} >/dev/null
make -j"$(nproc)" >/dev/null

# leaks are errors too; a report fails the command, so the test that ran it
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export E2V_PLAIN_BUILDDIR="$src"
status=0
start=$(date +%s)
# shellcheck disable=SC2086 # TESTS: test names, word-split
make -j"$(nproc)" check ${TESTS:+TESTS="$TESTS"} >test-run.log 2>&1 || status=1
secs=$(($(date +%s) - start))
cp test-run.log "$src/test-run.log"
[ $status -eq 0 ] || { [ -f test-suite.log ] && tail -n 300 test-suite.log; }

# automake's totals, as one plain closing line
count() { sed -n "s/^# $1: *\([0-9]*\)$/\1/p" test-run.log | tail -n 1; }
pass=$(count PASS) fail=$(count FAIL) error=$(count ERROR) skip=$(count SKIP)
[ "${pass:-0}" -gt 0 ] && [ "${fail:-0}" -eq 0 ] && [ "${error:-0}" -eq 0 ] || status=1
# the slowest tests (each log's first and last write): what to look at when CI grows slow
echo "slowest tests (wall seconds, on $(nproc) cores shared with the others):"
find tests -name '*.log' -newer config.status -exec stat -c '%W %Y %n' {} + 2>/dev/null |
	awk '$1 > 0 { printf "  %5d %s\n", $2 - $1, $3 }' | sort -rn | head -n 10
# which kernels each kernel test booted (a kernel that could not be had is a SKIP line there, not
# a failed test), and the seconds they took: the record of a CI run shows the matrix
for l in tests/kernel/*.log; do
	[ -f "$l" ] && sed -n '/^kernel matrix of/,/^[^ ]/{/^kernel matrix of\|^  /p}' "$l"
done | awk '{ print } /^  .*, [0-9]+ s\)$/ { n = $(NF - 1); s += n }
	END { printf "kernel tests: %d s of kernel boots and checks in all\n", s }'
gates=0
if [ -n "$gates_pid" ]; then
	wait "$gates_pid" || gates=1
	gates_pid=
	cat "$gates_log"
fi
[ $gates -eq 0 ] || { echo "static gates: FAILED (above)"; status=1; }
echo "test suite (ASan+UBSan build, $secs s): ${pass:-0} passed, $((${fail:-0} + ${error:-0})) failed, ${skip:-0} skipped"
exit $status
