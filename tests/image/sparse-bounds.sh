#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sparse-bounds.sh - Android sparse images are read through their chunk table, never expanded to be
# read, and expanded for writing only as far as their ext4 filesystem: hostile headers (44 bytes
# claiming 2^24 and 2^32 - 1 blocks, chunks that overlap or run past the header's blocks, a cut
# chunk table, a header larger or smaller than its filesystem, 16 TiB to expand) refused or
# reported by every command under `ulimit -f`, so that any expansion fails the test, each file
# byte-identical; a valid image read in place gives what its expansion gives, and seal and
# check -p still write it back. Oracles: img2simg and simg2img, e2fsck -fn, fsverity digest, cmp.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd img2simg simg2img mke2fs e2fsck fsverity od
t_tmpdir
cd "$T_TMP" || exit 1
mkdir tmp src sp raw
TMPDIR=$T_TMP/tmp
export TMPDIR

# ---- the format, written byte by byte (AOSP's sparse_format.h, little-endian) ----
# printf's format is built from the octal escapes of the bytes
le16()
{
	# shellcheck disable=SC2059 # the format is the bytes, as octal escapes
	printf "$(printf '\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)))"
}
le32()
{
	le16 $(($1 & 65535))
	le16 $(($1 >> 16 & 65535))
}
# header BLOCKS CHUNKS: a file header of 4096-byte blocks
header()
{
	le32 0xed26ff3a
	le16 1
	le16 0
	le16 28
	le16 12
	le32 4096
	le32 "$1"
	le32 "$2"
	le32 0
}
# chunk TYPE BLOCKS TOTAL: a chunk header (raw 0xcac1, fill 0xcac2, don't care 0xcac3, crc 0xcac4)
chunk()
{
	le16 "$1"
	le16 0
	le32 "$2"
	le32 "$3"
}
# u32 FILE OFFSET: a little-endian field
u32()
{
	od -An -tu4 --endian=little -j "$2" -N 4 "$1" | tr -d ' '
}
# put32 FILE OFFSET VALUE: overwrites a field in place
put32()
{
	le32 "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# ---- a valid image: what img2simg makes of a 64 MiB filesystem with /a sealed ----
seeded src/a 300000 51
seeded src/b 70000 52
head -c 5000000 /dev/zero >src/zeros
printf 'hello\n' >src/hello
mkimg base.img src 64M -b 4096 -O verity,^metadata_csum
"$E2VERITY" seal -q base.img /a /b || fail "seal of the raw image"
img2simg base.img valid.simg || fail "img2simg"
# the oracle's expansion: what every read through the chunks must give
simg2img valid.simg raw/img || fail "simg2img"
cp valid.simg sp/img

# limited CMD...: runs a command where no file may grow past 1024 blocks of the shell's ulimit
# (512 KiB or 1 MiB): expanding any of these images would be killed by SIGXFSZ (exit 153)
limited()
{
	(
		ulimit -f 1024 || exit 99
		exec "$@"
	)
}

# ---- read in place: the verdicts, digests and bytes of its raw expansion, nothing expanded ----
# each run in the image's directory, so that the names in the output are the same
for form in sp raw; do
	(cd "$form" && limited "$E2VERITY" check img >check.out 2>&1; echo "$?" >check.rc)
	(cd "$form" && limited "$E2VERITY" check -v --json img >json.out 2>&1; echo "$?" >json.rc)
	(cd "$form" && limited "$E2VERITY" measure --all img >measure.out 2>&1; echo "$?" >measure.rc)
	(cd "$form" && limited "$E2VERITY" dump img /a merkle_tree >tree.out 2>dump.err)
	(cd "$form" && limited "$E2VERITY" dump img /b descriptor >desc.out 2>>dump.err)
done
for out in check.out check.rc json.out json.rc measure.out measure.rc tree.out desc.out; do
	check "read in place under ulimit -f: $out as from simg2img's expansion" cmp -s sp/$out raw/$out
done
check "check of the sparse image: exit 0, 2 files passed" \
	sh -c 'test "$(cat sp/check.rc)" -eq 0 &&
		grep -q "2 files checked, 2 passed, 0 failed" sp/check.out'
check "measure --all of the sparse image: /a as fsverity digest says" \
	grep -qxF "$(fsverity digest src/a | cut -d' ' -f1) /a" sp/measure.out
fsverity digest src/a --out-merkle-tree=a.tree >/dev/null
check "dump of /a's Merkle tree from the sparse image: fsverity digest's tree" \
	cmp -s sp/tree.out a.tree
limited "$E2VERITY" diff --verify sp/img raw/img >diff.out 2>&1
check "diff --verify of the sparse image and its expansion: exit 0, the same" test $? -eq 0
check "nothing in TMPDIR after the reads" test -z "$(ls -A tmp)"
check "the sparse image unchanged by the reads" cmp -s sp/img valid.simg

# a checksum chunk at the end covers no block: read as before
cp valid.simg crc.simg
put32 crc.simg 20 $(($(u32 crc.simg 20) + 1))
{
	chunk 0xcac4 0 16
	le32 0x12345678
} >>crc.simg
limited "$E2VERITY" measure --all crc.simg >crc.out 2>&1
check "a checksum chunk at the end: measure --all as before" cmp -s crc.out sp/measure.out

# ---- seal still writes a sparse image back, from a copy no larger than its filesystem ----
cp valid.simg w.simg
"$E2VERITY" seal -q w.simg /hello /zeros
check "seal of /hello and /zeros in the sparse image: exit 0" test $? -eq 0
simg2img w.simg w.raw
check "... simg2img expands it, e2fsck -fn clean" sh -c 'e2fsck -fn w.raw >/dev/null 2>&1'
"$E2VERITY" measure w.raw /hello /zeros /a >w.measure
check "... /hello, /zeros and /a measured as fsverity digest says" test \
	"$(cat w.measure)" = "$(printf '%s /hello\n%s /zeros\n%s /a' \
		"$(fsverity digest src/hello | cut -d' ' -f1)" \
		"$(fsverity digest src/zeros | cut -d' ' -f1)" \
		"$(fsverity digest src/a | cut -d' ' -f1)")"
check "... nothing left in TMPDIR" test -z "$(ls -A tmp)"
# under ulimit -f the copy cannot be made: said, not killed by SIGXFSZ
cp valid.simg u.simg
expect_fail "seal of a 64 MiB sparse image under ulimit -f: refused" 1 \
	"'u.simg' (expanding the Android sparse image makes a file of 67108864 bytes, larger than" \
	limited "$E2VERITY" seal -q u.simg /hello
check "... unchanged, nothing in TMPDIR" sh -c 'cmp -s u.simg valid.simg && test -z "$(ls -A tmp)"'

# ---- check -p reads in place, then expands to repair: a damaged Merkle tree block of /a ----
cp base.img dmg.img
# /a's tree starts at the 64 KiB boundary after its 300000 bytes: logical block 80
tblk=$(debugfs -R "bmap /a 80" dmg.img 2>/dev/null)
printf 'XXXX' | dd of=dmg.img bs=1 seek=$((tblk * 4096 + 100)) conv=notrunc 2>/dev/null
img2simg dmg.img dmg.simg
cp dmg.simg dmg.orig
expect_fail "check -p of a damaged sparse image under ulimit -f: the repair refused" 12 \
	"'dmg.simg' (expanding the Android sparse image makes a file of" \
	limited "$E2VERITY" check -p dmg.simg
check "... unchanged, nothing in TMPDIR" sh -c 'cmp -s dmg.simg dmg.orig && test -z "$(ls -A tmp)"'
"$E2VERITY" check -p dmg.simg >/dev/null 2>&1
check "check -p of the damaged sparse image: exit 1, repaired" test $? -eq 1
simg2img dmg.simg dmg.raw
debugfs -R "dump /a a.out" dmg.raw >/dev/null 2>&1
check "... simg2img expands it, e2fsck -fn clean, /a's data unchanged" \
	sh -c 'e2fsck -fn dmg.raw >/dev/null 2>&1 && cmp -s a.out src/a'
"$E2VERITY" dump dmg.raw /a merkle_tree >dmg.tree
check "... /a's Merkle tree is fsverity digest's again" cmp -s dmg.tree a.tree

# ---- hostile images ----
# every command on FILE under ulimit -f: exit status as each says trouble, PATTERN on stderr, FILE
# byte-identical and nothing in TMPDIR; RPATTERN (default PATTERN) for the commands that only read
all_refuse()
{
	ar_f=$1 ar_pat=$2 ar_rpat=${3:-$2}
	cp "$ar_f" "$ar_f.orig"
	expect_fail "$ar_f: check" 8 "$ar_rpat" limited "$E2VERITY" check "$ar_f"
	expect_fail "$ar_f: check -p" 8 "$ar_rpat" limited "$E2VERITY" check -p "$ar_f"
	expect_fail "$ar_f: check -y" 8 "$ar_rpat" limited "$E2VERITY" check -y "$ar_f"
	expect_fail "$ar_f: measure --all" 1 "$ar_rpat" limited "$E2VERITY" measure --all "$ar_f"
	expect_fail "$ar_f: measure /a" 1 "$ar_rpat" limited "$E2VERITY" measure "$ar_f" /a
	expect_fail "$ar_f: dump" 1 "$ar_rpat" limited "$E2VERITY" dump "$ar_f" /a descriptor
	expect_fail "$ar_f: diff" 2 "$ar_rpat" limited "$E2VERITY" diff "$ar_f" valid.simg
	expect_fail "$ar_f: seal -n" 1 "$ar_rpat" limited "$E2VERITY" seal -n "$ar_f" /a
	expect_fail "$ar_f: seal" 1 "$ar_pat" limited "$E2VERITY" seal "$ar_f" /a
	expect_fail "$ar_f: seal -a" 1 "$ar_pat" limited "$E2VERITY" seal -a "$ar_f"
	expect_fail "$ar_f: unseal" 1 "$ar_pat" limited "$E2VERITY" unseal "$ar_f" /a
	check "$ar_f: byte-identical after every command, nothing in TMPDIR" \
		sh -c "cmp -s '$ar_f' '$ar_f.orig' && test -z \"\$(ls -A tmp)\""
}

# 44 bytes: one fill of 0xff claiming 2^24 blocks (64 GiB), as issue 36 found it
{
	header 16777216 1
	chunk 0xcac2 16777216 16
	le32 0xffffffff
} >fill24.simg
check "fill24.simg is 44 bytes" test "$(wc -c <fill24.simg)" -eq 44
nofs="the chunks of the Android sparse image hold no ext4 filesystem"
all_refuse fill24.simg "'fill24.simg' ($nofs"

# 44 bytes claiming 2^32 - 1 blocks, the most a header can (16 TiB)
{
	header 0xffffffff 1
	chunk 0xcac2 0xffffffff 16
	le32 0xffffffff
} >fill32.simg
all_refuse fill32.simg "'fill32.simg' ($nofs"

dmg="a damaged Android sparse image"
# chunks that overlap the header's end: 12 blocks "don't care", then a fill of blocks 12 to 19 of 16
{
	header 16 2
	chunk 0xcac3 12 12
	chunk 0xcac2 8 16
	le32 0x01020304
} >overlap.simg
all_refuse overlap.simg \
	"'overlap.simg' ($dmg: chunk 2 of 2 covers blocks 12 to 19, past the 16 blocks of its header)"

# one chunk past the header's size: 2^24 blocks of a header of 16
{
	header 16 1
	chunk 0xcac2 16777216 16
	le32 0xffffffff
} >past.simg
all_refuse past.simg \
	"'past.simg' ($dmg: chunk 1 of 1 covers blocks 0 to 16777215, past the 16 blocks"

# chunks that cover fewer blocks than the header: the rest of the image is nowhere
{
	header 16777216 1
	chunk 0xcac3 16 12
} >short.simg
all_refuse short.simg "'short.simg' ($dmg: its chunks hold 16 blocks, its header 16777216)"

# a truncated chunk table: the valid image cut inside its first raw chunk, and inside a chunk header
head -c 100000 valid.simg >cut.simg
all_refuse cut.simg \
	"'cut.simg' ($dmg: chunk [0-9]* claims [0-9]* bytes, past its end at byte 100000)"
head -c 34 valid.simg >cut-table.simg
all_refuse cut-table.simg \
	"'cut-table.simg' ($dmg: its header claims [0-9]* chunks, more than its 34 bytes can hold)"

# a real superblock, its filesystem made 2^32 - 1 blocks, the rest a fill of 0xff: 16 TiB to write
head -c 4096 base.img >sb.block
put32 sb.block $((1024 + 4)) 0xffffffff
{
	header 0xffffffff 2
	chunk 0xcac1 1 $((12 + 4096))
	cat sb.block
	chunk 0xcac2 0xfffffffe 16
	le32 0xffffffff
} >sb32.simg
all_refuse sb32.simg \
	"'sb32.simg' (expanding the Android sparse image takes 17592186040320 bytes in '$TMPDIR', which" \
	"'sb32.simg'"

# a header that claims more than its filesystem: read as it is, refused for writing
cp valid.simg big.simg
put32 big.simg 16 $(($(u32 big.simg 16) + 4096))
put32 big.simg 20 $(($(u32 big.simg 20) + 1))
chunk 0xcac3 4096 12 >>big.simg
cp big.simg big.orig
(cd sp && limited "$E2VERITY" measure --all ../big.simg >../big.measure 2>&1)
check "a header 16 MiB larger than its filesystem: measure --all reads it as before" \
	cmp -s big.measure sp/measure.out
for cmd in seal unseal; do
	expect_fail "a header 16 MiB larger than its filesystem: $cmd refused" 1 \
		"'big.simg' (the Android sparse image claims 83886080 bytes, more than the 67108864 of its" \
		limited "$E2VERITY" $cmd big.simg /a
done
check "... unchanged, nothing in TMPDIR" sh -c 'cmp -s big.simg big.orig && test -z "$(ls -A tmp)"'

# a header that claims less than its filesystem: a truncated image, refused by every command
{
	header 17 2
	chunk 0xcac1 1 $((12 + 4096))
	head -c 4096 base.img
	chunk 0xcac3 16 12
} >trunc.simg
all_refuse trunc.simg \
	"'trunc.simg' is truncated: its filesystem is 67108864 bytes, but its chunks only 69632"

finish
