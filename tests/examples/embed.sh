#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# embed.sh - doc/examples/seal-image.c, the library alone, seals every regular file of an image
#
# Every regular file (a hard-linked one and an empty one among them; a symlink is left alone) must
# be sealed with the digest fsverity-utils computes from the host file, e2fsck must find the
# image clean, and a second run must find every file sealed already.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck fsverity
SEAL_IMAGE=$top_builddir/doc/examples/seal-image
[ -x "$SEAL_IMAGE" ] || skip "no $SEAL_IMAGE"
t_tmpdir

root=$T_TMP/root
mkdir -p "$root/usr/bin" "$root/etc" "$root/srv"
make_data "$root/usr/bin/tool" 300000
make_data "$root/usr/bin/big" 2100000
make_data "$root/etc/conf" 4096
: >"$root/etc/empty"
ln "$root/usr/bin/tool" "$root/srv/tool-link"
ln -s tool "$root/usr/bin/sym"
img=$T_TMP/img
mke2fs -q -F -t ext4 -b 4096 -d "$root" "$img" 64M >/dev/null 2>&1 || fail "mke2fs -d"

"$SEAL_IMAGE" "$img" >"$T_TMP/out" 2>"$T_TMP/err"
check "seal-image exits 0: $(cat "$T_TMP/err")" test $? -eq 0
check "seal-image: 4 files sealed" grep -qx "4 files sealed, 0 were already" "$T_TMP/out"
fsverity_lines "$root" usr etc srv >"$T_TMP/want"
"$E2VERITY" measure --all "$img" | LC_ALL=C sort >"$T_TMP/got"
if [ -s "$T_TMP/want" ] && cmp -s "$T_TMP/want" "$T_TMP/got"; then
	pass "every file sealed with fsverity digest's digest"
else
	fail "digests differ: $(diff "$T_TMP/want" "$T_TMP/got" | head -n 5)"
fi
check "e2fsck -fn clean" e2fsck -fn "$img" >/dev/null 2>&1
"$SEAL_IMAGE" "$img" >"$T_TMP/out2" 2>&1
check "a second run seals nothing" grep -qx "0 files sealed, 4 were already" "$T_TMP/out2"
"$SEAL_IMAGE" "$T_TMP/none" >/dev/null 2>"$T_TMP/err3"
check "a missing image: non-zero exit" test $? -ne 0
check "a missing image: named" grep -q "$T_TMP/none" "$T_TMP/err3"
finish
