#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# problem-table.sh - the man page's list of the problems check reports, from the table in
# lib/core/problem.c and the codes of the library's header: each ID with its code and severity, and its
# message, the values it prints in italics under their names in check --json
#
# Usage: problem-table.sh            print the list (roff)
#        problem-table.sh --update   write it into doc/e2verity.8, between its problem-table marks
# tests/doc/man.sh checks that doc/e2verity.8 holds what this prints.
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
man=doc/e2verity.8
begin='.\" problem-table begin: scripts/problem-table.sh --update writes this list from lib/core/problem.c'
end='.\" problem-table end'

problem_c=$(find lib -name problem.c | head -n 1)
header=$(grep -rl 'E2VERITY_PR_[A-Z0-9_]* = 0x' lib include 2>/dev/null | grep '\.h$' | head -n 1)
[ -n "$problem_c" ] && [ -n "$header" ] || {
	echo "problem-table.sh: no lib/core/problem.c, or no header with the E2VERITY_PR_ codes" >&2
	exit 1
}

table()
{
	awk -v header="$header" '
	BEGIN {
		while ((getline l <header) > 0)
			if (match(l, /E2VERITY_PR_[A-Z0-9_]+ = 0x[0-9a-fA-F]+/)) {
				split(substr(l, RSTART, RLENGTH), kv, " = ")
				code[kv[1]] = kv[2]
			}
		# each conversion of e2verity_finding_format(), as check --json names the value
		name["v"] = "value"; name["h"] = "value"; name["x"] = "expected"
		name["o"] = "offset"; name["b"] = "block"; name["n"] = "count"; name["l"] = "level"
		name["S"] = "stored_hash"; name["C"] = "computed_hash"
		name["E"] = "expected_hash"; name["e"] = "error"
	}
	# a row: { E2VERITY_PR_NAME, "ID", E or W, "message" "continued"..., fields },
	function row(r,    pr, id, sev, msg, out, c) {
		if (!match(r, /E2VERITY_PR_[A-Z0-9_]+/))
			return
		pr = substr(r, RSTART, RLENGTH)
		r = substr(r, RSTART + RLENGTH)
		if (!match(r, /^[ \t]*,[ \t]*"[A-Z0-9_]+"[ \t]*,[ \t]*[EW][ \t]*,/)) {
			print "problem-table.sh: cannot read the row of " pr >"/dev/stderr"
			bad = 1
			return
		}
		id = substr(r, RSTART, RLENGTH)
		sev = id
		sub(/^[^"]*"/, "", id); sub(/".*/, "", id)
		sub(/,[ \t]*$/, "", sev); sev = substr(sev, length(sev), 1) == "E" ? "error" : "warning"
		r = substr(r, RSTART + RLENGTH)
		msg = ""
		while (match(r, /^[ \t]*"[^"]*"/)) {
			c = substr(r, RSTART, RLENGTH)
			sub(/^[ \t]*"/, "", c); sub(/"$/, "", c)
			msg = msg c
			r = substr(r, RSTART + RLENGTH)
		}
		if (!(pr in code) || msg == "") {
			print "problem-table.sh: no code or no message for " pr >"/dev/stderr"
			bad = 1
			return
		}
		gsub(/\\/, "\\e", msg)
		out = ""
		while (match(msg, /%./)) {
			c = substr(msg, RSTART + 1, 1)
			out = out substr(msg, 1, RSTART - 1) (c in name ? "\\fI" name[c] "\\fR" : "%" c)
			msg = substr(msg, RSTART + 2)
		}
		printf ".TP\n.BR %s \" (%s, %s)\"\n\\&%s\n", id, code[pr], sev, out msg
	}
	/e2v_problems\[\] = \{/ { on = 1; next }
	on && /^};/ { on = 0 }
	on {
		line = $0
		gsub(/\/\*.*\*\//, "", line)
		buf = buf " " line
		if (line ~ /\},[ \t]*$/) {
			row(buf)
			buf = ""
		}
	}
	END { exit bad }
	' "$problem_c"
}

if [ "${1:-}" = --update ]; then
	table >"$man.table"
	# the marks from the environment: awk -v would take their backslashes for escapes
	BEGIN_MARK=$begin END_MARK=$end awk -v table="$man.table" '
		BEGIN { begin = ENVIRON["BEGIN_MARK"]; end = ENVIRON["END_MARK"] }
		$0 == begin { print; while ((getline l <table) > 0) print l; skip = 1; found = 1; next }
		$0 == end { skip = 0 }
		!skip { print }
		END { if (!found) { print "problem-table.sh: no problem-table marks in the man page" >"/dev/stderr"; exit 1 } }
	' "$man" >"$man.new"
	rm -f "$man.table"
	mv "$man.new" "$man"
else
	table
fi
