#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-large.sh - large files are read in chunks, the next one while the other threads hash the
# last: seal's digests are `fsverity digest`'s (SHA-256, SHA-512 with a salt, 4 KiB and 1 KiB
# filesystem blocks, data in several extents), check passes them on one and two threads, and a
# byte changed many chunks into the file is found in its block
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd fsverity debugfs
t_tmpdir
cd "$T_TMP" || exit 1

SALT=00112233445566778899aabbccddeeff
mkdir src
make_data src/a 20000000
make_data src/b 3000000

# one file at a time: a file alone is hashed by all threads
for bs in 4096 1024; do
	for how in plain sha512; do
		opts=
		[ $how = sha512 ] && opts="--hash-alg=sha512 --salt=$SALT"
		# tree blocks no larger than the filesystem's
		[ $bs = 1024 ] && opts="$opts --block-size=1024"
		img=$bs-$how.img
		mkimg "$img" src 64M -b $bs
		for f in a b; do
			# shellcheck disable=SC2086
			want=$(fsverity digest $opts src/$f | cut -d' ' -f1)
			# shellcheck disable=SC2086
			got=$("$E2VERITY" seal $opts "$img" /$f 2>seal.err | cut -d' ' -f1)
			check "$bs $how: seal /$f digest is fsverity's" test "$got" = "$want"
			for j in 1 2; do
				"$E2VERITY" check -v -j $j "$img" /$f >out 2>&1
				check "$bs $how: check -j $j /$f" grep -q "^ok $want /$f" out
			done
		done
		check "$bs $how: e2fsck clean" fsck_clean "$img"
	done
done

# data in several extents: a hole in the middle of the file splits them
mkdir holey
cp src/a holey/holey
fallocate -p -o $((1000 * 4096)) -l $((600 * 4096)) holey/holey ||
	skip "fallocate cannot punch a hole here"
mkimg holey.img holey 64M -b 4096
want=$(fsverity digest holey/holey | cut -d' ' -f1)
got=$("$E2VERITY" seal holey.img /holey 2>seal.err | cut -d' ' -f1)
check "several extents: seal digest is fsverity's" test "$got" = "$want"
"$E2VERITY" check -v holey.img >out 2>&1
check "several extents: check passes" grep -q "^ok $want /holey" out

# a byte changed in block 4500: 17 MiB into the file, many 1 MiB chunks in
img=4096-plain.img
blk=$(debugfs -R "bmap /a 4500" "$img" 2>/dev/null)
printf 'Z' | dd of="$img" bs=1 seek=$((blk * 4096 + 17)) conv=notrunc status=none
for j in 1 2; do
	"$E2VERITY" check -j $j "$img" /a >out 2>&1
	st=$?
	check "changed byte, -j $j: exit 4" test $st -eq 4
	check "changed byte, -j $j: block 4500 named" grep -q "DATA_MISMATCH: data block 4500 " out
done
finish
