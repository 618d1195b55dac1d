#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# no-globals.sh - lib/ keeps no mutable process-global state: every writable symbol is allowed here, with its reason
#
# What the library keeps of an image lives in struct e2verity_image, on fs->priv_data
# (lib/ext4/image.h); what a call needs, in its arguments.  The proof is read from the objects
# linked into libe2verity, as modules.sh reads the layers: nm's writable symbols (B b D d S s G g:
# data, bss, small data; thread-local ones too) of every lib/*/NAME.c and of the generated
# lib/e2verity_err.c.  A symbol passes when
#  - it lies in .data.rel.ro: const data with pointers in it, which a shared object relocates
#    and then makes read-only (RELRO); nm calls it "d" all the same; or
#  - the list below names it with the reason it may stay: process-wide facts set once (the
#    CPU's features, com_err's registration) or per-thread caches.
# Names are compared without gcc's ".N" suffix and clang's "function." prefix of a static local.
# Symbols a compiler or sanitizer makes (__odr_asan.NAME, __asan_*, ...) are nobody's.
. "${top_srcdir:-.}/tests/lib.sh"
src=${top_srcdir:-.}/lib
obj=${top_builddir:-.}/lib
layers="core ext4 txn seal check"
require_cmd nm objdump
t_tmpdir

# "OBJECT SYMBOL reason": OBJECT is the source's name without .c
cat >"$T_TMP/allowed" <<'EOF'
e2verity_err link com_err's list node of the table compile_et generates, linked in once by e2verity_init()
init e2v_once pthread_once of e2verity_init(): com_err's tables are registered once per process
hash e2v_ni the CPU's SHA-NI (and E2VERITY_HASH), decided once under e2v_ni_once: a fact of the process
hash e2v_x16 the CPU's AVX-512 lanes (and E2VERITY_HASH), decided once under e2v_ni_once
hash e2v_ni_once pthread_once of the two above
hash e2v_mds OpenSSL's EVP_MDs, fetched once under e2v_mds_once and only read after
hash e2v_mds_once pthread_once of e2v_mds
hash e2v_choice256 lanes or one block for SHA-256, timed once per process under its pthread_once
hash e2v_choice512 lanes or one block for SHA-512, timed once per process under its pthread_once
sha256_x16 usable CPUID's answer for AVX-512, memoized; reached only under hash.c's e2v_ni_once
sha256_x16 kw thread-local: the padding block's message schedule, cached per thread
sha256_x16 kw_total thread-local: the length that schedule is for
sha256_x16 kw_valid thread-local: whether it is filled in
sha256_x2 usable CPUID's answer for SHA-NI, memoized; reached only under hash.c's e2v_ni_once
sha512_x8 kw thread-local: the padding block's message schedule, cached per thread
sha512_x8 kw_total thread-local: the length that schedule is for
sha512_x8 kw_valid thread-local: whether it is filled in
EOF

# every object linked into the library, as "NAME SOURCE OBJECT"
for l in $layers; do
	for c in "$src/$l"/*.c; do
		[ -e "$c" ] || continue
		m=$(basename "$c" .c)
		o=$obj/$l/.libs/libe2verity_la-$m.o
		[ -e "$o" ] || o=$obj/$l/libe2verity_la-$m.o
		echo "$m lib/$l/$m.c $o"
	done
done >"$T_TMP/objects"
o=$obj/.libs/libe2verity_la-e2verity_err.o
[ -e "$o" ] || o=$obj/libe2verity_la-e2verity_err.o
echo "e2verity_err lib/e2verity_err.c $o" >>"$T_TMP/objects"
[ "$(wc -l <"$T_TMP/objects")" -gt 10 ] || fail "no library sources under $src/{$(echo "$layers" | tr ' ' ,)}"

checked=0
while read -r m c o; do
	if [ ! -e "$o" ]; then
		fail "no object of $c under $obj (build the library first)"
		continue
	fi
	checked=$((checked + 1))
	# the sections of the object's symbols, "NAME SECTION", for .data.rel.ro
	objdump -t "$o" | awk 'NF >= 4 && $(NF - 2) ~ /^\./ { print $NF, $(NF - 2) }' >"$T_TMP/sections"
	nm "$o" | awk '$2 ~ /^[BbDdSsGg]$/ { print $3 }' | while read -r sym; do
		case $sym in __*) continue ;; esac
		sec=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$T_TMP/sections")
		case $sec in .data.rel.ro*) continue ;; esac
		name=${sym%.[0-9]*}
		name=${name##*.}
		if grep -q "^$m $name " "$T_TMP/allowed"; then
			echo "ok $m $name"
		else
			echo "bad $c: $sym (in ${sec:-?})"
		fi
	done >>"$T_TMP/found"
done <"$T_TMP/objects"
[ "$checked" -gt 0 ] || fail "no object of the library was found"

if grep '^bad ' "$T_TMP/found" >"$T_TMP/bad"; then
	while read -r _ what; do
		fail "writable global state not in the list of tests/unit/no-globals.sh: $what"
	done <"$T_TMP/bad"
	echo "Per-image state belongs in struct e2verity_image (lib/ext4/image.h), constant data" >&2
	echo "in a const object; a process-wide fact set once goes in the list, with its reason." >&2
else
	pass "no writable global in $checked objects of the library but the $(grep -c '^ok ' "$T_TMP/found") listed"
fi
# entries no longer met (another compiler or architecture may still have them): said, not failed
while read -r m name _; do
	grep -q "^ok $m $name\$" "$T_TMP/found" || echo "note: $m.c has no $name here (listed in no-globals.sh)"
done <"$T_TMP/allowed"

echo "no-globals: $T_PASSED passed, $T_FAILED failed"
[ "$T_FAILED" -eq 0 ]
