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

#ITEM2

#ITEM3

# the healthy image still seals and unseals
cp ok.img work.img
check "healthy image seals" sh -c '"$0" seal work.img /good >/dev/null' "$E2VERITY"
check "healthy image unseals" "$E2VERITY" unseal work.img /good
finish
