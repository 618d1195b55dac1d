#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-preflight-xattr.sh - issue 36: every extended attribute and EA inode of every target is read
# before anything is written for any file. Five files, the last one's attributes damaged (an EA
# inode that lost its flag, its links or its size, one that is the file itself, an attribute block
# with a bad checksum or magic number): seal and unseal refuse the whole run, name the file and
# the structure, say to run e2fsck -f, and leave the image byte for byte as it was. Before this
# check an inline-data file's attributes were read only when its data moved, after the first four
# files' trees and descriptors were written ("0 of 5 files sealed", written blocks left free).
# The same images undamaged seal, and e2fsck -fn finds them clean.
# Oracles: debugfs (inodes, blocks), e2fsck -fn (the damage is damage), fsverity digest, sha256sum.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd sha256sum
t_tmpdir
cd "$T_TMP" || exit 1

msg="Extended attribute or EA inode is damaged (run e2fsck -f first)"
files="/f1 /f2 /f3 /f4 /f5"

mkdir src src4
for i in 1 2 3 4; do
	# of this size the first trees reach the image before the fifth file's turn (the known failure)
	seeded src4/f$i 20000 $i
	cp src4/f$i src/
done
# small enough to be inline data where the filesystem has the feature; written last, so that its
# inode is the last one of the run (files are sealed in inode order)
printf 'a small file, kept in its inode\n' >src/f5
# too large for the inode and for an attribute block: with ea_inode, an EA inode holds it (debugfs
# 1.47.0's ea_set -f takes at most a block)
seeded big.val 4096 9
# too large for the inode: the attributes go to a block
head -c 300 /dev/zero | tr '\0' v >mid.val

ino_of()
{
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'
}
acl_of()
{
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*File ACL: *\([0-9]*\).*/\1/p'
}
# ea_flagged IMG: the inodes flagged EXT4_EA_INODE_FL among the first 64
ea_flagged()
{
	i=1
	while [ $i -le 64 ]; do
		echo "stat <$i>"
		i=$((i + 1))
	done | debugfs -f - "$1" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\) .*Flags: *\(0x[0-9a-f]*\).*/\1 \2/p; s/^Inode: *\([0-9]*\) .*/\1 0/p' |
		while read -r ef_i ef_f; do
			[ $((ef_f & 0x200000)) -eq 0 ] || echo "$ef_i"
		done
}
# ea_entry_off IMG INO: the byte offset in IMG of e_value_inum in INO's first in-inode entry
ea_entry_off()
{
	eo_where=$(debugfs -R "imap <$2>" "$1" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	eo_bs=$(fs_block_size "$1")
	# shellcheck disable=SC2086 # block and offset, word-split
	set -- "$1" $eo_where
	eo_inode=$(($2 * eo_bs + $3))
	eo_extra=$(od -An -tu2 -j $((eo_inode + 128)) -N2 "$1" | tr -d ' ')
	# the magic number, then e_name_len, e_name_index, e_value_offs and e_value_inum
	echo $((eo_inode + 128 + eo_extra + 4 + 4))
}
# ea_inode_of IMG INO: the inode that INO's first in-inode entry names (e_value_inum)
ea_inode_of()
{
	od -An -tu4 -j "$(ea_entry_off "$1" "$2")" -N4 "$1" | tr -d ' '
}
# mkfive IMG MKE2FS_OPTIONS... : the five files, /f5 the last inode, with user.big (its value from
# the file $val), e2fsck -fy'd (debugfs 1.47.0 does not count an EA inode's blocks in its parent's
# i_blocks), clean
mkfive()
{
	mf_img=$1
	shift
	mkimg "$mf_img" src4 16M -b 4096 "$@" || return 1
	debugfs -w -R "write src/f5 f5" "$mf_img" >/dev/null 2>&1
	debugfs -w -R "ea_set -f $val /f5 user.big" "$mf_img" >/dev/null 2>&1
	for mf_p in /f1 /f2 /f3 /f4; do
		[ "$(ino_of "$mf_img" $mf_p)" -lt "$(ino_of "$mf_img" /f5)" ] || return 1
	done
	e2fsck -fy "$mf_img" >/dev/null 2>&1
	fsck_clean "$mf_img"
}
# refused NAME IMG PATTERN COMMAND...: exit 1, PATTERN on stderr, no file sealed or unsealed,
# IMG's sha256 as it was
refused()
{
	rf_name=$1 rf_img=$2 rf_pattern=$3
	shift 3
	rf_sum=$(sha256sum <"$rf_img")
	expect_fail "$rf_name" 1 "$rf_pattern" "$@"
	same "$rf_name: the image's sha256" "$(sha256sum <"$rf_img")" "$rf_sum"
	check "$rf_name: no file reported written" sh -c "! grep -q 'files sealed\|files unsealed' '$T_TMP/err'"
}
# damaged NAME IMG PATTERN: e2fsck -fn sees PATTERN (the damage is e2fsck's to repair)
damaged()
{
	e2fsck -fn "$2" >fsck.out 2>&1
	check "$1: e2fsck -fn finds it" grep -q "$3" fsck.out
}

fsverity_lines src . >want.lines

# ---- an EA inode on an inline-data file: the known failure -------------------------------------
val=big.val
mkfive inline.img -O verity,ea_inode,inline_data || fail "inline: mke2fs"
check "inline: /f5 is inline data" test $(($(inode_flags inline.img /f5) & 0x10000000)) -ne 0
i5=$(ino_of inline.img /f5)
ea=$(ea_flagged inline.img)
check "inline: one EA inode, /f5's" test "$(echo "$ea" | wc -w)" -eq 1

cp inline.img good.img
"$E2VERITY" seal good.img $files >out 2>err
check "inline, undamaged: seal of five files" test $? -eq 0
check "inline, undamaged: the digests are fsverity's" sh -c 'LC_ALL=C sort out | cmp -s - want.lines'
check "inline, undamaged: e2fsck -fn clean" fsck_clean good.img
check "inline, undamaged: /f5 keeps user.big" sh -c "debugfs -R 'ea_get -f got.val /f5 user.big' good.img >/dev/null 2>&1 && cmp -s got.val big.val"

cp inline.img noflag.img
debugfs -w -R "sif <$ea> flags 0x80000" noflag.img >/dev/null 2>&1
damaged "inline, EA inode without its flag" noflag.img "EA inode $ea for parent inode $i5 missing EA_INODE flag"
refused "inline, EA inode without its flag: seal" noflag.img \
	"^e2verity: $msg while checking '/f5' (EA inode $ea for user.big: not flagged as one (EXT4_EA_INODE_FL))$" \
	"$E2VERITY" seal noflag.img $files
refused "inline, EA inode without its flag: seal -j2 --manifest" noflag.img "while checking '/f5' (EA inode $ea" \
	"$E2VERITY" seal -j2 --manifest=m.txt noflag.img $files
refused "inline, EA inode without its flag: seal -n" noflag.img "while checking '/f5' (EA inode $ea" \
	"$E2VERITY" seal -n noflag.img $files

# ---- extent-mapped files, EA inode damaged in several ways -------------------------------------
mkfive ext.img -O verity,ea_inode || fail "extents: mke2fs"
i5=$(ino_of ext.img /f5)
ea=$(ea_inode_of ext.img "$i5")
check "extents: /f5's first attribute is in an EA inode" test "${ea:-0}" -gt "$i5"

cp ext.img links.img
debugfs -w -R "sif <$ea> links_count 0" links.img >/dev/null 2>&1
damaged "extents, EA inode unlinked" links.img "Inode bitmap differences\|zero dtime"
refused "extents, EA inode unlinked: seal" links.img \
	"^e2verity: $msg while checking '/f5' (EA inode $ea for user.big: its link count is 0)$" \
	"$E2VERITY" seal links.img $files

cp ext.img size.img
debugfs -w -R "sif <$ea> size 100" size.img >/dev/null 2>&1
refused "extents, EA inode of another size: seal" size.img \
	"while checking '/f5' (EA inode $ea for user.big: 100 bytes, the attribute says 4096)$" \
	"$E2VERITY" seal size.img $files

cp ext.img freed.img
debugfs -w -R "freei <$ea>" freed.img >/dev/null 2>&1
damaged "extents, EA inode free in the bitmap" freed.img "Inode bitmap differences"
refused "extents, EA inode free in the bitmap: seal" freed.img \
	"while checking '/f5' (EA inode $ea for user.big: free in the inode bitmap)$" \
	"$E2VERITY" seal freed.img $files

# the entry names the file itself, or another target: bytes edited, so no inode checksums here
mkfive self.img -O verity,ea_inode,^metadata_csum || fail "self: mke2fs"
i5=$(ino_of self.img /f5)
ea=$(ea_inode_of self.img "$i5")
check "self: /f5's first attribute is in an EA inode" test "${ea:-0}" -gt "$i5"
cp self.img other.img
ea_off=$(ea_entry_off self.img "$i5")
put_le32 self.img "$ea_off" "$i5"
same "self: the entry names /f5 now" "$(ea_inode_of self.img "$i5")" "$i5"
damaged "self: the entry names /f5" self.img "Inode $i5 has illegal extended attribute value inode $i5"
refused "self-referencing EA inode: seal" self.img \
	"^e2verity: $msg while checking '/f5' (EA inode $i5 for user.big: the file itself)$" \
	"$E2VERITY" seal self.img $files
i1=$(ino_of other.img /f1)
put_le32 other.img "$ea_off" "$i1"
refused "an entry naming another target: seal" other.img \
	"while checking '/f5' (EA inode $i1 for user.big: not flagged as one (EXT4_EA_INODE_FL))$" \
	"$E2VERITY" seal other.img $files

# an entry naming an inode on a filesystem without ea_inode: the kernel refuses the attributes
seeded small.val 40 10
val=small.val
mkfive noea.img -O verity,^metadata_csum || fail "no ea_inode: mke2fs"
i5=$(ino_of noea.img /f5)
i1=$(ino_of noea.img /f1)
put_le32 noea.img "$(ea_entry_off noea.img "$i5")" "$i1"
same "no ea_inode: the entry names /f1 now" "$(ea_inode_of noea.img "$i5")" "$i1"
check "no ea_inode: e2fsck -fn finds it" sh -c '! e2fsck -fn noea.img >/dev/null 2>&1'
refused "no ea_inode feature: seal" noea.img \
	"while checking '/f5' (EA inode $i1 for user.big: the filesystem has no ea_inode feature)$" \
	"$E2VERITY" seal noea.img $files

# ---- unseal: the five sealed, then the EA inode damaged ------------------------------------------
cp ext.img un.img
"$E2VERITY" seal -q un.img $files
check "unseal: five files sealed" test $? -eq 0
check "unseal: sealed image clean" fsck_clean un.img
i5=$(ino_of un.img /f5)
ea=$(ea_inode_of un.img "$i5")
cp un.img unok.img
debugfs -w -R "sif <$ea> flags 0x80000" un.img >/dev/null 2>&1
refused "unseal, EA inode without its flag" un.img \
	"^e2verity: $msg while unsealing '/f5' (EA inode $ea for user.big: not flagged as one (EXT4_EA_INODE_FL))$" \
	"$E2VERITY" unseal un.img $files
"$E2VERITY" unseal -q unok.img $files
check "unseal, undamaged: five files unsealed" test $? -eq 0
check "unseal, undamaged: e2fsck -fn clean" fsck_clean unok.img

# ---- the attribute block of the last target ----------------------------------------------------
val=mid.val
mkfive blk.img -O verity || fail "block: mke2fs"
blk=$(acl_of blk.img /f5)
check "block: /f5's attributes are in a block" test "${blk:-0}" -ne 0
cp blk.img csum.img
# the last byte of the value, at the block's end: only the checksum says so
flip_at csum.img $((blk * 4096 + 4095)) 1
damaged "block checksum" csum.img "extended attribute block $blk\|Extended attribute block $blk"
refused "block checksum: seal" csum.img \
	"^e2verity: $msg while checking '/f5' (xattr block $blk: Extended attribute block checksum does not match block)$" \
	"$E2VERITY" seal csum.img $files
cp blk.img un2.img
"$E2VERITY" seal -q un2.img $files
check "block: sealed" test $? -eq 0
flip_at un2.img $((blk * 4096 + 4095)) 1
refused "block checksum: unseal" un2.img \
	"while unsealing '/f5' (xattr block $blk: Extended attribute block checksum does not match block)$" \
	"$E2VERITY" unseal un2.img $files

mkfive blkn.img -O verity,^metadata_csum || fail "block, no checksums: mke2fs"
blk=$(acl_of blkn.img /f5)
put_le32 blkn.img $((blk * 4096)) 0
damaged "block magic" blkn.img "$blk"
refused "block magic: seal" blkn.img \
	"^e2verity: $msg while checking '/f5' (xattr block $blk: Extended attribute block has a bad header)$" \
	"$E2VERITY" seal blkn.img $files

# ---- a block two inline files share, with the right count: both sealed in one run ---------------
# Moving the first one's data rewrites its attributes into a block of its own and lowers the shared
# block's count; the second one's judgement must count one inode less, not refuse mid-run.
mkdir srcs
printf 'one\n' >srcs/a
printf 'two\n' >srcs/b
mkimg shared.img srcs 16M -b 4096 -O verity,inline_data || fail "shared: mke2fs"
debugfs -w -R "ea_set -f mid.val /a user.big" shared.img >/dev/null 2>&1
sblk=$(acl_of shared.img /a)
printf 'sif /b file_acl %s\nsif /b blocks %s\n' "$sblk" \
	$(($(inode_field shared.img /b Blockcount) + 8)) | debugfs -w -f - shared.img >/dev/null 2>&1
e2fsck -fy shared.img >/dev/null 2>&1
check "shared: e2fsck -fy gave the block its count, clean" fsck_clean shared.img
"$E2VERITY" seal shared.img /a /b >out 2>err
check "shared, count 2: seal /a /b" test $? -eq 0
check "shared, count 2: e2fsck -fn clean" fsck_clean shared.img
check "shared, count 2: one file keeps the block, the other has its own" \
	test "$(acl_of shared.img /a)" != "$(acl_of shared.img /b)"
for p in /a /b; do
	check "shared, count 2: $p keeps user.big" sh -c "debugfs -R 'ea_get -f got.val $p user.big' shared.img >/dev/null 2>&1 && cmp -s got.val mid.val"
done
finish
