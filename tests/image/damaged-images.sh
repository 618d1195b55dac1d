#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# damaged-images.sh - images e2fsck would repair first (corrupt group descriptors, inodes in the unused
# area, a zeroed primary superblock): seal and unseal refuse them and leave them byte for byte as they were
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd debugfs
t_tmpdir
cd "$T_TMP" || exit 1

# refuse NAME PATTERN IMAGE PATH: seal and unseal must exit 1 with PATTERN and write nothing
refuse()
{
	rf_name=$1 rf_pattern=$2 rf_img=$3 rf_path=$4
	cp "$rf_img" before.img
	for rf_cmd in seal unseal; do
		expect_fail "$rf_name: $rf_cmd" 1 "$rf_pattern" "$E2VERITY" "$rf_cmd" "$rf_img" "$rf_path"
		cmp -s "$rf_img" before.img || fail "$rf_name: $rf_cmd changed the image"
	done
}

mkdir -p src
printf 'hello\n' >src/good
printf 'other\n' >src/other
mkimg ok.img src 16M -b 4096 -O verity

# 1. corrupt primary group descriptors (ext2fs_check_desc fails; e2fsck uses the backups)
cp ok.img gd.img
debugfs -w -R "set_bg 0 block_bitmap 0" gd.img >/dev/null 2>&1
refuse "bad block bitmap location" "bad block for block bitmap while checking the group descriptors of 'gd.img' (the primary group descriptors are corrupt; run e2fsck -f" \
	gd.img /good
# the same with a checksum that matches the corrupt descriptor
debugfs -w -R "set_bg 0 checksum calc" gd.img >/dev/null 2>&1
refuse "bad block bitmap, good checksum" "bad block for block bitmap while checking the group descriptors of 'gd.img'" \
	gd.img /good
cp ok.img gd2.img
debugfs -w -R "set_bg 0 inode_table 1" gd2.img >/dev/null 2>&1
debugfs -w -R "set_bg 0 checksum calc" gd2.img >/dev/null 2>&1
refuse "inode table over the superblock" "Corrupt group descriptor: bad block for inode table while checking the group descriptors" \
	gd2.img /good

# 2. directory entries naming inodes e2fsck treats as free: every file is judged before anything is
# written, so the healthy file named first is not sealed either
ino_of()
{
	debugfs -R "stat \"$2\"" "$1" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'
}
hi=/good lo=/other
[ "$(ino_of ok.img /good)" -gt "$(ino_of ok.img /other)" ] || { hi=/other lo=/good; }
hino=$(ino_of ok.img $hi)
ipg=$(dumpe2fs -h ok.img 2>/dev/null | sed -n 's/^Inodes per group: *//p')
cp ok.img unused.img
debugfs -w -R "set_bg 0 itable_unused $((ipg - hino + 1))" unused.img >/dev/null 2>&1
debugfs -w -R "set_bg 0 checksum calc" unused.img >/dev/null 2>&1
refuse "inode in the unused area" "Directory entry names an inode that is not in use (run e2fsck -f first) while [a-z]* '$hi' (inode $hino: in group 0's unused area (bg_itable_unused $((ipg - hino + 1))))" \
	unused.img $hi
cp unused.img before.img
expect_fail "unused area, healthy file first" 1 "while checking '$hi' (inode $hino:" "$E2VERITY" seal unused.img $lo $hi
cmp -s unused.img before.img || fail "unused area, healthy file first: the image changed"
cp ok.img uninit.img
debugfs -w -R "set_bg 0 flags 1" uninit.img >/dev/null 2>&1
debugfs -w -R "set_bg 0 checksum calc" uninit.img >/dev/null 2>&1
refuse "inode in an INODE_UNINIT group" "not in use (run e2fsck -f first) while [a-z]* '$hi' (inode $hino: its group 0 is marked INODE_UNINIT)" \
	uninit.img $hi
cp ok.img freei.img
debugfs -w -R "freei $hi" freei.img >/dev/null 2>&1
refuse "inode free in the bitmap" "not in use (run e2fsck -f first) while [a-z]* '$hi' (inode $hino: free in the inode bitmap)" \
	freei.img $hi

# 3. a zeroed primary superblock with intact backups: writing commands name the backup and the
# e2fsck -b that repairs the image; read-only ones read through the backup and warn
mkimg sb1k.img src 16M -b 1024 -O verity
dd if=/dev/zero of=sb1k.img bs=1024 seek=1 count=1 conv=notrunc 2>/dev/null
refuse "zeroed superblock, 1 KiB blocks" "Bad magic number in super-block while opening 'sb1k.img' (the primary superblock is damaged; the backup at block 8193 is intact: run e2fsck -b 8193 -B 1024 sb1k.img)" \
	sb1k.img /good
# 4 KiB blocks: group 1 starts at block 32768, so the image needs two groups; a sealed file is read
mkimg sb4k.img src 160M -b 4096 -O verity
check "4 KiB image seals" sh -c '"$0" seal sb4k.img /good >/dev/null' "$E2VERITY"
digest=$("$E2VERITY" measure sb4k.img /good 2>/dev/null)
dd if=/dev/zero of=sb4k.img bs=1024 seek=1 count=1 conv=notrunc 2>/dev/null
refuse "zeroed superblock, 4 KiB blocks" "the primary superblock is damaged; the backup at block 32768 is intact: run e2fsck -b 32768 -B 4096 sb4k.img)" \
	sb4k.img /good
cp sb4k.img before.img
warning="warning: the primary superblock of 'sb4k.img' is damaged (Bad magic number in super-block); reading through the backup at block 32768 (e2fsck -b 32768 -B 4096 repairs it)"
"$E2VERITY" check sb4k.img >out 2>err
st=$?
[ "$st" -eq 0 ] || fail "check through the backup: exit $st: $(cat err)"
grep -qF "$warning" err || fail "check through the backup: no warning: $(cat err)"
grep -q "1 file checked, 1 passed, 0 failed" out || fail "check through the backup: $(cat out)"
got=$("$E2VERITY" measure sb4k.img /good 2>err)
[ -n "$digest" ] && [ "$got" = "$digest" ] || fail "measure through the backup: '$got', want '$digest'"
grep -qF "$warning" err || fail "measure through the backup: no warning: $(cat err)"
cmp -s sb4k.img before.img && pass "read-only commands leave the image as it was" ||
	fail "a read-only command changed sb4k.img"

# the healthy image still seals and unseals
cp ok.img work.img
check "healthy image seals" sh -c '"$0" seal work.img /good >/dev/null' "$E2VERITY"
check "healthy image unseals" "$E2VERITY" unseal work.img /good
finish
