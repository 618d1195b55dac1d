#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# readme.sh - the tour in README.md is true: its commands, run, print what it shows
#
# Each indented block of README.md with "$ " lines is run as one bash script, in one scratch
# directory holding a copy of images/, with e2verity on the PATH; its standard output must be
# the block's other lines.  Blocks without "$ " lines are not commands to run.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd bash mke2fs e2fsck debugfs fsverity openssl cmp sfdisk img2simg simg2img
t_tmpdir

mkdir "$T_TMP/bin" "$T_TMP/work"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$E2VERITY" >"$T_TMP/bin/e2verity"
chmod +x "$T_TMP/bin/e2verity"
cp -R "$top_srcdir/images" "$T_TMP/work/"

# split README.md into T_TMP/block.N.sh (commands) and T_TMP/block.N.want (output)
awk -v dir="$T_TMP" '
	function close_block() { if (cmds) { close(sh); close(want) } cmds = 0 }
	/^    \$ / {
		if (!cmds) { n++; sh = dir "/block." n ".sh"; want = dir "/block." n ".want"
			printf "" >want; cmds = 1 }
		print substr($0, 7) >sh; next
	}
	/^    / { if (cmds) print substr($0, 5) >want; next }
	{ close_block() }
	END { close_block(); print n + 0 >(dir "/blocks") }
' "$top_srcdir/README.md"
n=$(cat "$T_TMP/blocks")
[ "$n" -gt 0 ] || fail "no '\$ ' command blocks in README.md"

i=1
while [ "$i" -le "$n" ]; do
	(cd "$T_TMP/work" && PATH=$T_TMP/bin:$PATH bash "$T_TMP/block.$i.sh") \
		>"$T_TMP/block.$i.got" 2>"$T_TMP/block.$i.err"
	first=$(head -n 1 "$T_TMP/block.$i.sh")
	if cmp -s "$T_TMP/block.$i.want" "$T_TMP/block.$i.got"; then
		pass "README block $i ($first)"
	else
		fail "README block $i ($first): output differs:
$(diff "$T_TMP/block.$i.want" "$T_TMP/block.$i.got")
stderr: $(cat "$T_TMP/block.$i.err")"
	fi
	i=$((i + 1))
done
finish
