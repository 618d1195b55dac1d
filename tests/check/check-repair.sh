#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-repair.sh - check -p rewrites damaged Merkle tree blocks (every level; 4 KiB and 1 KiB
# trees; SHA-256 and SHA-512, salted; signed) back to fsverity-utils' tree, the descriptor and
# signature bytes unchanged and e2fsck clean; a flipped data byte is never repaired by -p or -y;
# -y rebuilds a zeroed descriptor only to a trusted digest (the manifest, or a signature --cert
# verifies), never without one; -z writes an undo file; images with and without a journal
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd openssl e2undo
t_tmpdir
cd "$T_TMP" || exit 1

# the files, and the fsverity options each is sealed with (the same for the oracle)
opts_of()
{
	case $1 in
	/k1) echo "--block-size=1024" ;;
	/s512) echo "--hash-alg=sha512 --salt=5eed0102" ;;
	*) echo ;;
	esac
}
FILES="/l0 /top /three /k1 /s512 /signed /data /ok"
mkdir src
seeded src/l0 600000 1
seeded src/top 600000 2
# 3 levels of SHA-256 4 KiB blocks: 70,000,000 B are 17090 blocks: 134, 2 and 1 tree blocks
make_sparse src/three 70000000
seeded src/k1 1500000 3
seeded src/s512 300000 4
seeded src/signed 200000 5
seeded src/data 300000 6
seeded src/ok 5000 7
self_signed key.pem cert.pem

# sealed IMG: the files sealed, each with its options
sealed()
{
	"$E2VERITY" seal -q "$1" /l0 /top /three /data /ok &&
		"$E2VERITY" seal -q --block-size=1024 "$1" /k1 &&
		"$E2VERITY" seal -q --hash-alg=sha512 --salt=5eed0102 "$1" /s512 &&
		"$E2VERITY" seal -q --key=key.pem --cert=cert.pem "$1" /signed
}
mkimg j.img src 128M -b 4096 || exit 1
mkimg nj.img src 128M -b 4096 -O ^has_journal || exit 1
sealed j.img && sealed nj.img || { fail "sealing the images"; finish; }

# the oracle: fsverity-utils' digest and tree of each source file
for f in $FILES; do
	# shellcheck disable=SC2046 # options are separate words
	fsverity digest $(opts_of "$f") --out-merkle-tree="tree.${f#/}" "src$f" |
		sed "s| src$f\$| $f|"
done >want.txt
"$E2VERITY" measure --all --json j.img >want.json

# level_off FILE LEVEL: the byte offset in FILE's stored tree (root level first) of LEVEL's first
# block (0 = the level that hashes the data), from its size and tree parameters
level_off()
{
	lo_size=$(stat -c %s "src$1")
	lo_bs=4096
	lo_hs=32
	case $1 in
	/k1) lo_bs=1024 ;;
	/s512) lo_hs=64 ;;
	esac
	lo_n=$(((lo_size + lo_bs - 1) / lo_bs))
	lo_levels=
	while [ "$lo_n" -gt 1 ]; do
		lo_n=$(((lo_n + lo_bs / lo_hs - 1) / (lo_bs / lo_hs)))
		lo_levels="$lo_levels $lo_n"
	done
	# the levels above LEVEL come first
	lo_off=0
	lo_l=0
	for lo_b in $lo_levels; do
		[ "$lo_l" -gt "$2" ] && lo_off=$((lo_off + lo_b * lo_bs))
		lo_l=$((lo_l + 1))
	done
	echo "$lo_off"
}

# flip_tree IMG FILE LEVEL [BYTE]: flips a byte of the first block of LEVEL in FILE's stored tree
flip_tree()
{
	ft_pos=$(($(metadata_pos "$(stat -c %s "src$2")") + $(level_off "$2" "$3") + ${4:-17}))
	flip "$1" "$2" "$ft_pos"
}

# dumps IMG TAG: each file's descriptor and signature (and tree) as dump reads them
dumps()
{
	for f in $FILES; do
		for t in descriptor signature merkle_tree; do
			"$E2VERITY" dump "$1" "$f" "$t" >"$2.${f#/}.$t" 2>/dev/null
		done
	done
}

# damage IMG: tree blocks flipped at every level of several files; /data: a data byte too
damage()
{
	flip_tree "$1" /l0 0 &&
		flip_tree "$1" /top 1 &&
		flip_tree "$1" /three 0 100 && flip_tree "$1" /three 1 && flip_tree "$1" /three 2 &&
		flip_tree "$1" /k1 0 && flip_tree "$1" /k1 1 5 && flip_tree "$1" /k1 2 &&
		flip_tree "$1" /s512 0 && flip_tree "$1" /s512 1 &&
		flip_tree "$1" /signed 0 &&
		flip_tree "$1" /data 0 && flip "$1" /data 4100
}

for img in j.img nj.img; do
	dumps "$img" before
	cp "$img" damaged.img
	damage damaged.img || { fail "$img: flipping bytes"; continue; }
	cp damaged.img p.img
	"$E2VERITY" check p.img >out 2>&1
	same "$img damaged: check -n exit 4" $? 4
	check "$img damaged: check -n leaves the image as it was" cmp -s p.img damaged.img
	"$E2VERITY" check -p p.img >out 2>err
	same "$img: check -p repairs and leaves /data: exit 5 (1 corrected, 4 left)" $? 5
	for f in /l0 /top /three /k1 /s512 /signed; do
		check "$img $f: said to be repaired" grep -q "^$f (inode [0-9]*): repaired: " out
	done
	check "$img /data: said not to be repaired" grep -q "^/data (inode [0-9]*): not repaired: " out
	dumps p.img after
	for f in /l0 /top /three /k1 /s512 /signed; do
		check "$img $f: the tree is fsverity-utils' again" cmp -s "after.${f#/}.merkle_tree" "tree.${f#/}"
	done
	for f in $FILES; do
		check "$img $f: descriptor bytes unchanged" cmp -s "before.${f#/}.descriptor" "after.${f#/}.descriptor"
	done
	check "$img /signed: signature bytes unchanged" \
		sh -c "test -s before.signed.signature && cmp -s before.signed.signature after.signed.signature"
	check "$img /data: its damaged tree is left as it was" \
		sh -c "! cmp -s before.data.merkle_tree after.data.merkle_tree"
	check "$img: e2fsck -fn clean after -p" fsck_clean p.img
	"$E2VERITY" check --cert=cert.pem p.img >out 2>&1
	same "$img after -p: only /data fails" "$(grep -c ': error ' out) $(grep -c '^/data ' out)" "1 1"
	"$E2VERITY" measure --all p.img | LC_ALL=C sort >got.txt
	check "$img after -p: every digest as fsverity digest says" sh -c "LC_ALL=C sort want.txt | cmp -s - got.txt"

	# a flipped data byte: neither -p nor -y with the manifest makes it pass
	cp damaged.img y.img
	"$E2VERITY" check -p y.img >/dev/null 2>&1
	"$E2VERITY" check -y --manifest=want.txt y.img >out 2>&1
	same "$img: -y --manifest with a damaged data block: exit 4" $? 4
	check "$img: -y says why /data is left" grep -q "^/data (inode [0-9]*): not repaired: The data gives no trusted digest" out
	"$E2VERITY" dump y.img /data merkle_tree >y.tree
	"$E2VERITY" dump damaged.img /data merkle_tree >d.tree
	check "$img: -y wrote nothing of /data's tree" cmp -s y.tree d.tree
	rm -f y.tree d.tree
done

# everything repairable: exit 1; -z writes the undo file that e2undo takes back
cp j.img p.img
flip_tree p.img /l0 0 && flip_tree p.img /k1 2 || fail "flips"
cp p.img p0.img
with_undo "$E2VERITY" check -p -z undo.e2undo p.img >out 2>err
same "all repairable: exit 1" $? 1
check "the undo file is written" test -s undo.e2undo
"$E2VERITY" check p.img >/dev/null 2>&1
same "after -p: clean" $? 0
e2undo undo.e2undo p.img >/dev/null 2>&1
check "e2undo takes the repair back" cmp -s p.img p0.img

# -y: a zeroed descriptor is rebuilt only to a trusted digest
zero_desc()
{
	zd_size=$(stat -c %s "src$2")
	zd_tree=$(stat -c %s "tree.${2#/}")
	read -r _m zd_dpos _e <<EOL
$(verity_layout "$zd_size" "$zd_tree" "${3:-0}" 4096)
EOL
	zd_off=$(img_offset "$1" "$2" "$zd_dpos") || return 1
	dd if=/dev/zero of="$1" bs=1 seek="$zd_off" count=256 conv=notrunc status=none
}
for img in j.img nj.img; do
	cp "$img" y.img
	zero_desc y.img /l0 && zero_desc y.img /k1 || fail "zeroing descriptors"
	cp y.img y0.img
	"$E2VERITY" check -y y.img >out 2>&1
	same "$img zeroed descriptors, -y without a manifest: exit 4" $? 4
	check "$img: nothing written without a trusted digest" cmp -s y.img y0.img
	check "$img: said why" grep -q "^/l0 (inode [0-9]*): not repaired: no trusted digest" out
	"$E2VERITY" check -p y.img >/dev/null 2>&1
	check "$img: -p does not touch a zeroed descriptor" cmp -s y.img y0.img
	# the text manifest records no block size: /k1's 1 KiB tree is not found
	"$E2VERITY" check -y --manifest=want.txt y.img >out 2>&1
	same "$img -y, text manifest: /l0 rebuilt, /k1 not (exit 5)" $? 5
	check "$img: /l0 resealed to the manifest's digest" \
		grep -q "^/l0 (inode [0-9]*): repaired: resealed to $(grep ' /l0$' want.txt | cut -d' ' -f1), which the manifest lists" out
	check "$img: /k1 left, its parameters unknown" grep -q "^/k1 (inode [0-9]*): not repaired: " out
	# the JSON manifest records them
	"$E2VERITY" check -y --manifest=want.json y.img >out 2>&1
	same "$img -y, JSON manifest: /k1 rebuilt (exit 1)" $? 1
	"$E2VERITY" measure --all y.img | LC_ALL=C sort >got.txt
	check "$img -y: every digest as fsverity digest says" sh -c "LC_ALL=C sort want.txt | cmp -s - got.txt"
	"$E2VERITY" dump y.img /k1 merkle_tree >k1.tree
	check "$img -y: /k1's tree is fsverity-utils'" cmp -s k1.tree tree.k1
	check "$img -y: e2fsck -fn clean" fsck_clean y.img
	"$E2VERITY" check --manifest=want.txt y.img >/dev/null 2>&1
	same "$img -y: the image is the manifest's again" $? 0

	# a signed file's descriptor: its signature, verified, is the trusted digest
	cp "$img" s.img
	"$E2VERITY" dump s.img /signed signature >sig.before
	zero_desc s.img /signed "$(stat -c %s sig.before)" || fail "zeroing /signed's descriptor"
	cp s.img s0.img
	"$E2VERITY" check -y s.img >out 2>&1
	same "$img signed, -y without --cert: exit 4" $? 4
	check "$img signed: nothing written" cmp -s s.img s0.img
	"$E2VERITY" check -y --cert=cert.pem s.img >out 2>&1
	same "$img signed, -y --cert: exit 1" $? 1
	check "$img signed: trusted by its signature" grep -q "which its signature verifies; its signature kept" out
	"$E2VERITY" dump s.img /signed signature >sig.after
	check "$img signed: the signature bytes unchanged" cmp -s sig.before sig.after
	"$E2VERITY" check --cert=cert.pem --require-signatures s.img /signed >/dev/null 2>&1
	same "$img signed: verifies again" $? 0
	check "$img signed: e2fsck -fn clean" fsck_clean s.img

	# a listed file that was unsealed (its flag cleared): sealed again to the manifest's digest
	cp "$img" u.img
	debugfs -w -R 'sif /ok flags 0x80000' u.img >/dev/null 2>&1
	"$E2VERITY" check -y --manifest=want.txt u.img >out 2>&1
	same "$img unsealed /ok, -y --manifest: exit 1" $? 1
	"$E2VERITY" check --manifest=want.txt u.img >/dev/null 2>&1
	same "$img: /ok sealed again as the manifest says" $? 0
	check "$img: e2fsck -fn clean" fsck_clean u.img
done

# a tree larger than the journal (16 MiB) and than the copies -p keeps (64 MiB): an 8 GiB sparse
# file's 16517 tree blocks, nearly all zeroed, are rewritten in several commits, hashed twice
mkdir huge
truncate -s $((8 * 1024 * 1024 * 1024 + 4096)) huge/h
printf abc | dd of=huge/h bs=1 seek=12345 conv=notrunc status=none
mkimg h.img huge 200M -b 4096 || exit 1
"$E2VERITY" seal -q h.img /h || fail "seal of the 8 GiB file"
fsverity digest --out-merkle-tree=tree.h huge/h >/dev/null
hpos=$(metadata_pos $((8 * 1024 * 1024 * 1024 + 4096)))
first=$(img_offset h.img /h "$hpos")
# one run of blocks on disk, so that one dd zeroes the tree's and nothing else
[ "$(img_offset h.img /h $((hpos + 16499 * 4096)))" -eq $((first + 16499 * 4096)) ] ||
	fail "the 8 GiB file's tree is not contiguous on disk"
dd if=/dev/zero of=h.img bs=4096 seek=$((first / 4096)) count=16500 conv=notrunc status=none
"$E2VERITY" check -p h.img >out 2>&1
same "16500 tree blocks zeroed: exit 1" $? 1
check "16500 tree blocks zeroed: said" grep -q 'repaired: 16500 of 16517 Merkle tree blocks' out
"$E2VERITY" dump h.img /h merkle_tree | cmp -s - tree.h
same "the 8 GiB file's tree is fsverity-utils' again" $? 0
check "e2fsck -fn clean after several commits" fsck_clean h.img
finish
