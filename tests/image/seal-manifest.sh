#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-manifest.sh - seal -n --manifest: each file's digest line, as `fsverity digest` prints it for
# the source file (also --for-builtin-sig), without a byte of the image changing; and seal --manifest
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd fsverity mke2fs
t_tmpdir
cd "$T_TMP" || exit 1

# seeded data, whose last bytes are not zero: mke2fs -d 1.47.0 drops a last block of zeros and
# shortens the file (random data did that 1 time in 256, failing the comparisons below)
mkdir -p src/d/e
make_data src/empty 0
seeded src/one 1 11
seeded src/d/block 4096 12
seeded src/d/e/big 1048577 13
make_sparse src/sparse 3000000
mkimg base.img src 32M -b 4096 -O ^metadata_csum,inline_data
seeded src/tiny 60 14
mkimg inl.img src 32M -b 4096 -O inline_data

# want [fsverity digest options] - the lines for every source file, in the order seal -r takes them
want()
{
	for f in /d/block /d/e/big /empty /one /sparse; do
		fsverity digest "$@" "src$f" | sed "s| src$f\$| $f|"
	done
}
want >want.plain
want --hash-alg=sha512 --salt=0011 >want.sha512
want --for-builtin-sig >want.builtin

cp base.img img
"$E2VERITY" seal -n --manifest=got.plain img /d/block /d/e/big /empty /one /sparse >out 2>err
check "seal -n --manifest: exit 0" test $? -eq 0
check "seal -n --manifest: the lines of fsverity digest" cmp want.plain got.plain
check "seal -n --manifest: image unchanged" cmp -s img base.img
"$E2VERITY" seal -n --hash-alg=sha512 --salt=0011 -j 2 --manifest=got.sha512 img \
	/d/block /d/e/big /empty /one /sparse >/dev/null 2>&1
check "sha512, salt, threads: the lines of fsverity digest" cmp want.sha512 got.sha512
"$E2VERITY" seal -n --for-builtin-sig --manifest=- img /d/block /d/e/big /empty /one /sparse \
	>got.builtin 2>err
check "--for-builtin-sig --manifest=-: the lines of fsverity digest --for-builtin-sig" \
	cmp want.builtin got.builtin
check "image still unchanged" cmp -s img base.img

# an inline-data file: hashed from the inode itself
cp inl.img img2
"$E2VERITY" seal -n --manifest=got.inl img2 /tiny >/dev/null 2>&1
fsverity digest src/tiny | sed 's| src/tiny$| /tiny|' >want.inl
check "inline file: the line of fsverity digest" cmp want.inl got.inl
check "inline file: image unchanged" cmp -s img2 inl.img

# sealing for real with --manifest writes the same lines; a sealed file hashes the same
"$E2VERITY" seal -q --manifest=sealed.plain img /d/block /d/e/big /empty /one /sparse
check "seal --manifest: the same lines" cmp want.plain sealed.plain
check "seal --manifest: e2fsck clean" fsck_clean img
"$E2VERITY" seal -n --manifest=again.plain img /d/block /d/e/big /empty /one /sparse >/dev/null 2>&1
check "seal -n --manifest of sealed files: the same lines" cmp want.plain again.plain

# bad input: message, exit status, no manifest, image unchanged
cp base.img img
expect_fail "--for-builtin-sig without --manifest" 2 "needs --manifest" \
	"$E2VERITY" seal -n --for-builtin-sig img /one
expect_fail "missing path" 1 "/nothere" "$E2VERITY" seal -n --manifest=bad img /one /nothere
check "no manifest after a failure" test ! -e bad
expect_fail "manifest not creatable" 1 "while writing the manifest 'nodir/m'" \
	"$E2VERITY" seal -n --manifest=nodir/m img /one
check "bad input: image unchanged" cmp -s img base.img
finish
