#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh - build the libFuzzer harnesses with ASan and UBSan (clang), replay every seed (issue 13's
# crafted images are among them), then fuzz each harness for E2V_FUZZ_TIME seconds (default 20)
# from the seed E2V_FUZZ_SEED (default 34; "random" for a new one), which a failure prints.
# Skips without clang's libFuzzer.  tests/fuzz/README tells how to run it longer.
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
require_cmd clang pkg-config
: "${top_builddir:=$top_srcdir}"
: "${E2V_FUZZ_TIME:=20}"
: "${E2V_FUZZ_SEED:=34}"
[ "$E2V_FUZZ_SEED" != random ] || E2V_FUZZ_SEED=$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')
: "${CLANG:=clang}"
cd "$T_TMP" || exit 1

printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d && n > 1000; }\n' >probe.c
"$CLANG" -fsanitize=fuzzer,address,undefined probe.c -o probe 2>/dev/null ||
	skip "clang cannot link -fsanitize=fuzzer,address,undefined (libclang-rt-14-dev)"

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
inc="-I$top_builddir -I$top_builddir/lib -I$top_srcdir/lib"
deps=$(pkg-config --cflags --libs ext2fs com_err libcrypto)
objs=
srcs=
for f in $(find "$top_srcdir/lib" -name "*.c" | sort); do
	case $f in */lib/e2verity_err.c) ;; *) srcs="$srcs $f" ;; esac
done
for f in $srcs "$top_builddir/lib/e2verity_err.c"; do
	o=$(basename "$f" .c).o
	# shellcheck disable=SC2086,SC2046 # the flags are separate words
	"$CLANG" $san -fsanitize=fuzzer-no-link $inc $(pkg-config --cflags ext2fs com_err libcrypto) \
		-c "$f" -o "$o" 2>>cc.err || { cat cc.err >&2; fail "compiling $f"; finish; }
	objs="$objs $o"
done

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for h in descriptor signature image; do
	# shellcheck disable=SC2086
	"$CLANG" $san -fsanitize=fuzzer $inc "$top_srcdir/tests/fuzz/fuzz_$h.c" $objs $deps -lpthread \
		-o "fuzz_$h" 2>>cc.err || { cat cc.err >&2; fail "linking fuzz_$h"; continue; }
	seeds=$top_srcdir/tests/fuzz/seeds/$h
	# every seed once: the crafted cases must stay harmless
	if ./"fuzz_$h" -timeout=10 -rss_limit_mb=2048 "$seeds"/* >"replay-$h.log" 2>&1; then
		pass "fuzz_$h: $(ls "$seeds" | wc -l) seeds replayed"
	else
		tail -n 40 "replay-$h.log" >&2
		fail "fuzz_$h: a seed fails"
		continue
	fi
	mkdir "corpus-$h"
	if ./"fuzz_$h" -max_total_time="$E2V_FUZZ_TIME" -seed="$E2V_FUZZ_SEED" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$T_TMP/crash-$h-" -print_final_stats=1 "corpus-$h" "$seeds" \
		>"fuzz-$h.log" 2>&1; then
		pass "fuzz_$h: $(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz-$h.log") runs in ${E2V_FUZZ_TIME}s, no finding"
	else
		tail -n 60 "fuzz-$h.log" >&2
		for c in "$T_TMP"/crash-"$h"-*; do
			[ -f "$c" ] && echo "crashing input ($c), base64:" >&2 && base64 "$c" | head -c 200000 >&2
		done
		fail "fuzz_$h found a problem (seed $E2V_FUZZ_SEED: E2V_FUZZ_SEED=$E2V_FUZZ_SEED replays the start of this run)"
	fi
done
finish
