#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# walk-names.sh - one walk of the directories: check names a hard-linked file as seal -a does
#
# seal -a walks depth first, each directory in name order, and names a file by the first link it
# meets; check names the files it finds by scanning inodes with the library's e2verity_inode_paths().
# Both now use e2verity_walk().  The tree: /a/x and /b one file, /c and /z/deep/y another, so
# that a breadth-first walk (the library's before) says /b where depth first says /a/x.
# The names are checked against the tree as find(1) sorts it on the host, not against e2verity.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p d/a d/z/deep d/m
echo one >d/a/x
ln d/a/x d/b
echo two >d/z/deep/y
ln d/z/deep/y d/c
echo three >d/m/only
mkimg img d 8M -b 4096 || fail "mke2fs -d"

# the first name of each file in depth-first name order, by the host's find and sort
(cd d && find . -type f | sed 's#^\.##' | LC_ALL=C sort) >all
awk '{ print }' all | while read -r p; do
	echo "$(stat -c %i "d$p") $p"
done | awk '!seen[$1]++ { print $2 }' | LC_ALL=C sort >want
check "host tree: three files" test "$(wc -l <want)" -eq 3

"$E2VERITY" seal -a img >seal.out 2>seal.err || fail "seal -a: $(cat seal.err)"
awk '{ print $2 }' seal.out | LC_ALL=C sort >sealed
check "seal -a names each file by its first link depth first" cmp -s want sealed

"$E2VERITY" check -v img >check.out 2>check.err || fail "check -v: $(cat check.err)"
awk '$1 == "ok" { print $3 }' check.out | LC_ALL=C sort >checked
if cmp -s want checked; then
	pass "check names each file as seal -a does"
else
	fail "check names the files $(tr '\n' ' ' <checked), seal -a $(tr '\n' ' ' <want)"
fi

# a finding is printed with the same name: damage /a/x's data (debugfs writes a new file body)
blk=$(debugfs -R "bmap /a/x 0" img 2>/dev/null)
printf 'X' | dd of=img bs=1 seek=$((blk * 4096)) conv=notrunc 2>/dev/null
"$E2VERITY" check img >bad.out 2>&1
grep -q "^/a/x: .*DATA_MISMATCH\|/a/x.*DATA_MISMATCH\|DATA_MISMATCH.*/a/x" bad.out ||
	fail "check's finding names /a/x: $(cat bad.out)"
grep -q "/b\b" bad.out && fail "check names /b: $(cat bad.out)"

finish
