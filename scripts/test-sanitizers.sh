#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test-sanitizers.sh - the whole test suite again, on a build with ASan and UBSan and the OpenSSL hashing
# (./configure --enable-sanitizers), in a copy of the source tree so the normal build stays as it is
# (E2V_SAN_DIR, by default $TMPDIR/e2verity-sanitizers)
set -e
cd "$(dirname "$0")/.."
src=$PWD
# outside the source tree: inside a git work tree, tests that copy "what git tracks" (pkg/deb.sh)
# would find nothing to copy
dst=${E2V_SAN_DIR:-${TMPDIR:-/tmp}/e2verity-sanitizers}
rm -rf "$dst"
mkdir -p "$dst"
# the sources only: a configured tree cannot be the source of another (VPATH) build
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z | tar --null -T - -cf - | (cd "$dst" && tar xf -)
else
	tar cf - --exclude=./build-sanitizers --exclude='*.o' --exclude='*.lo' --exclude=.libs . |
		(cd "$dst" && tar xf -)
	(cd "$dst" && { [ ! -f Makefile ] || make distclean >/dev/null; })
fi
cd "$dst"
./autogen.sh >/dev/null 2>&1 || autoreconf -fi >/dev/null
./configure --enable-sanitizers >/dev/null
make -j"$(nproc)" >/dev/null
# leaks are errors too; a report fails the command, so the test that ran it
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# and on the OpenSSL hashing that CPUs without SHA-NI take (issue 10): test.sh ran the SHA-NI
# path, so this second pass covers the fallback with every test; check_sha256_x2 still compares
# the SHA-NI code with OpenSSL under the sanitizers
export E2VERITY_HASH=openssl
# fuzz.sh and check-fuzz.sh make their own sanitizer builds, already run by test.sh: shorter here
export E2V_FUZZ_TIME=${E2V_FUZZ_TIME:-5} E2V_FUZZ_ROUNDS=${E2V_FUZZ_ROUNDS:-50}
# seal-crash.sh cut every write in test.sh's pass; every fourth one here
export E2V_CRASH_STRIDE=${E2V_CRASH_STRIDE:-4}
# the kernel matrix ran in test.sh's pass: what a kernel reads does not depend on the build that
# wrote it, so the host's kernel alone here
export E2V_KTARGETS=${E2V_KTARGETS:-host}
status=0
make -j"$(nproc)" check >test-run.log 2>&1 || status=1
grep -E '^(PASS|FAIL|ERROR|SKIP|XFAIL|XPASS):' test-run.log | sort | uniq -c | sort -rn | head -n 5
if [ $status -ne 0 ]; then
	[ -f test-suite.log ] && tail -n 200 test-suite.log
	echo "sanitizer run: FAILED"
else
	echo "sanitizer run: passed"
fi
exit $status
