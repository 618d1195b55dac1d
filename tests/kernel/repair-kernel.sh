#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# repair-kernel.sh - issue 22: what check -p and -y repair, the real kernel reads. Stored tree blocks
# flipped at each level (SHA-256 with two levels, SHA-512 salted with three, a signed file) are
# rewritten by check -p, a zeroed descriptor is rebuilt by check -y to the manifest's digest; in one
# boot the kernel measures every file as `fsverity digest` does and reads it back with its source's
# sha256, while a file whose data byte was flipped still fails with EIO and a zeroed descriptor that
# no manifest vouches for still does not open. e2fsck -fn is clean; descriptors and the signature are
# the same bytes before and after.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs e2fsck debugfs fsverity sha256sum openssl
# shellcheck source=tests/image/image-lib.sh disable=SC1091
. "$top_srcdir/tests/image/image-lib.sh"
t_tmpdir
cd "$T_TMP" || exit 1

# The host's side, the same for every kernel: made once, by the matrix's first run, and handed to
# the next ones (kh_prep_restore); saved before the boot
if ! kh_prep_restore; then
	# name -> the options it is sealed with (the same for fsverity digest), and its tree's geometry
	opts_of()
	{
		case $1 in
		/t512) echo "--hash-alg=sha512 --salt=0a0b0c" ;;
		*) echo ;;
		esac
	}
	mkdir src
	seeded src/l0 600000 1
	seeded src/top 600000 2
	# SHA-512, 4 KiB blocks (64 hashes each): 17,000,000 B are 4151 blocks: 65, 2 and 1 tree blocks
	make_sparse src/t512 17000000
	seeded src/signed 300000 3
	seeded src/lost 250000 4
	seeded src/nolist 250000 5
	seeded src/data 300000 6
	seeded src/ok 4097 7
	FILES="/l0 /top /t512 /signed /lost /nolist /data /ok"
	self_signed key.pem cert.pem
	openssl x509 -in cert.pem -outform der -out cert.der
	mke2fs -q -F -t ext4 -b 4096 -O verity -d src img 64M >/dev/null
	"$E2VERITY" seal -q img /l0 /top /lost /nolist /data /ok &&
		"$E2VERITY" seal -q --hash-alg=sha512 --salt=0a0b0c img /t512 &&
		"$E2VERITY" seal -q --key=key.pem --cert=cert.pem img /signed || {
		fail "sealing"
		finish
	}
	for f in $FILES; do
		# shellcheck disable=SC2046 # options are separate words
		fsverity digest $(opts_of "$f") "src$f" | sed "s| src$f\$| $f|"
	done >all.txt
	# the build's manifest (fsverity-utils' lines): /nolist is not in it, so nothing vouches for it
	grep -v ' /nolist$' all.txt >manifest.txt
	for f in $FILES; do
		"$E2VERITY" dump img "$f" descriptor >"before.${f#/}.desc"
	done
	"$E2VERITY" dump img /signed signature >before.sig

	# flip FILE TREE_OFFSET: a byte of the stored tree, TREE_OFFSET bytes into it (root level first)
	flip_tree()
	{
		flip img "$1" $(($(metadata_pos "$(stat -c %s "src$1")") + $2))
	}
	# zero_desc FILE TREE_BYTES: the descriptor's 256 bytes, right after the tree's last fs block
	zero_desc()
	{
		zd_off=$(img_offset img "$1" $(($(metadata_pos "$(stat -c %s "src$1")") + $2))) &&
			dd if=/dev/zero of=img bs=1 seek="$zd_off" count=256 conv=notrunc status=none
	}
	# /l0, /top: SHA-256, 147 data blocks: the top block, then 2 blocks of level 0
	flip_tree /l0 $((4096 + 33)) && flip_tree /top 7 &&
		flip_tree /t512 11 && flip_tree /t512 $((4096 + 5)) && flip_tree /t512 $((3 * 4096 + 99)) &&
		flip_tree /signed 3 &&
		zero_desc /lost 4096 && zero_desc /nolist 4096 &&
		flip_tree /data 1 && flip img /data 5000 || {
		fail "damaging the image"
		finish
	}

	"$E2VERITY" check -p img >p.out 2>&1
	same "check -p: exit 5 (corrected, and some left)" $? 5
	for f in /l0 /top /t512 /signed; do
		check "-p repaired $f" grep -q "^$f (inode [0-9]*): repaired: " p.out
	done
	"$E2VERITY" check -y --manifest=manifest.txt img >y.out 2>&1
	same "check -y --manifest: exit 5" $? 5
	check "-y rebuilt /lost" grep -q "^/lost (inode [0-9]*): repaired: resealed to $(grep ' /lost$' all.txt | cut -d' ' -f1)" y.out
	check "-y left /nolist: no trusted digest" grep -q "^/nolist (inode [0-9]*): not repaired: " y.out
	check "-y left /data: its data gives no trusted digest" grep -q "^/data (inode [0-9]*): not repaired: The data gives no trusted digest" y.out
	if e2fsck -fn img >fsck.out 2>&1; then pass "e2fsck -fn clean"; else fail "e2fsck: $(cat fsck.out)"; fi
	for f in /l0 /top /t512 /signed /lost /data /ok; do
		"$E2VERITY" dump img "$f" descriptor >after.desc
		check "$f: descriptor bytes as before" cmp -s "before.${f#/}.desc" after.desc
	done
	"$E2VERITY" dump img /signed signature >after.sig
	check "/signed: signature bytes as before" cmp -s before.sig after.sig
	kh_prep_save
fi

cat >guest.sh <<'GUEST'
load_cert /files/cert.der
mount_image /dev/vda /mnt ro || exit 1
measure_all /mnt/l0 /mnt/top /mnt/t512 /mnt/signed /mnt/lost /mnt/nolist /mnt/data /mnt/ok
hash_all /mnt/l0 /mnt/top /mnt/t512 /mnt/signed /mnt/lost /mnt/ok
expect_eio /mnt/data
true
GUEST
rc=0
start=$(date +%s)
kh_boot -f cert.der:/files/cert.der -r img -o out guest.sh || rc=$?
[ $rc -eq 0 ] || { cat out 2>/dev/null; kh_fail "the guest exited $rc"; }
echo "boot: $(($(date +%s) - start)) s"
same "mount" "$(grep '^MOUNT' out)" "MOUNT /dev/vda OK"
for f in /l0 /top /t512 /signed /lost /data /ok; do
	same "kernel measures $f as fsverity digest" "$(kh_get out MEASURE "/mnt$f")" \
		"$(grep " $f\$" all.txt | cut -d' ' -f1)"
done
for f in /l0 /top /t512 /signed /lost /ok; do
	same "kernel reads $f back whole" "$(kh_get out SHA256 "/mnt$f")" \
		"$(sha256sum <"src$f" | cut -d' ' -f1)"
done
case $(kh_get out EXPECT_EIO /mnt/data) in
OK\ *) pass "/data, its data byte flipped, still fails with EIO" ;;
*) fail "/data: $(grep ' /mnt/data ' out)" ;;
esac
case $(kh_get out MEASURE /mnt/nolist) in
ERR\ *) pass "/nolist, its descriptor zeroed and vouched for by nothing, still does not open" ;;
*) fail "/nolist: $(grep ' /mnt/nolist ' out)" ;;
esac
finish
