#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-fs-end.sh - a seal whose metadata ends at the filesystem's last block can be resealed and
# unsealed (libext2fs before 1.47.3 cannot punch a run ending there): e2fsck clean, data intact
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
rand_bytes 100000 >src/f
mkimg base.img src 8M -b 1024 || { fail "mke2fs"; finish; }
bc=$(sb_field base.img "Block count")
# the data's last physical block, and how many blocks a seal adds
data_end=$(leaf_extents base.img /f | tail -n 1 | awk '{ split($2, p, "-"); print p[2] }')
cp base.img probe.img
"$E2VERITY" seal -q --block-size=1024 probe.img /f || fail "probe seal: exit $?"
meta=$(leaf_extents probe.img /f | tail -n 1 | awk '{ print $3 }')

# Every free block in use but one right after the data (below the allocation goal, for the
# pre-flight's spare block) and the last $meta: the seal lands at the very end.  debugfs marks
# them in the bitmap only, and frees them again once the seal is in place.
fill_first=$((data_end + 2))
fill_count=$((bc - meta - fill_first))
cp base.img end.img
debugfs -w -R "setb $fill_first $fill_count" end.img >/dev/null 2>&1
"$E2VERITY" seal -q --block-size=1024 end.img /f || fail "seal at the end: exit $?"
debugfs -w -R "freeb $fill_first $fill_count" end.img >/dev/null 2>&1
last=$(leaf_extents end.img /f | tail -n 1 | awk '{ split($2, p, "-"); print p[2] }')
[ "$last" = $((bc - 1)) ] || { fail "setup: the metadata ends at block $last, not $((bc - 1))"; finish; }
fsck_clean end.img || { fail "setup: e2fsck"; finish; }

cp end.img reseal.img
"$E2VERITY" seal -q --force --block-size=1024 --salt=aa reseal.img /f ||
	fail "--force with the old metadata at the end: exit $?"
check "--force at the end: e2fsck clean" fsck_clean reseal.img
check_sealed reseal.img /f src/f --block-size=1024 --salt=aa >/dev/null || fail "--force at the end: resealed"

cp end.img unseal.img
"$E2VERITY" unseal unseal.img /f >/dev/null || fail "unseal with the metadata at the end: exit $?"
check "unseal at the end: e2fsck clean" fsck_clean unseal.img
debugfs -R "dump /f $T_TMP/f.out" unseal.img 2>/dev/null
check "unseal at the end: data intact" cmp -s f.out src/f
check "unseal at the end: only the data blocks left" test "$(last_lblk_end unseal.img /f)" -eq 98
check "unseal at the end: the last block is free" sh -c \
	"debugfs -R 'testb $((bc - 1))' unseal.img 2>/dev/null | grep -q 'not in use'"
finish
