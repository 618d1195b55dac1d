#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# case.sh - one crafted-image case, e2fsprogs f_*-style: tests/check/cases/NAME/recipe builds an
# image and runs commands through run/guard (cases-lib.sh); their output must equal NAME/expect.
#
# Automake runs it for each tests/check/cases/NAME.case of tests/check/cases.am (make check
# TESTS=tests/check/cases/NAME.case); the argument may also be the bare NAME.  With CASE_UPDATE=1
# the output is written to NAME/expect instead (a new case; read every line of it before committing).
. "${top_srcdir:-.}/tests/lib.sh"
name=$(basename "${1:?usage: case.sh NAME}" .case)
dir=$top_srcdir/tests/check/cases/$name
[ -f "$dir/recipe" ] && { [ -f "$dir/expect" ] || [ -n "${CASE_UPDATE:-}" ]; } || {
	echo "ERROR: no case $dir/{recipe,expect}" >&2
	exit 99
}
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
require_cmd openssl timeout cmp diff
mkdir "$T_TMP/$name" || exit 99
# the recipe runs in a subshell in a directory of its own, which is all it may write to
(
	cd "$T_TMP/$name" || exit 1
	T_TMP=$PWD
	. "$top_srcdir/tests/check/cases-lib.sh"
	. "$dir/recipe"
) >"$T_TMP/out" 2>&1
if [ -n "${CASE_UPDATE:-}" ]; then
	cp "$T_TMP/out" "$dir/expect" && echo "wrote $dir/expect"
elif diff -u "$dir/expect" "$T_TMP/out" >"$T_TMP/diff"; then
	pass "$name"
else
	fail "$name: output differs from expect:"
	cat "$T_TMP/diff" >&2
fi
finish
