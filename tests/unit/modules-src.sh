#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# modules-src.sh - the command's modules (src/) form no cycle, each header is its module's alone
#
# A module is src/DIR/NAME.c with its header src/DIR/NAME.h (file names are unique under src/).
#  1. the objects: module A uses a symbol module B defines -> edge A B; tsort finds no loop;
#  2. the includes: src/DIR/A.[ch] includes "DIR/B.h" of src/ -> edge A B; no loop either;
#  3. a header declares only functions its own .c defines; a header without a .c (shared
#     types) declares no function;
#  4. every global function of src/ is used by another module (else it is dead or static);
#  5. the command's prefix is its own: no e2v_/E2V_ name (the library's) under src/;
#  6. the fsck(8) exit bits are defined in one header;
#  7. no global both in lib/ and in src/: linked as one program (the sanitizer build of
#     tests/check/check-fuzz.sh) they would clash.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}/src
obj=${top_builddir:-.}/src
require_cmd nm tsort
t_tmpdir

find "$src" -name '*.c' | sort >"$T_TMP/sources"
find "$src" -name '*.h' | sort >"$T_TMP/headers"
dups=$(sed 's|.*/||' "$T_TMP/sources" "$T_TMP/headers" | sort | uniq -d | tr '\n' ' ')
[ -z "$dups" ] || fail "file names used twice under src/: $dups"

# 1. link-level dependencies, from the command's objects (only those of today's sources:
# a build directory may keep objects of removed ones)
n=0
while read -r c; do
	m=$(basename "$c" .c)
	rel=${c#"$src"/}
	# in the command's library (src/Makemodule.am), or one of the command's own two
	o=$obj/$(dirname "$rel")/libe2verity_cli_a-$m.o
	[ -e "$o" ] || o=$obj/$(dirname "$rel")/e2verity-$m.o
	[ -e "$o" ] || continue
	n=$((n + 1))
	nm "$o" | awk -v m="$m" '$2 ~ /^[TDRBV]$/ && $3 !~ /^__/ { print $3, m }' >>"$T_TMP/defs"
	nm "$o" | awk -v m="$m" '$1 == "U" { print $2, m }' >>"$T_TMP/uses"
done <"$T_TMP/sources"
[ "$n" -gt 0 ] || skip "no objects of the command under $obj"
[ "$n" -eq "$(wc -l <"$T_TMP/sources")" ] || skip "only $n objects built for $(wc -l <"$T_TMP/sources") sources"
sort -k1,1 "$T_TMP/defs" >"$T_TMP/d"
sort -k1,1 "$T_TMP/uses" >"$T_TMP/u"
join "$T_TMP/u" "$T_TMP/d" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$T_TMP/links"
[ -s "$T_TMP/links" ] || fail "no dependencies found between the command's objects"
if tsort <"$T_TMP/links" >/dev/null 2>"$T_TMP/loop"; then
	pass "no cycle between the objects ($n modules, $(wc -l <"$T_TMP/links") links)"
else
	fail "modules that use each other: $(sed -n 's/^tsort: \([a-z0-9_]*\)$/\1/p' "$T_TMP/loop" | sort -u | tr '\n' ' ')"
fi

# 2. include-level dependencies: every header of src/ is a node, a module's .c and .h one node
sed 's|.*/||; s|\.h$||' "$T_TMP/headers" >"$T_TMP/hnames"
cat "$T_TMP/sources" "$T_TMP/headers" | while read -r f; do
	m=$(basename "$f")
	m=${m%.?}
	sed -n 's/^#include "\([a-z]*\/\)\{0,1\}\([a-z0-9_]*\)\.h"$/\2/p' "$f" | while read -r h; do
		[ "$h" = "$m" ] || ! grep -qx "$h" "$T_TMP/hnames" || echo "$m $h"
	done
done | sort -u >"$T_TMP/includes"
if tsort <"$T_TMP/includes" >/dev/null 2>"$T_TMP/loop"; then
	pass "no cycle between the includes"
else
	fail "headers that include each other's modules: $(sed -n 's/^tsort: \([a-z0-9_]*\)$/\1/p' "$T_TMP/loop" | sort -u | tr '\n' ' ')"
fi

# 3. one header per module: what src/DIR/NAME.h declares, src/DIR/NAME.c defines
while read -r h; do
	m=$(basename "$h" .h)
	c=${h%.h}.c
	grep -v '^static' "$h" | sed -n 's/^[a-z][a-z0-9_ *]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' >"$T_TMP/decl"
	rel=${h#"$src"/}
	if [ ! -e "$c" ]; then
		if [ -s "$T_TMP/decl" ]; then
			fail "src/$rel declares functions but has no .c: $(tr '\n' ' ' <"$T_TMP/decl")"
		else
			pass "src/$rel: types only"
		fi
		continue
	fi
	while read -r fn; do
		grep -q "^[a-z].*[ *]$fn(" "$c" || echo "$fn"
	done <"$T_TMP/decl" >"$T_TMP/stray"
	if [ -s "$T_TMP/stray" ]; then
		fail "src/$rel declares what src/${rel%.h}.c does not define: $(tr '\n' ' ' <"$T_TMP/stray")"
	else
		pass "src/$rel"
	fi
done <"$T_TMP/headers"

# 4. no global that no other module uses (the edges of 1 join A != B only; a unit test that
# compiles a module of src/ uses it too: the names its sources call, read from the sources, so
# the answer does not depend on whether make check has built the tests yet)
join "$T_TMP/u" "$T_TMP/d" | awk '$2 != $3 { print $1 }' >"$T_TMP/crossed"
find "${top_srcdir:-.}/tests" -name '*.c' ! -name 'fault_io.c' -exec grep -ho '[a-z_][a-z0-9_]*(' {} + |
	tr -d '(' >>"$T_TMP/crossed"
sort -u -o "$T_TMP/crossed" "$T_TMP/crossed"
awk '{ print $1 }' "$T_TMP/d" | sort -u | grep -vx main | comm -23 - "$T_TMP/crossed" >"$T_TMP/local"
if [ -s "$T_TMP/local" ]; then
	fail "globals no other module uses (dead, or to be static): $(tr '\n' ' ' <"$T_TMP/local")"
else
	pass "every global is used by another module"
fi

# 5. the library's prefix stays in the library
if grep -rnw -e 'e2v_[a-z0-9_]*' -e 'E2V_[A-Z0-9_]*' "$src" --include='*.[ch]' >"$T_TMP/prefix"; then
	fail "the library's prefix in src/ ($(wc -l <"$T_TMP/prefix") lines), e.g. $(head -1 "$T_TMP/prefix")"
else
	pass "no e2v_/E2V_ name in src/"
fi

# 6. the fsck(8) exit bits: one header
grep -rl '^#define FSCK_' "$src" >"$T_TMP/fsck"
case "$(wc -l <"$T_TMP/fsck") $(cat "$T_TMP/fsck")" in
"1 "*.h) pass "FSCK_* in $(sed "s|^$src/||" "$T_TMP/fsck")" ;;
*) fail "FSCK_* defined in $(sed "s|^$src/||" "$T_TMP/fsck" | tr '\n' ' ')(one header wanted)" ;;
esac

# 7. no global both in lib/ and in src/
lobj=${top_builddir:-.}/lib
find "$lobj" -name '*.o' >"$T_TMP/libobjs"
if [ -s "$T_TMP/libobjs" ]; then
	xargs nm <"$T_TMP/libobjs" 2>/dev/null | awk '$2 ~ /^[TDRBV]$/ && $3 !~ /^__/ { print $3 }' | sort -u >"$T_TMP/libdefs"
	awk '{ print $1 }' "$T_TMP/d" | sort -u >"$T_TMP/srcdefs"
	both=$(comm -12 "$T_TMP/libdefs" "$T_TMP/srcdefs" | tr '\n' ' ')
	if [ -n "$both" ]; then
		fail "defined both in lib/ and src/: $both"
	else
		pass "no global defined both in lib/ and src/"
	fi
fi

echo "modules-src: $T_PASSED passed, $T_FAILED failed"
[ "$T_FAILED" -eq 0 ]
