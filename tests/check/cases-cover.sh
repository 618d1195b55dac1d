#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# cases-cover.sh - every problem of the table in lib/core/problem.c is reported by at least one case of
# tests/check/cases (its expect shows "error ID: ", "warning ID: " or JSON's "id": "ID"), but those
# listed below with the reason no case can make them; every case is whole and is an automake test
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
cases=$top_srcdir/tests/check/cases

# ID: why no crafted image makes it (an allowed ID that a case covers, or that the table no longer
# has, is a failure: the list stays true).  None at present: every problem has its case.
allowed=$(sed 's/^\([A-Z0-9_]*\):.*/\1/' <<'EOF'
EOF
)

problem_c=$(find "$top_srcdir/lib" -name problem.c | head -n 1)
[ -f "$problem_c" ] || {
	fail "no lib/core/problem.c"
	finish
}
ids=$(sed -n 's/.*{ *E2VERITY_PR_[A-Z0-9_]*, *"\([A-Z0-9_]*\)".*/\1/p' "$problem_c")
[ "$(echo "$ids" | wc -w)" -gt 40 ] || fail "only $(echo "$ids" | wc -w) ids read from $problem_c"

for id in $ids; do
	n=$(grep -l -E -e "(error|warning) $id: " -e "\"id\": \"$id\"" "$cases"/*/expect | wc -l)
	if echo "$allowed" | grep -qx "$id"; then
		if [ "$n" -gt 0 ]; then
			fail "$id is allowed no case, but $n cases report it: take it off the list"
		else
			pass "$id (allowed)"
		fi
	elif [ "$n" -gt 0 ]; then
		pass "$id ($n cases)"
	else
		fail "$id: no case of tests/check/cases reports it"
	fi
done
for id in $allowed; do
	echo "$ids" | grep -qx "$id" || fail "$id is allowed no case, but lib/core/problem.c has no such id"
done

# every case has its recipe and its expect, and tests/check/cases.am lists them all
for d in "$cases"/*/; do
	[ -f "$d/recipe" ] && [ -f "$d/expect" ] || fail "$d lacks its recipe or its expect"
done
sh "$top_srcdir/scripts/cases-am.sh" >"$T_TMP/cases.am"
if cmp -s "$T_TMP/cases.am" "$top_srcdir/tests/check/cases.am"; then
	pass "tests/check/cases.am lists every case"
else
	fail "tests/check/cases.am is not what scripts/cases-am.sh prints (run scripts/cases-am.sh --update):"
	diff "$top_srcdir/tests/check/cases.am" "$T_TMP/cases.am" >&2
fi
finish
