#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-signed-threads.sh - signatures judged on the threads that hash small files ahead give the
# verdicts of one thread: files sealed by fsverity-utils + debugfs, signed by `fsverity sign` with
# the right key, another key, over another file, or not a signature at all
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
require_cmd openssl
cd "$T_TMP" || exit 1

self_signed a.key a.crt "e2verity test A"
self_signed b.key b.crt "e2verity test B"
mke2fs -q -F -t ext4 -b 4096 -O verity img 32M >/dev/null
mkdir src
i=0
while [ $i -lt 40 ]; do
	make_data src/f$i $((1000 + i * 97))
	i=$((i + 1))
done
# f5: another key; f9: the signature of another file; f13: bytes that are no PKCS#7 message
i=0
while [ $i -lt 40 ]; do
	key=a of=f$i
	[ $i = 5 ] && key=b
	[ $i = 9 ] && of=f1
	if [ $i = 13 ]; then
		rand_bytes 300 >f$i.sig
	else
		fsverity sign src/$of f$i.sig --key=$key.key --cert=$key.crt >/dev/null ||
			fail "fsverity sign f$i"
	fi
	seal_oracle img src/f$i f$i --sig=f$i.sig || fail "sealing f$i"
	i=$((i + 1))
done

for how in --cert=a.crt --ca=a.crt none; do
	opt=$how
	[ $how = none ] && opt=
	# shellcheck disable=SC2086
	"$E2VERITY" check -v -j 1 $opt img >one.out 2>&1
	st1=$?
	# shellcheck disable=SC2086
	"$E2VERITY" check -v -j 2 $opt img >two.out 2>&1
	st2=$?
	check "$how: exit 4 on one thread" test $st1 -eq 4
	check "$how: exit 4 on two" test $st2 -eq 4
	check "$how: two threads say what one says" cmp -s one.out two.out
	check "$how: f13 is no signature" grep -q "^/f13 (inode [0-9]*): error SIG_MALFORMED" two.out
	if [ $how = none ]; then
		check "$how: 39 files pass" grep -q ": 40 files checked, 39 passed, 1 failed" two.out
		continue
	fi
	check "$how: f9 does not match" grep -q "^/f9 (inode [0-9]*): error SIG_MISMATCH" two.out
	check "$how: f5 is not A's" grep -q "^/f5 (inode [0-9]*): error SIG_\(UNTRUSTED\|NO_SIGNER\)" \
		two.out
	check "$how: 37 files pass" grep -q ": 40 files checked, 37 passed, 3 failed" two.out
	check "$how: 37 verified" test "$(grep -c "^ok sha256:.*(signed, verified)" two.out)" -eq 37
	# the digests are fsverity-utils'
	for f in f0 f20 f39; do
		d=$(fsverity digest src/$f | cut -d' ' -f1)
		check "$how: $f's digest" grep -q "^ok $d /$f (signed, verified)" two.out
	done
done
finish
