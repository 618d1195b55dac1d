#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# modules.sh - libe2verity's modules form no cycle, and each internal header is its module's alone
#
# A module is lib/NAME.c with its header lib/NAME.h.  Three proofs:
#  1. the objects: module A uses a symbol module B defines -> edge A B; tsort finds no loop;
#  2. the includes: lib/A.[ch] includes "B.h" -> edge A B; no loop either;
#  3. every function an internal header declares is defined in that header's own .c;
#  4. the command (src/) defines no global the library defines too: linked as one program (the
#     sanitizer build of tests/check/check-fuzz.sh) they would clash.
# private.h (inline helpers only) and the public headers belong to no module.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}/lib
obj=${top_builddir:-.}/lib
require_cmd nm tsort
t_tmpdir

# 1. link-level dependencies, from the library's objects (PIC ones when built shared)
# (only those of today's sources: a build directory may keep objects of removed ones)
dir=$obj/.libs
[ -e "$dir/libe2verity_la-init.o" ] || dir=$obj
[ -e "$dir/libe2verity_la-init.o" ] || skip "no library objects under $obj"
for c in "$src"/*.c; do
	m=$(basename "$c" .c)
	o=$dir/libe2verity_la-$m.o
	[ -e "$o" ] || continue
	nm "$o" | awk -v m="$m" '$2 ~ /^[TDRBV]$/ { print $3, m }' >>"$T_TMP/defs"
	nm "$o" | awk -v m="$m" '$1 == "U" { print $2, m }' >>"$T_TMP/uses"
done
sort -k1,1 "$T_TMP/defs" >"$T_TMP/d"
sort -k1,1 "$T_TMP/uses" >"$T_TMP/u"
join "$T_TMP/u" "$T_TMP/d" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$T_TMP/links"
[ -s "$T_TMP/links" ] || fail "no dependencies found between the library's objects"
if tsort <"$T_TMP/links" >/dev/null 2>"$T_TMP/loop"; then
	pass "no cycle between the objects"
else
	fail "modules that use each other: $(tr '\n' ' ' <"$T_TMP/loop")"
fi

# 2. include-level dependencies between modules
for f in "$src"/*.c "$src"/*.h; do
	m=$(basename "$f")
	m=${m%.?}
	sed -n 's/^#include "\([a-z0-9_]*\)\.h"$/\1/p' "$f" | while read -r h; do
		[ "$h" = "$m" ] || [ ! -e "$src/$h.c" ] || echo "$m $h"
	done
done | sort -u >"$T_TMP/includes"
if tsort <"$T_TMP/includes" >/dev/null 2>"$T_TMP/loop"; then
	pass "no cycle between the includes"
else
	fail "headers that include each other's modules: $(tr '\n' ' ' <"$T_TMP/loop")"
fi

# 3. one header per module: what lib/NAME.h declares, lib/NAME.c defines
for h in "$src"/*.h; do
	m=$(basename "$h" .h)
	case $m in private | e2verity | e2verity_* ) continue ;; esac
	if [ ! -e "$src/$m.c" ]; then
		fail "lib/$m.h has no lib/$m.c"
		continue
	fi
	grep -v '^static' "$h" | sed -n 's/^[a-z][a-z0-9_ *]*[ *]\(e2v_[a-z0-9_]*\)(.*/\1/p' |
		while read -r fn; do
			grep -q "^[a-z].*[ *]$fn(" "$src/$m.c" || echo "$fn"
		done >"$T_TMP/stray"
	if [ -s "$T_TMP/stray" ]; then
		fail "lib/$m.h declares what lib/$m.c does not define: $(tr '\n' ' ' <"$T_TMP/stray")"
	else
		pass "lib/$m.h"
	fi
done

# 4. no global both in lib/ and in src/
sobj=${top_builddir:-.}/src
if ls "$sobj"/e2verity-*.o >/dev/null 2>&1; then
	awk '{ print $1 }' "$T_TMP/d" | sort -u >"$T_TMP/libdefs"
	nm "$sobj"/e2verity-*.o | awk '$2 ~ /^[TDRBV]$/ { print $3 }' | sort -u >"$T_TMP/srcdefs"
	both=$(comm -12 "$T_TMP/libdefs" "$T_TMP/srcdefs" | tr '\n' ' ')
	if [ -n "$both" ]; then
		fail "defined both in lib/ and src/: $both"
	else
		pass "no global defined both in lib/ and src/"
	fi
fi

echo "modules: $T_PASSED passed, $T_FAILED failed"
[ "$T_FAILED" -eq 0 ]
