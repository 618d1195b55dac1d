#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# modules.sh - lib/ is layered (core, ext4, txn, seal, check), its core needs no ext2fs; lib/ and src/ have no cycles
#
# A module is lib/LAYER/NAME.c with its header lib/LAYER/NAME.h; the layers, lowest first, are
# core ext4 txn seal check.  The proofs:
#  1. the objects: module A uses a symbol module B defines -> edge A B; tsort finds no loop, and
#     no edge goes from a layer to a later one;
#  2. the includes: lib/L/A.[ch] includes "B.h" or "M/B.h" -> edge A B; no loop, no upward edge;
#  3. every function an internal header declares is defined in that header's own .c;
#  4. the core includes no ext2fs header, directly or through another header (the compiler's
#     own list of what each lib/core/*.c reads, system headers included);
#  5. the command's files, by tests/unit/modules-src.sh: no cycle, each header its file's alone, a
#     prefix of its own (cli_), no dead global, and no global the library defines too.
# private.h, core/core.h (inline helpers only) and the public headers belong to no module.
# Symbols the compiler or a sanitizer makes (__odr_asan.NAME, ...) are nobody's.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}/lib
obj=${top_builddir:-.}/lib
layers="core ext4 txn seal check"
require_cmd nm tsort
t_tmpdir

# every module as "NAME LAYER-NUMBER LAYER"
n=0
for l in $layers; do
	n=$((n + 1))
	for c in "$src/$l"/*.c; do
		[ -e "$c" ] && echo "$(basename "$c" .c) $n $l"
	done
done | sort >"$T_TMP/modules"
[ -s "$T_TMP/modules" ] || fail "no module under $src/{$(echo "$layers" | tr ' ' ,)}"
stray=$(find "$src" -maxdepth 1 -name '*.c' ! -name e2verity_err.c | tr '\n' ' ')
[ -z "$stray" ] || fail "sources outside every layer: $stray"

# edges "A B" on stdin: fail on a loop or on an edge from a lower layer to a higher one
judge()
{
	what=$1
	sort -u >"$T_TMP/edges"
	if tsort <"$T_TMP/edges" >/dev/null 2>"$T_TMP/loop"; then
		pass "no cycle between the $what"
	else
		fail "$what that use each other: $(tr '\n' ' ' <"$T_TMP/loop")"
	fi
	sort -k1,1 "$T_TMP/edges" | join - "$T_TMP/modules" | sort -k2,2 |
		join -1 2 -2 1 - "$T_TMP/modules" |
		awk '$3 < $5 { print $2 " (" $4 ") uses " $1 " (" $6 ")" }' >"$T_TMP/up"
	if [ -s "$T_TMP/up" ]; then
		fail "$what reaching up a layer: $(tr '\n' ';' <"$T_TMP/up")"
	else
		pass "the $what go down the layers only ($layers)"
	fi
}

# 1. link-level dependencies, from the library's objects (PIC ones when built shared)
while read -r m _ l; do
	o=$obj/$l/.libs/libe2verity_la-$m.o
	[ -e "$o" ] || o=$obj/$l/libe2verity_la-$m.o
	[ -e "$o" ] || { fail "no object of lib/$l/$m.c under $obj"; continue; }
	nm "$o" | awk -v m="$m" '$2 ~ /^[TDRBV]$/ && $3 !~ /^__/ { print $3, m }' >>"$T_TMP/defs"
	nm "$o" | awk -v m="$m" '$1 == "U" { print $2, m }' >>"$T_TMP/uses"
done <"$T_TMP/modules"
sort -k1,1 "$T_TMP/defs" >"$T_TMP/d"
sort -k1,1 "$T_TMP/uses" >"$T_TMP/u"
join "$T_TMP/u" "$T_TMP/d" | awk '$2 != $3 { print $2, $3 }' >"$T_TMP/links"
[ -s "$T_TMP/links" ] || fail "no dependencies found between the library's objects"
judge objects <"$T_TMP/links"

# 2. include-level dependencies between modules
for f in "$src"/*/*.[ch]; do
	m=$(basename "$f")
	m=${m%.?}
	sed -n 's/^#include "\([a-z0-9]*\/\)\{0,1\}\([a-z0-9_]*\)\.h"$/\2/p' "$f" | while read -r h; do
		[ "$h" = "$m" ] || ! grep -q "^$h " "$T_TMP/modules" || echo "$m $h"
	done
done >"$T_TMP/includes"
judge includes <"$T_TMP/includes"

# 3. one header per module: what lib/L/NAME.h declares, lib/L/NAME.c defines
for h in "$src"/*/*.h; do
	m=$(basename "$h" .h)
	d=$(dirname "$h")
	case $m in core) continue ;; esac
	if [ ! -e "$d/$m.c" ]; then
		fail "${h#"$src"/} has no .c of its own"
		continue
	fi
	grep -v '^static' "$h" | sed -n 's/^[a-z][a-z0-9_ *]*[ *]\(e2v_[a-z0-9_]*\)(.*/\1/p' |
		while read -r fn; do
			grep -q "^[a-z].*[ *]$fn(" "$d/$m.c" || echo "$fn"
		done >"$T_TMP/stray"
	if [ -s "$T_TMP/stray" ]; then
		fail "${h#"$src"/} declares what $m.c does not define: $(tr '\n' ' ' <"$T_TMP/stray")"
	else
		pass "lib/${h#"$src"/}"
	fi
done

# 4. the core compiles without libext2fs: no ext2fs header among what its sources read
cc=${CC:-cc}
if command -v "${cc%% *}" >/dev/null; then
	for c in "$src"/core/*.c; do
		# shellcheck disable=SC2086
		$cc -M -I"${top_builddir:-.}" -I"$obj" -I"$src" "$c" >"$T_TMP/deps" 2>"$T_TMP/err" || {
			fail "cannot list the headers of lib/core/$(basename "$c"): $(head -n 3 "$T_TMP/err")"
			continue
		}
		tr ' \\' '\n\n' <"$T_TMP/deps" | grep -E 'ext2fs/|e2verity\.h$|/private\.h$' | sort -u >"$T_TMP/bad"
		if [ -s "$T_TMP/bad" ]; then
			fail "lib/core/$(basename "$c") reads $(tr '\n' ' ' <"$T_TMP/bad")"
		fi
	done
	[ "$T_FAILED" -ne 0 ] || pass "lib/core includes no ext2fs header (nor e2verity.h, private.h)"
else
	fail "no C compiler ($cc) to list lib/core's headers"
fi

# 5. the command, src/: tests/unit/modules-src.sh (no cycle, one header per file, its own
#    prefix, no dead global, no global of the library's)
sh "${top_srcdir:-.}/tests/unit/modules-src.sh"
case $? in
0) pass "src/: modules-src.sh" ;;
77) echo "src/: modules-src.sh skipped (the command's objects are not built)" ;;
*) fail "src/: modules-src.sh (its failures above)" ;;
esac

echo "modules: $T_PASSED passed, $T_FAILED failed"
[ "$T_FAILED" -eq 0 ]
