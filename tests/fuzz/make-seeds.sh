#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make-seeds.sh - regenerate the seed corpora of the fuzz harnesses: descriptors and signatures
# from fsverity-utils, and 64 KiB images, sealed and then crafted as in issue 13's cases
# (tests/check/cases/), which are the regression seeds.  Usage: make-seeds.sh [E2VERITY]
set -e
cd "$(dirname "$0")"
E=$(realpath "${1:-../../e2verity}")
out=$PWD/seeds
rm -rf "$out" && mkdir -p "$out/descriptor" "$out/signature" "$out/image"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"

# deterministic data: seeds should not change when nothing else did
det() { openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f \
	-iv "$(printf '%032x' "$2")" </dev/zero 2>/dev/null | head -c "$2" >"$1"; }
det a 3000
det b 1500
det big 70000
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 1 -subj /CN=seed \
	>/dev/null 2>&1

n=0
for opts in "" "--hash-alg=sha512" "--block-size=1024 --salt=0011" "--block-size=65536"; do
	# shellcheck disable=SC2086
	fsverity digest $opts --out-descriptor=d big >/dev/null
	cp d "$out/descriptor/desc-$n"
	# shellcheck disable=SC2086
	fsverity sign $opts --key=key.pem --cert=cert.pem big sig >/dev/null
	cp sig "$out/signature/sig-$n"
	n=$((n + 1))
done
head -c 20 "$out/signature/sig-0" >"$out/signature/truncated"
# what the kernel's PKCS#7 rules read beyond fsverity sign's shape (issue 24): a CA-issued EC
# signer's certificate carried, signed attributes, a CMS subject key identifier signer, BER
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=seed-ca \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr \
	-subj /CN=seed-leaf >/dev/null 2>&1
printf '%s\n' subjectKeyIdentifier=hash authorityKeyIdentifier=keyid >leaf.ext
openssl x509 -req -in leaf.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile leaf.ext \
	-out leaf.crt >/dev/null 2>&1
"$E" sign big "$out/signature/sig-ca" --key=leaf.key --cert=leaf.crt >/dev/null
fsverity digest --for-builtin-sig --compact big | xxd -r -p >signed.bin
openssl smime -sign -binary -outform der -signer cert.pem -inkey key.pem -in signed.bin \
	-out "$out/signature/sig-attrs"
openssl cms -sign -binary -noattr -nocerts -keyid -outform der -signer cert.pem -inkey key.pem \
	-in signed.bin -out "$out/signature/sig-keyid"
"$(dirname "$E")/tests/helpers/pkcs7-edit" "$out/signature/sig-0" "$out/signature/sig-ber" \
	ber-indefinite=signed-data ber-prim=signer trailing=00
# the layout arithmetic reads 8-byte fields at 0, 8, 16: sizes near 2^64
printf '\234\377\377\377\377\377\377\377\0\0\0\0\0\0\0\0\0\0\1\0\0\0\0\0\0\1\0\0\2' \
	>"$out/descriptor/layout-near-2e64"

# base: 64 blocks of 1 KiB; /a (3000 bytes: blocks 0-2) sealed with 1 KiB tree blocks: the tree
# block at logical 64 (offset 65536), the descriptor in 65 (66560), the size word at 67580
truncate -s 64K base
mke2fs -q -F -t ext4 -b 1024 -N 16 -O verity,^has_journal,^resize_inode base 64K
debugfs -w -R "write a a" base >/dev/null 2>&1
debugfs -w -R "write b b" base >/dev/null 2>&1
"$E" seal -q --block-size=1024 base /a 2>/dev/null
cp base "$out/image/base"

# variant NAME DEBUGFS-COMMANDS...: the base with inode fields set by debugfs
variant() {
	_n=$1
	shift
	cp base "$_n"
	for _c in "$@"; do
		debugfs -w -R "$_c" "$_n" >/dev/null 2>&1
	done
}
# poke IMG FILE_OFFSET_IN_/a BYTES(printf): bytes into /a's block
poke() {
	_p=$(debugfs -R "bmap /a $(($2 / 1024))" "$1" 2>/dev/null)
	printf "$3" | dd of="$1" bs=1 seek=$((_p * 1024 + $2 % 1024)) conv=notrunc status=none
}
variant size-last-4k "sif /a size 18446744073709551516"
poke size-last-4k 66568 '\234\377\377\377\377\377\377\377'
variant size-last-64k "sif /a size 18446744073709511616"
poke size-last-64k 66568 '\300\143\377\377\377\377\377\377'
# 2 TiB claimed, the metadata extent (inode words 9-11: the third extent) moved to 2^31
cp base claimed-2tib
poke claimed-2tib 66568 '\0\0\0\0\0\2\0\0'
debugfs -w -R "sif /a size 2199023255552" claimed-2tib >/dev/null 2>&1
debugfs -w -R "sif /a block[9] 2147483648" claimed-2tib >/dev/null 2>&1
variant meta-block0 "sif /a block[11] 0"
variant meta-other-file "sif /a block[11] $(debugfs -R 'bmap /b 0' base 2>/dev/null)"
variant meta-oversized "sif /a block[10] 12" "sif /a block[11] 17"
variant encrypt-no-feature "sif /a flags 0x180800"
variant metadata-truncated "punch /a 65 65"
cp base sig-malformed
poke sig-malformed 66564 '\020'
poke sig-malformed 67580 '\020\001'
# tree-depth1: /f with 8 one-block extents (every other block of 15, sealed), so its root is an
# index over a leaf node in a block: mutations reach every check of the extent tree walker
truncate -s 64K tree-depth1
mke2fs -q -F -t ext4 -b 1024 -N 16 -O verity,^has_journal,^resize_inode tree-depth1 64K
det f 15360
{
	echo "write f f"
	for _i in 1 3 5 7 9 11 13; do echo "punch /f $_i $_i"; done
} | debugfs -w -f - tree-depth1 >/dev/null 2>&1
"$E" seal -q --block-size=1024 tree-depth1 /f 2>/dev/null
for f in size-last-4k size-last-64k claimed-2tib meta-block0 meta-other-file meta-oversized \
	encrypt-no-feature metadata-truncated sig-malformed tree-depth1; do
	cp "$f" "$out/image/$f"
done
ls -l "$out"/*
