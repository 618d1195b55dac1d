#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# android.sh - doc/examples/android-sparse.sh: APKs and jars sealed inside a sparse system image
#
# Oracles: the result is still a sparse image (its magic), simg2img expands it to an image that
# e2fsck finds clean, and the manifest is "fsverity digest" of exactly the files under
# system/app, system/priv-app and system/framework.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck fsverity img2simg simg2img od du cmp
t_tmpdir

root=$T_TMP/root
mkdir -p "$root/system/app/Camera" "$root/system/priv-app/Settings" "$root/system/framework/arm64" \
	"$root/system/etc" "$root/system/bin"
make_data "$root/system/app/Camera/Camera.apk" 400000
make_data "$root/system/priv-app/Settings/Settings.apk" 150000
make_data "$root/system/framework/framework.jar" 1200000
make_sparse "$root/system/framework/arm64/boot.oat" 3000000
printf '127.0.0.1 localhost\n' >"$root/system/etc/hosts"
make_data "$root/system/bin/toybox" 50000

simg=$T_TMP/system.img
E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/android-sparse.sh" "$root" "$simg" "$T_TMP/manifest" \
	>"$T_TMP/log" 2>&1
status=$?
[ $status -eq 0 ] && pass "example runs" || fail "example exits $status: $(cat "$T_TMP/log")"

# the sparse image magic, 0xed26ff3a little-endian
magic=$(od -A n -t x1 -N 4 "$simg" | tr -d ' ')
[ "$magic" = "3aff26ed" ] && pass "still a sparse image" || fail "not a sparse image (magic '$magic')"
simg2img "$simg" "$T_TMP/raw.img" || fail "simg2img"
e2fsck -fn "$T_TMP/raw.img" >"$T_TMP/fsck" 2>&1 && pass "e2fsck -fn of the expanded image" ||
	fail "e2fsck -fn: $(cat "$T_TMP/fsck")"
[ "$(du -k "$simg" | cut -f1)" -lt "$(du -k --apparent-size "$T_TMP/raw.img" | cut -f1)" ] &&
	pass "smaller than the expanded image" || fail "the sparse image is not smaller than the raw one"

fsverity_lines "$root" system/app system/priv-app system/framework >"$T_TMP/want"
LC_ALL=C sort "$T_TMP/manifest" >"$T_TMP/got"
if [ "$(wc -l <"$T_TMP/want")" -eq 4 ] && cmp -s "$T_TMP/want" "$T_TMP/got"; then
	pass "manifest = fsverity digest of the APKs and jars"
else
	fail "manifest differs from fsverity digest: $(diff "$T_TMP/want" "$T_TMP/got")"
fi
finish
