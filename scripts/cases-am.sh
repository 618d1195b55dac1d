#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cases-am.sh - the automake list of the crafted-image cases: one test, tests/check/cases/NAME.case,
# per directory tests/check/cases/NAME (its recipe and expect; tests/check/case.sh runs it)
#
# Usage: cases-am.sh            print the list
#        cases-am.sh --update   write it to tests/check/cases.am
# tests/check/cases-cover.sh checks that tests/check/cases.am holds what this prints.
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."

# case_dirs: each case's directory, tests/check/cases/NAME
case_dirs()
{
	for d in tests/check/cases/*/; do
		[ -f "$d/recipe" ] && echo "${d%/}"
	done
}

list()
{
	echo "# SPDX-License-Identifier: GPL-2.0-or-later"
	echo "# cases.am - written by scripts/cases-am.sh --update from the directories of tests/check/cases:"
	echo "# one automake test per case (make check TESTS=tests/check/cases/NAME.case runs one)"
	printf 'CASE_TESTS ='
	for d in $(case_dirs); do
		printf ' \\\n\t%s.case' "$d"
	done
	# what make dist takes: the cases, not what a run leaves beside them
	printf '\nCASE_FILES = tests/check/cases/README'
	for d in $(case_dirs); do
		printf ' \\\n\t%s/recipe %s/expect' "$d" "$d"
	done
	printf '\n'
}

if [ "${1:-}" = --update ]; then
	list >tests/check/cases.am.tmp
	mv tests/check/cases.am.tmp tests/check/cases.am
else
	list
fi
