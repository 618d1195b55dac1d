#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel-harness.sh - the real-kernel harness end to end: the kernel seals files, fsverity digest agrees
#
# Boot 1 (fsverity-enable.sh, image writable): `fsverity enable` on an empty, a 6-byte, a 600000-byte,
# a sparse and a 3-level (70 MB, mostly holes) file, plus a salted SHA-512 copy; the kernel's
# `fsverity measure` must equal host `fsverity digest` with the same parameters; e2fsck -fn clean.
# Then one data byte of a sealed file is flipped on the host. Boot 2 (image read-only): every
# other file reads back with the source's sha256, the flipped file fails with EIO at exactly the
# flipped block (the page holding it, with pages larger than 4 KiB) while its other blocks still
# read, and the kernel logs the corruption.
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
KHARNESS_DIR=$top_srcdir/tests/kernel
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$KHARNESS_DIR/kernel-lib.sh"
kh_setup mke2fs e2fsck debugfs od sha256sum truncate

tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2v-kharness.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
fail=0
bad()
{
	echo "FAIL: $*"
	fail=1
}

# put FILE OFFSET COUNT - write COUNT random bytes into FILE at OFFSET, keeping the rest (holes)
put()
{
	rand_bytes "$3" | dd of="$1" bs=4096 seek="$(($2 / 4096))" conv=notrunc 2>/dev/null
}

src=$tmp/src
mkdir "$src"
: >"$src/empty"
printf 'hello\n' >"$src/six"
rand_bytes 600000 >"$src/big"
# sparse: 1 MiB + 100 B, data in blocks 3 and 100 only
truncate -s 1048676 "$src/sparse"
put "$src/sparse" 12288 4096
put "$src/sparse" 409600 5000
# tree3: 70,000,000 B = 17090 blocks -> 134 + 2 + 1 tree blocks (3 levels with SHA-256)
truncate -s 70000000 "$src/tree3"
put "$src/tree3" 0 8192
put "$src/tree3" 67108864 4096
put "$src/tree3" 69996544 3456
cp "$src/big" "$src/big512"
salt=5eed0102abcdef
mke2fs -q -F -t ext4 -b 4096 -O verity -d "$src" "$tmp/img" 64M

# name -> fsverity options (same for enable in the guest and digest on the host)
opts_of()
{
	case $1 in
	big512) echo "--hash-alg=sha512 --salt=$salt" ;;
	*) echo ;;
	esac
}
files="empty six big sparse tree3 big512"
for f in $files; do
	echo "/$f $(opts_of "$f")"
done >"$tmp/list"

# Boot 1: seal with the kernel.
rc=0
sh "$KHARNESS_DIR/fsverity-enable.sh" "$tmp/img" "$tmp/list" >"$tmp/sealed" || rc=$?
[ $rc -eq 0 ] || { cat "$tmp/sealed"; kh_fail "fsverity-enable.sh exited $rc"; }
for f in $files; do
	o=$(opts_of "$f")
	# shellcheck disable=SC2086 # options are separate words
	want=$(fsverity digest $o "$src/$f" | cut -d' ' -f1)
	got=$(awk -v p="/$f" '$2 == p { print $1 }' "$tmp/sealed")
	if [ "$got" = "$want" ]; then
		echo "ok: kernel measure of /$f = fsverity digest ${o:-(defaults)}: $want"
	else
		bad "/$f: kernel measured '$got', fsverity digest says '$want'"
	fi
done
e2fsck -fn "$tmp/img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; bad "e2fsck -fn not clean after kernel sealing"; }

# Flip one byte in block 5 of /big, found through the image's extent map.
flipblk=5
pblk=$(debugfs -R "bmap /big $flipblk" "$tmp/img" 2>/dev/null)
case $pblk in
'' | *[!0-9]*) kh_fail "debugfs bmap /big $flipblk said '$pblk'" ;;
esac
off=$((pblk * 4096 + 100))
byte=$(od -An -tu1 -j "$off" -N1 "$tmp/img" | tr -d ' ')
# shellcheck disable=SC2059 # the format is the octal escape
printf "\\$(printf %03o $((byte ^ 255)))" |
	dd of="$tmp/img" bs=1 seek="$off" conv=notrunc 2>/dev/null
[ "$(od -An -tu1 -j "$off" -N1 "$tmp/img" | tr -d ' ')" -eq $((byte ^ 255)) ] ||
	kh_fail "could not flip the byte at $off"

# fs-verity verifies a page at a time: EIO from the first block of the flipped block's page, and
# the blocks next to that page still read
eioblk=$(kh_page_block $flipblk)
before=$((eioblk - 1))
after=$((eioblk + KH_PAGE_SIZE / 4096))

# Boot 2: read everything back through fs-verity from a read-only disk.
cat >"$tmp/guest.sh" <<EOF
mount_image /dev/vda /mnt ro || exit 1
flags_all /mnt/$(echo "$files" | sed 's| | /mnt/|g')
measure_all /mnt/$(echo "$files" | sed 's| | /mnt/|g')
hash_all /mnt/$(echo "$files" | sed 's| | /mnt/|g')
read_block /mnt/big $before
read_block /mnt/big $after
kmsg 'FILE CORRUPTED'
EOF
rc=0
kh_boot -r "$tmp/img" -o "$tmp/out" "$tmp/guest.sh" || rc=$?
[ $rc -eq 0 ] || { cat "$tmp/out"; kh_fail "second boot: guest exited $rc"; }

for f in $files; do
	flags=$(kh_get "$tmp/out" FLAGS "/mnt/$f")
	case $flags in
	*verity=yes*) ;;
	*) bad "/$f: flags after sealing: '$flags'" ;;
	esac
	want=$(awk -v p="/$f" '$2 == p { print $1 }' "$tmp/sealed")
	got=$(kh_get "$tmp/out" MEASURE "/mnt/$f")
	[ "$got" = "$want" ] || bad "/$f: measure '$got' in boot 2, '$want' in boot 1"
	[ "$f" = big ] && continue
	want=$(sha256sum <"$src/$f" | cut -d' ' -f1)
	got=$(kh_get "$tmp/out" SHA256 "/mnt/$f")
	if [ "$got" = "$want" ]; then
		echo "ok: /$f reads back through fs-verity with the source's sha256"
	else
		bad "/$f: guest read '$got' ($(grep " /mnt/$f " "$tmp/out" | tail -n 1)), source sha256 $want"
	fi
done

got=$(kh_get "$tmp/out" READERR /mnt/big)
case $got in
"EIO $eioblk "*) echo "ok: /big fails with EIO at block $eioblk (flipped: $flipblk, ${KH_PAGE_SIZE}-byte pages)" ;;
*) bad "/big with a flipped byte in block $flipblk: '$(grep ' /mnt/big ' "$tmp/out")', want EIO at $eioblk" ;;
esac
for b in $before $after; do
	want=$(dd if="$src/big" bs=4096 skip="$b" count=1 2>/dev/null | sha256sum | cut -d' ' -f1)
	got=$(awk -v b="$b" '$1 == "BLOCK" && $2 == "/mnt/big" && $3 == b { print $4 }' "$tmp/out")
	[ "$got" = "$want" ] || bad "/big block $b next to the flipped one: '$got', source $want"
done
grep -q '^KMSG .*FILE CORRUPTED' "$tmp/out" || bad "the kernel did not log FILE CORRUPTED"

[ $fail -eq 0 ] && echo "PASS: kernel harness"
exit $fail
