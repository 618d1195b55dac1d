#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-space.sh - the free-space check against what sealing takes: for files of every shape, the
# blocks `seal -n` counts are the blocks the filesystem loses (dumpe2fs's free count before and
# after), never fewer; an image with just that much free space is sealed, one with a block less is
# refused and left as it was
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd dumpe2fs openssl truncate
t_tmpdir
cd "$T_TMP" || exit 1

free_blocks()
{
	sb_field "$1" "Free blocks"
}

# the blocks `seal -n` counts for one PATH
estimate()
{
	_img=$1 _path=$2
	shift 2
	"$E2VERITY" seal -n "$@" "$_img" "$_path" | sed -n 's/^1 file, \([0-9]*\) blocks\{0,1\} needed, .*/\1/p'
}

# shape NAME IMG PATH BLOCKS EXACT [seal options]: seals PATH alone in a copy of IMG; the filesystem
# loses BLOCKS blocks (the tree, descriptor and size word of the kernel's layout, and a moved inline
# file's data block); `seal -n` counted as many (EXACT=1), or one more (EXACT=0: the metadata takes
# more extents than the inode holds beside the data's, if free space is in pieces)
shape()
{
	sh_name=$1 sh_img=$2 sh_path=$3 sh_want=$4 sh_exact=$5
	shift 5
	cp "$sh_img" s.img
	sh_est=$(estimate s.img "$sh_path" "$@")
	sh_before=$(free_blocks s.img)
	"$E2VERITY" seal -q "$@" s.img "$sh_path" 2>err || {
		fail "$sh_name: seal exits $?: $(cat err)"
		return
	}
	sh_real=$((sh_before - $(free_blocks s.img)))
	if ! fsck_clean s.img; then
		fail "$sh_name: e2fsck"
	elif [ "$sh_real" -ne "$sh_want" ]; then
		fail "$sh_name: sealing took $sh_real blocks, the layout needs $sh_want"
	elif [ -z "$sh_est" ] || [ "$sh_est" -ne $((sh_want + 1 - sh_exact)) ]; then
		fail "$sh_name: seal -n counts '$sh_est' blocks; sealing took $sh_real"
	else
		pass "$sh_name: $sh_real blocks, $sh_est counted"
	fi
}

mkdir src
for n in 0 1 4095 4096 4097 65535 65536 65537 3145728; do
	make_data "src/f$n" "$n"
done
# holes: one data extent after a hole; and six, more than the inode holds (a leaf block)
truncate -s 1M src/hole && printf 'end' >>src/hole
: >src/islands
for i in 0 1 2 3 4 5; do
	printf 'island %s' "$i" | dd of=src/islands bs=1 seek=$((i * 65536)) conv=notrunc status=none
done
mkimg base.img src 32M -b 4096
[ "$(debugfs -R 'stat /islands' base.img 2>/dev/null | grep -c 'EXTENTS:')" -eq 1 ] &&
	debugfs -R 'stat /islands' base.img 2>/dev/null | grep -q '(ETB0)' ||
	fail "setup: /islands has no extent tree block"

# a file of at most one data block: no tree, one block for the descriptor and its size word
for n in 0 1 4095 4096; do
	shape "$n bytes" base.img "/f$n" 1 1
done
# two to 17 data blocks: one tree block, one descriptor block
for n in 4097 65535 65536 65537; do
	shape "$n bytes" base.img "/f$n" 2 1
done
# 768 data blocks: 6 + 1 tree blocks, 1 descriptor block
shape "3 MiB" base.img /f3145728 8 0
# SHA-512: 12 + 1 tree blocks
shape "3 MiB, sha512" base.img /f3145728 14 0 --hash-alg=sha512
shape "1 byte, sha512" base.img /f1 1 1 --hash-alg=sha512
# 1 KiB tree blocks: 96 + 3 + 1 of them (25 fs blocks), then the descriptor's
shape "3 MiB, 1 KiB tree blocks" base.img /f3145728 26 0 --block-size=1024
shape "4097 bytes, 1 KiB tree blocks" base.img /f4097 2 1 --block-size=1024
# 257 blocks (mostly a hole): 3 + 1 tree blocks
shape "sparse" base.img /hole 5 0
# 385 blocks in six extents under a leaf with room: 1 tree block, the descriptor
shape "six extents" base.img /islands 2 1
# a built-in signature after the descriptor, in its block
self_signed key.pem cert.pem
shape "1 byte, signed" base.img /f1 1 1 --key=key.pem --cert=cert.pem
shape "65537 bytes, signed" base.img /f65537 2 1 --key=key.pem --cert=cert.pem

# inline data: the bytes move into a block of their own, then the descriptor's block
mkdir inl
printf 'inline bytes\n' >inl/small
: >inl/empty
mkimg inline.img inl 16M -b 4096 -O inline_data
debugfs -R 'stat /small' inline.img 2>/dev/null | grep -q 'Size of inline data' ||
	fail "setup: /small is not inline"
shape "inline, 13 bytes" inline.img /small 2 1
shape "inline, empty" inline.img /empty 1 1

# sealed already with these parameters: nothing to allocate
cp base.img again.img
"$E2VERITY" seal -q again.img /f1 || fail "seal /f1: exit $?"
same "already sealed: nothing counted" "$(estimate again.img /f1)" 0

# an image that just fits: many small files and a few larger ones, the free space brought down to
# what `seal -n` counts by a file allocated with debugfs
mkdir fit fit/d
for i in $(seq 1 300); do printf x >"fit/d/$i"; done
for i in 1 2 3; do make_data "fit/d/m$i" 20000; done
: >fit/filler
mkimg fit.img fit 16M -b 4096
need=$("$E2VERITY" seal -n -r fit.img /d | sed -n 's/^[0-9]* files, \([0-9]*\) blocks needed, .*/\1/p')
same "just fits: 300 one-byte files and three of 20000 bytes need 306 blocks" "$need" 306
# takes blocks from the filler until N are left
fill_to()
{
	_i=0
	while [ "$_i" -lt 5 ] && [ "$(free_blocks "$1")" -gt "$2" ]; do
		_at=$(debugfs -R 'stat /filler' "$1" 2>/dev/null | sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p')
		debugfs -w -R "fallocate /filler $((_at / 8 + 64)) \
			$((_at / 8 + 64 + $(free_blocks "$1") - $2 - 1))" "$1" >/dev/null 2>&1
		_i=$((_i + 1))
	done
	[ "$(free_blocks "$1")" -eq "$2" ]
}
cp fit.img tight.img
if fill_to tight.img "$need" && fsck_clean tight.img; then
	"$E2VERITY" seal -q -r tight.img /d 2>err && [ "$(free_blocks tight.img)" -eq 0 ] &&
		fsck_clean tight.img && pass "just fits: sealed, no block left" ||
		fail "just fits: $(cat err); $(free_blocks tight.img) free"
else
	fail "setup: cannot bring the free space down to $need blocks"
fi
cp fit.img short.img
if fill_to short.img $((need - 1)); then
	cp short.img short.orig
	expect_fail "a block short: refused" 1 "($need blocks needed, $((need - 1)) free)" \
		"$E2VERITY" seal -q -r short.img /d
	check "a block short: image unchanged" cmp -s short.img short.orig
else
	fail "setup: cannot bring the free space down to $((need - 1)) blocks"
fi
finish
