#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cases.sh - crafted images, e2fsprogs f_*-style: each tests/check/cases/NAME/recipe builds an image
# and runs commands through run/guard (cases-lib.sh); their output must equal NAME/expect.
# CASES="a b" runs only those; a new case is a new directory.
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
require_cmd openssl timeout cmp diff
: "${CASES:=$(cd "$top_srcdir/tests/check/cases" && ls)}"

for name in $CASES; do
	dir=$top_srcdir/tests/check/cases/$name
	mkdir "$T_TMP/$name" || { fail "$name: duplicate"; continue; }
	# each recipe runs in a subshell in its own directory: a failing one cannot disturb the next
	(
		cd "$T_TMP/$name" || exit 1
		T_TMP=$PWD
		. "$top_srcdir/tests/check/cases-lib.sh"
		. "$dir/recipe"
	) >"$T_TMP/$name.out" 2>&1
	if diff -u "$dir/expect" "$T_TMP/$name.out" >"$T_TMP/$name.diff"; then
		pass "$name"
	else
		fail "$name: output differs from expect:"
		cat "$T_TMP/$name.diff" >&2
	fi
done
finish
