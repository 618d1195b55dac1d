#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# man.sh - doc/e2verity.8 formats without warnings and documents every command and option
#
# The options come from each command's own usage ("e2verity CMD --help") and from the getopt
# tables in src/, so an option added anywhere fails this test until the man page has it.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd groff
t_tmpdir
man=$top_srcdir/doc/e2verity.8

groff -man -Tutf8 -ww "$man" >"$T_TMP/out" 2>"$T_TMP/warn"
if [ -s "$T_TMP/warn" ] || ! [ -s "$T_TMP/out" ]; then
	fail "groff -man -Tutf8 -ww doc/e2verity.8: $(cat "$T_TMP/warn")"
else
	pass "groff without warnings"
fi

# the man page's text without font changes and with plain hyphens
sed -e 's/\\f[BIRP]//g; s/\\-/-/g; s/\\(em/-/g' "$man" >"$T_TMP/text"

# documented OPT: OPT appears as a whole option
documented()
{
	grep -E -q -- "(^|[^-A-Za-z0-9])$1([^-A-Za-z0-9]|\$)" "$T_TMP/text"
}

cmds=$("$E2VERITY" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z_]*\) .*/\1/p')
[ -n "$cmds" ] || fail "no commands in e2verity --help"
for c in $cmds; do
	if grep -q "^\.B e2verity $c\$" "$man"; then
		pass "synopsis of $c"
	else
		fail "e2verity $c has no '.B e2verity $c' line in the SYNOPSIS of doc/e2verity.8"
	fi
	"$E2VERITY" "$c" --help >"$T_TMP/help" 2>&1 || fail "e2verity $c --help exits non-zero"
	# the synopsis, and the first column of the lines of --help's Options section
	sed '/^Options:/,$d' "$T_TMP/help" >"$T_TMP/usage"
	sed -n '/^Options:/,${/^  /{s/^  //;s/  .*//;p}}' "$T_TMP/help" >"$T_TMP/optcol"
	for o in $(grep -o -E -- '(^|[][ |])--?[A-Za-z0-9][A-Za-z0-9-]*' "$T_TMP/usage" |
		sed 's/^[][ |]//' | sort -u); do
		if documented "$o"; then
			pass "$c $o"
		else
			fail "e2verity $c $o (from its usage) is not in doc/e2verity.8"
		fi
		# --help gives every option a line of its own
		if grep -q -E -- "(^|[ ,])$o([]=[ ,]|\$)" "$T_TMP/optcol"; then
			pass "$c --help: a line for $o"
		else
			fail "e2verity $c --help: no line in Options for $o"
		fi
	done
done

# the synopsis of each command names every long option its getopt table takes (completion offers
# what the synopsis names: check's --threads, --quiet and --verbose were missing from both)
for c in $cmds; do
	src=$(find "$top_srcdir/src" -name "cmd_$c.c" | head -n 1)
	[ -n "$src" ] || continue
	"$E2VERITY" "$c" --help 2>&1 | sed '/^Options:/,$d' >"$T_TMP/usage"
	for o in $(sed -n 's/.*{ *"\([a-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/\1/p' "$src"); do
		if grep -q -E -- "--$o([^a-z0-9-]|\$)" "$T_TMP/usage"; then
			pass "$c: the synopsis names --$o"
		else
			fail "e2verity $c takes --$o, but its synopsis (and so completion) does not name it"
		fi
	done
done

# long options that getopt accepts, even those the usage lines leave out
for o in $(find "$top_srcdir/src" -name '*.[ch]' -exec cat {} + |
	sed -n 's/.*{ *"\([a-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/\1/p' | sort -u); do
	if documented "--$o"; then
		pass "getopt --$o"
	else
		fail "--$o (a long option in src/) is not in doc/e2verity.8"
	fi
done

# -j: the range the commands check, as the man page gives it for seal and check
range=$("$E2VERITY" seal -j 0 img 2>&1 | sed -n "s/.*invalid thread count '0' (\(1 to [0-9]*\)).*/\1/p")
check "-j: the man page gives the range the commands check ($range)" \
	test "$(grep -c "^threads, $range (" "$T_TMP/text")" -eq 2

# PROBLEMS: the list scripts/problem-table.sh makes from lib/core/problem.c, every id of the table
sh "$top_srcdir/scripts/problem-table.sh" >"$T_TMP/problems" || fail "scripts/problem-table.sh fails"
sed -n '/^\.\\" problem-table begin/,/^\.\\" problem-table end/p' "$man" | sed '1d;$d' >"$T_TMP/listed"
if [ -s "$T_TMP/problems" ] && cmp -s "$T_TMP/problems" "$T_TMP/listed"; then
	pass "PROBLEMS lists the table of lib/core/problem.c"
else
	fail "PROBLEMS in doc/e2verity.8 is not what scripts/problem-table.sh prints (run it with --update):"
	diff "$T_TMP/listed" "$T_TMP/problems" >&2
fi
ids=$(sed -n 's/.*{ *E2VERITY_PR_[A-Z0-9_]*, *"\([A-Z0-9_]*\)".*/\1/p' "$(find "$top_srcdir/lib" -name problem.c | head -n 1)")
for id in $ids; do
	grep -q "^\.BR $id \" (0x" "$T_TMP/listed" || fail "PROBLEMS in doc/e2verity.8 lacks $id"
done

# the line formats diff prints, as the page renders them (a font change once ate a space)
for l in "added ALG:DIGEST PATH" "removed ALG:DIGEST PATH" "changed ALG:OLD ALG:NEW PATH" \
	"unchanged ALG:DIGEST PATH"; do
	sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g; s/  */ /g' "$T_TMP/out" | grep -q -F "$l" &&
		pass "diff's line '$l' as rendered" || fail "doc/e2verity.8 renders no '$l' line"
done

for s in "EXIT STATUS" EXAMPLES FILES FORMAT "KERNEL COMPATIBILITY" PROBLEMS "SEE ALSO"; do
	grep -q "^\.SH \"*$s\"*\$" "$man" && pass "section $s" || fail "doc/e2verity.8 lacks the section $s"
done

finish
