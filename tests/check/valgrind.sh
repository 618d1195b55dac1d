#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# valgrind.sh - memcheck finds nothing (errors or leaks) in seal, check, measure, dump and unseal on
# a small image, intact and crafted (issue 13's cases).  Skips without valgrind, and on a sanitizer
# build (ASan and valgrind exclude each other).
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
require_cmd valgrind openssl
plain_build
: "${top_builddir:=$top_srcdir}"
cd "$T_TMP" || exit 1
. "$top_srcdir/tests/check/cases-lib.sh"

# the real binary and library, not libtool's wrapper script
bin=$top_builddir/.libs/e2verity
[ -x "$bin" ] || bin=$top_builddir/e2verity
export LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if sanitized "$bin"; then
	skip "a sanitizer build: valgrind cannot run it"
fi

vg()
{
	what=$1
	shift
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect "$bin" "$@" >vg.out 2>vg.err
	st=$?
	if [ $st -eq 99 ] || grep -q '^==[0-9]*==' vg.err; then
		fail "$what: valgrind: $(head -c 3000 vg.err)"
	else
		pass "$what (exit $st)"
	fi
}

LIMIT=300
E2VERITY=$top_builddir/e2verity
base_image || { fail "building the image"; finish; }
cp img sealed
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=t \
	>/dev/null 2>&1
vg "seal -j 2 with a signature" seal -j 2 --key=key.pem --cert=cert.pem img /b
vg "check -j 2 --cert" check -j 2 --cert=cert.pem img
vg "measure --all" measure --all img
vg "dump merkle_tree" dump img /a merkle_tree
vg "dump signature" dump img /b signature
vg "unseal" unseal img /a /b
vg "seal --force" seal --force sealed /a

# crafted: a moved metadata extent (unseal refuses), a claimed 8 TiB, i_size near 2^64
cp sealed img && sif /a 'block[8]' 1319
vg "unseal refusing another file's blocks" unseal img /a
vg "check, metadata in another file" check img
cp sealed img && poke_le64 /a $((135168 + 8)) 8796093022208 && sif /a size 8796093022208 &&
	sif /a 'block[6]' 2147483648
vg "check, 8 TiB claimed" check img
cp sealed img && poke_le64 /a $((135168 + 8)) -100 && sif /a size 18446744073709551516
vg "check, i_size near 2^64" check img
vg "seal --force, i_size near 2^64" seal --force img /a
finish
