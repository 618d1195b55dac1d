#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-kernel.sh - files sealed by the real kernel (`fsverity enable` under qemu) pass check, and
# measure prints what the kernel measured
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_require
cd "$T_TMP" || exit 1

mkdir src
make_data src/a 600000
printf 'hello\n' >src/hello
: >src/empty
make_data src/big $((3 * 1024 * 1024 + 5))
make_data src/salted 70000
make_sparse src/sparse $((9 * 1024 * 1024 + 1))
mke2fs -q -F -t ext4 -b 4096 -O verity -d src img 64M >/dev/null || { fail "mke2fs"; finish; }
cat >list <<'EOL'
/a
/hello
/empty
/big
/salted --hash-alg=sha512 --salt=00ff
/sparse
EOL
sh "$top_srcdir/tests/kernel/fsverity-enable.sh" img list >kernel.out
st=$?
[ $st -eq 77 ] && skip "the kernel harness cannot run here"
check "the kernel sealed every file" test $st -eq 0
sum=$(sha256sum <img)

"$E2VERITY" check -v img >out
st=$?
check "check passes the kernel-sealed image" test $st -eq 0
check "check counts 6 files, all passed" grep -q '^img: 6 files checked, 6 passed, 0 failed' out
sort kernel.out >want
"$E2VERITY" measure --all img | sort >got
check "measure --all equals the kernel's measurements" cmp want got
grep '^ok ' out | cut -d' ' -f2- | sort >got
check "check -v digests equal the kernel's" cmp want got
check "the image is unchanged" test "$(sha256sum <img)" = "$sum"

# unseal, then let the kernel seal the same files again: the same digests
"$E2VERITY" unseal img /a /hello /empty /big /salted /sparse
check "unseal exits 0" test $? -eq 0
check "e2fsck -fn is clean after unseal" e2fsck -fn img >/dev/null 2>&1
"$E2VERITY" check img >out
check "nothing is sealed after unseal" grep -q '^img: 0 files checked' out
# the last unseal took the verity feature too; the kernel enables verity only where it is set
has_feature img verity && fail "unseal of every sealed file left the verity feature set"
tune2fs -O verity img >/dev/null 2>&1 || fail "tune2fs -O verity"
sh "$top_srcdir/tests/kernel/fsverity-enable.sh" img list | sort >again
check "the kernel seals the unsealed files again, to the same digests" cmp want again
"$E2VERITY" check img >out
check "check passes them again" grep -q '^img: 6 files checked, 6 passed, 0 failed' out
finish
