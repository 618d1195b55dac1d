#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# yocto.sh - doc/examples/yocto-postprocess.sh on a small root filesystem tree
#
# The manifest must list exactly the files under the chosen paths, each with the digest
# fsverity-utils computes from the host file; e2fsck must find the image clean.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck fsverity du
t_tmpdir

root=$T_TMP/rootfs
mkdir -p "$root/usr/bin" "$root/usr/lib/modules" "$root/etc" "$root/var/log"
make_data "$root/usr/bin/busybox" 300000
make_data "$root/usr/bin/init" 4096
make_data "$root/usr/lib/libc.so.6" 1100000
make_data "$root/usr/lib/modules/ext4.ko" 70000
: >"$root/usr/lib/empty"
printf 'root:x:0:0::/root:/bin/sh\n' >"$root/etc/passwd"
printf 'log\n' >"$root/var/log/messages"
ln -s busybox "$root/usr/bin/sh"

out=$T_TMP/rootfs.ext4
E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/yocto-postprocess.sh" "$root" "$out" "$T_TMP/manifest" \
	/usr/bin /usr/lib >"$T_TMP/log" 2>&1
status=$?
[ $status -eq 0 ] && pass "example runs" || fail "example exits $status: $(cat "$T_TMP/log")"

fsverity_lines "$root" usr >"$T_TMP/want"
LC_ALL=C sort "$T_TMP/manifest" >"$T_TMP/got"
if [ -s "$T_TMP/want" ] && cmp -s "$T_TMP/want" "$T_TMP/got"; then
	pass "manifest = fsverity digest of the files under /usr/bin and /usr/lib"
else
	fail "manifest differs from fsverity digest: $(diff "$T_TMP/want" "$T_TMP/got")"
fi
grep -q '/etc/passwd' "$T_TMP/got" && fail "/etc/passwd was sealed, but not chosen"
e2fsck -fn "$out" >"$T_TMP/fsck" 2>&1 && pass "e2fsck -fn" || fail "e2fsck -fn: $(cat "$T_TMP/fsck")"

# 3,000 one-byte files: one block each, which the image the example makes has room for
tiny=$T_TMP/tiny
mkdir -p "$tiny/usr/share/tiny"
i=0
while [ $i -lt 3000 ]; do
	i=$((i + 1))
	printf x >"$tiny/usr/share/tiny/$i"
done
E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/yocto-postprocess.sh" "$tiny" "$T_TMP/tiny.ext4" \
	"$T_TMP/tiny.manifest" /usr/share >"$T_TMP/log" 2>&1
status=$?
[ $status -eq 0 ] && [ "$(wc -l <"$T_TMP/tiny.manifest")" -eq 3000 ] &&
	pass "3,000 one-byte files" || fail "3,000 one-byte files: exit $status: $(cat "$T_TMP/log")"

# and the usage line for a wrong call
sh "$top_srcdir/doc/examples/yocto-postprocess.sh" "$root" 2>"$T_TMP/err"
[ $? -eq 2 ] && grep -q usage "$T_TMP/err" && pass "usage" || fail "usage: $(cat "$T_TMP/err")"
finish
