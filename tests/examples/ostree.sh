#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ostree.sh - doc/examples/ostree-composefs.sh: every file sealed with a detached signature
#
# Oracles: the digest list must be "fsverity digest" of the source files, and each signature
# stored in the image must be the bytes "fsverity sign" makes from the source file with the
# same key (RSA, so they are deterministic); e2fsck must find the image clean.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck fsverity openssl perl du cmp
t_tmpdir

tree=$T_TMP/tree
mkdir -p "$tree/usr/lib/composefs" "$tree/etc" "$tree/dir with spaces"
make_data "$tree/usr/lib/libfoo.so.1" 200000
make_data "$tree/usr/lib/composefs/object" 70000
make_data "$tree/dir with spaces/a file" 5000
printf 'os-release\n' >"$tree/etc/os-release"
: >"$tree/etc/empty"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T_TMP/key.pem" -out "$T_TMP/cert.pem" \
	-days 30 -subj /CN=e2verity-example >/dev/null 2>&1 || { echo "openssl req failed" >&2; exit 1; }

img=$T_TMP/os.img out=$T_TMP/out
E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/ostree-composefs.sh" "$tree" "$img" "$out" \
	"$T_TMP/key.pem" "$T_TMP/cert.pem" >"$T_TMP/log" 2>&1
status=$?
[ $status -eq 0 ] && pass "example runs" || fail "example exits $status: $(cat "$T_TMP/log")"

fsverity_lines "$tree" . >"$T_TMP/want"
LC_ALL=C sort "$out/manifest.txt" >"$T_TMP/got"
if [ "$(wc -l <"$T_TMP/want")" -eq 5 ] && cmp -s "$T_TMP/want" "$T_TMP/got"; then
	pass "digest list = fsverity digest of every file"
else
	fail "digest list differs from fsverity digest: $(diff "$T_TMP/want" "$T_TMP/got")"
fi

(cd "$tree" && find . -type f | sed 's#^\.##') >"$T_TMP/files"
while read -r p; do
	fsverity sign "$tree$p" "$T_TMP/want.sig" --key="$T_TMP/key.pem" --cert="$T_TMP/cert.pem" \
		>/dev/null 2>&1 || { fail "fsverity sign $p"; continue; }
	"$E2VERITY" dump "$img" "$p" signature >"$T_TMP/got.sig" 2>"$T_TMP/err" &&
		cmp -s "$T_TMP/want.sig" "$T_TMP/got.sig" && pass "signature of $p = fsverity sign" ||
		fail "signature of $p differs from fsverity sign: $(cat "$T_TMP/err")"
done <"$T_TMP/files"
e2fsck -fn "$img" >"$T_TMP/fsck" 2>&1 && pass "e2fsck -fn" || fail "e2fsck -fn: $(cat "$T_TMP/fsck")"
finish
