#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-options.sh - selection (-r, --files-from, --exclude, hard links), dry run, skip/--force,
# --immutable, timestamps, reproducibility, -z undo, -q/-v, and files with blocks or bytes past EOF
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd e2undo
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p src/etc/sub src/usr/bin src/var
printf 'config\n' >src/etc/a.conf
rand_bytes 70000 >src/etc/sub/b.bin
rand_bytes 5000 >src/etc/skip.tmp
rand_bytes 300000 >src/usr/bin/tool
ln src/usr/bin/tool src/usr/bin/tool-hardlink
printf 'log\n' >src/var/log
mkimg base.img src 32M -b 4096

# sealed NAME IMG PATH...: each PATH has EXT4_VERITY_FL; unsealed: none has it
sealed()
{
	verity_is 1 "is not sealed" "$@"
}
unsealed()
{
	verity_is 0 "is sealed" "$@"
}
# verity_is WANT WRONG NAME IMG PATH...: EXT4_VERITY_FL is WANT (0 or 1) on each PATH, else
# "PATH WRONG" fails NAME
verity_is()
{
	vi_want=$1 vi_wrong=$2 vi_name=$3 vi_img=$4
	shift 4
	for vi_p in "$@"; do
		vi_f=$(inode_flags "$vi_img" "$vi_p")
		[ $((vi_f >> 20 & 1)) -eq "$vi_want" ] ||
			{ fail "$vi_name: $vi_p $vi_wrong ($vi_f)"; return; }
	done
	pass "$vi_name"
}

# -r and --exclude
cp base.img r.img
"$E2VERITY" seal -q -r --exclude='*.tmp' --exclude='/etc/sub/*' r.img /etc || fail "-r: exit $?"
sealed "-r seals the files under the directory" r.img /etc/a.conf
unsealed "-r leaves the rest; --exclude skips basename and path globs" r.img \
	/etc/skip.tmp /etc/sub/b.bin /usr/bin/tool /var/log
check "-r: e2fsck clean" fsck_clean r.img

cp base.img none.img
"$E2VERITY" seal -r --exclude='*' none.img /etc >none.out 2>none.err || fail "nothing selected: exit $?"
check "nothing selected: said so, image unchanged" sh -c \
	"grep -q \"no regular file selected in 'none.img'\" none.err && cmp -s none.img base.img"

# --files-from, from a file and from standard input; blank lines ignored
cp base.img ff.img
printf '/etc/a.conf\n\n/var/log\n' >list
"$E2VERITY" seal --files-from=list ff.img >ff.out || fail "--files-from: exit $?"
echo /usr/bin/tool | "$E2VERITY" seal --files-from=- ff.img >>ff.out || fail "--files-from=-: exit $?"
sealed "--files-from" ff.img /etc/a.conf /var/log /usr/bin/tool
unsealed "--files-from: nothing else" ff.img /etc/skip.tmp /etc/sub/b.bin
check "--files-from: 3 digest lines" test "$(wc -l <ff.out)" -eq 3
want=$(check_sealed ff.img /usr/bin/tool src/usr/bin/tool) || fail "--files-from: /usr/bin/tool"
check "--files-from: digest printed" grep -qxF "$want" ff.out

# hard links: one inode, sealed and printed once, under the first name in sorted order
cp base.img hl.img
"$E2VERITY" seal -a hl.img >hl.out || fail "-a with hard links: exit $?"
check "hard link sealed once" test "$(grep -c /usr/bin/tool hl.out)" -eq 1
check "hard link: first name printed" grep -q ' /usr/bin/tool$' hl.out
check_sealed hl.img /usr/bin/tool-hardlink src/usr/bin/tool >/dev/null || fail "hard link: check"
want=$(check_sealed hl.img /usr/bin/tool src/usr/bin/tool) || fail "hard link: check"
check "hard link: e2fsck clean" fsck_clean hl.img

# dry run: what would happen and the blocks it needs, nothing written
cp base.img dry.img
"$E2VERITY" seal -n -a dry.img >dry.out || fail "-n: exit $?"
check "-n writes nothing" cmp -s dry.img base.img
check "-n lists each file" test "$(grep -c '^seal /' dry.out)" -eq 5
check "-n counts blocks" grep -q '^5 files, [0-9]* blocks needed, [0-9]* free$' dry.out
# 1 tree block (74 data blocks) + 1 descriptor block; the inode holds their extents
check "-n: tool needs tree + descriptor blocks" grep -qx 'seal /usr/bin/tool (2 blocks at most)' dry.out

# already sealed with the same parameters: skipped, exit 0, image unchanged
cp hl.img again.img
"$E2VERITY" seal again.img /usr/bin/tool /var/log >again.out 2>again.err ||
	fail "sealing again: exit $?"
check "sealing again changes nothing" cmp -s again.img hl.img
# a count, not a line per file (a resumed run meets thousands); -v names each
check "sealing again says so, once" grep -qx \
	"e2verity: 2 files are already sealed with these parameters; skipped (-v names them)" again.err
check "sealing again: one line on stderr" test "$(wc -l <again.err)" -eq 1
check "sealing again prints the digests" grep -qxF "$want" again.out
"$E2VERITY" seal -v again.img /usr/bin/tool /var/log >/dev/null 2>again-v.err ||
	fail "sealing again -v: exit $?"
check "sealing again -v names each" sh -c "grep -q \"'/var/log' is already sealed with these parameters; skipped\" again-v.err && grep -q \"'/usr/bin/tool' is already sealed\" again-v.err"
"$E2VERITY" seal -n again.img /var/log >again-n.out || fail "dry run of a sealed file: exit $?"
check "-n shows the skip" grep -q '^already sealed, skip /var/log' again-n.out

# --force: reseal with other parameters; the old metadata is released
cp hl.img force.img
"$E2VERITY" seal --force --hash-alg=sha512 --salt=aa force.img /usr/bin/tool >force.out ||
	fail "--force: exit $?"
want=$(check_sealed force.img /usr/bin/tool src/usr/bin/tool --hash-alg=sha512 --salt=aa) ||
	fail "--force: resealed file"
check "--force: sha512 digest printed" grep -qxF "$want" force.out
check "--force: e2fsck clean (old blocks freed)" fsck_clean force.img
cp base.img sha512.img
"$E2VERITY" seal -q --hash-alg=sha512 sha512.img /usr/bin/tool || fail "sha512: exit $?"
check "--force: same block count as a first seal" test \
	"$(inode_field force.img /usr/bin/tool Blockcount)" = "$(inode_field sha512.img /usr/bin/tool Blockcount)"
# --force into Merkle blocks smaller than the fs block, where the new tree ends halfway into the
# block that held the old descriptor and size word (read while the old seal was inspected): the
# rest of that block is tree padding and must be zero, not the old bytes
# 524289 B: sha512/4K tree 16 KiB, descriptor in the 5th block; sha256/1K tree 18 KiB
# 458753 B: sha256/1K tree 16 KiB, descriptor in the 5th block; sha512/2K tree 18 KiB
mkdir -p rs
rand_bytes 524289 >rs/a
rand_bytes 458753 >rs/b
mkimg rs.img rs 32M -b 4096
if "$E2VERITY" seal -q --hash-alg=sha512 rs.img /a && "$E2VERITY" seal -q --block-size=1024 rs.img /b &&
	"$E2VERITY" seal -q --force --block-size=1024 rs.img /a &&
	"$E2VERITY" seal -q --force --block-size=2048 --hash-alg=sha512 rs.img /b; then
	check_sealed rs.img /a rs/a --block-size=1024 >/dev/null || fail "--force: sha512/4K to 1K tree"
	check_sealed rs.img /b rs/b --block-size=2048 --hash-alg=sha512 >/dev/null ||
		fail "--force: 1K to sha512/2K tree"
	check "--force to a smaller tree block: e2fsck clean" fsck_clean rs.img
else
	fail "--force to a smaller tree block: exit $?"
fi
# --force repairs unreadable metadata
cp hl.img broken.img
pblk=$(debugfs -R "bmap /usr/bin/tool $(($(last_lblk_end broken.img /usr/bin/tool) - 1))" broken.img 2>/dev/null)
printf '\377\377\377\377' | dd of=broken.img bs=1 seek=$((pblk * 4096 + 4092)) conv=notrunc 2>/dev/null
"$E2VERITY" seal -q --force broken.img /usr/bin/tool || fail "--force on broken metadata: exit $?"
check_sealed broken.img /usr/bin/tool src/usr/bin/tool >/dev/null || fail "--force: repaired"
check "--force repaired: e2fsck clean" fsck_clean broken.img

# --immutable sets the flag too; without it only VERITY_FL and EXTENTS_FL
cp base.img imm.img
"$E2VERITY" seal -q --immutable imm.img /var/log || fail "--immutable: exit $?"
check "--immutable: flags 0x180010" test "$(inode_flags imm.img /var/log)" = 0x180010
check "without --immutable: flags 0x180000" test "$(inode_flags hl.img /var/log)" = 0x180000
check "--immutable: e2fsck clean" fsck_clean imm.img

# timestamps: sealing is not a content change
for f in /var/log /usr/bin/tool; do
	debugfs -R "stat $f" base.img 2>/dev/null | grep 'time:' >t.before
	debugfs -R "stat $f" hl.img 2>/dev/null | grep 'time:' >t.after
	check "times of $f kept" cmp -s t.before t.after
done

# reproducible: same image and arguments, same bytes, whatever the thread count (and whether or
# not SOURCE_DATE_EPOCH is set, as a package build sets it)
cp base.img rep1.img
cp base.img rep2.img
"$E2VERITY" seal -q -a -j 1 rep1.img || fail "rep1: exit $?"
"$E2VERITY" seal -q -a -j 4 rep2.img || fail "rep2: exit $?"
check "same input, same output image" cmp -s rep1.img rep2.img
# without SOURCE_DATE_EPOCH the write time stays what it was
cp base.img nosde.img
(
	unset SOURCE_DATE_EPOCH
	"$E2VERITY" seal -q -a nosde.img
) || fail "without SOURCE_DATE_EPOCH: exit $?"
check "superblock write time kept" \
	test "$(sb_field nosde.img "Last write time")" = "$(sb_field base.img "Last write time")"
cp base.img sde.img
SOURCE_DATE_EPOCH=1000000000 "$E2VERITY" seal -q -a sde.img || fail "SOURCE_DATE_EPOCH: exit $?"
check "SOURCE_DATE_EPOCH sets the write time" test \
	"$(TZ=UTC0 sb_field sde.img "Last write time")" = "Sun Sep  9 01:46:40 2001"

# -z: e2undo puts every byte back
cp base.img undo.img
with_undo "$E2VERITY" seal -q -a -z undo.e2undo undo.img || fail "-z: exit $?"
check "-z: sealed" fsck_clean undo.img
e2undo undo.e2undo undo.img >/dev/null 2>&1 || fail "e2undo: exit $?"
check "-z: e2undo restores the original image" cmp -s undo.img base.img

# -q prints nothing, -v says what was done
cp base.img v.img
"$E2VERITY" seal -q v.img /var/log >q.out 2>q.err || fail "-q: exit $?"
check "-q: silent" test ! -s q.out -a ! -s q.err
"$E2VERITY" seal -v v.img /etc/a.conf >v.out 2>v.err || fail "-v: exit $?"
check "-v: details" grep -q "^e2verity: /etc/a.conf: sealed, 7 bytes, 4096-byte tree blocks, \
metadata at blocks 16-16, 1 block allocated, 0 freed$" v.err

# stale bytes after EOF, initialized blocks past EOF, unwritten blocks past EOF
rand_bytes 20000 >stale
head -c 3000 stale >stale.data
cp base.img past.img
debugfs -w -f - past.img >/dev/null 2>&1 <<EOF
write stale stale
sif stale size 3000
write src/etc/a.conf prealloc
fallocate prealloc 1 40
EOF
cp past.img past-base.img
# -j2: the files are hashed ahead, and the thread that reads them also looks at the tail
for j in -j1 -j2; do
	cp past-base.img past.img
	"$E2VERITY" seal $j -v past.img /stale /prealloc >past.out 2>past.err || fail "past EOF $j: exit $?"
	check "$j: stale tail zeroed, blocks past EOF freed" grep -q \
		"/stale: sealed, 3000 bytes.*, 4 freed, stale bytes after EOF zeroed" past.err
	check "$j: unwritten blocks past EOF freed" grep -q "/prealloc: sealed, 7 bytes.*, 40 freed$" past.err
	check_sealed past.img /stale stale.data >/dev/null || fail "$j stale: check"
	check_sealed past.img /prealloc src/etc/a.conf >/dev/null || fail "$j prealloc: check"
	check "past EOF $j: e2fsck clean" fsck_clean past.img
done

# quota: the blocks a seal adds are charged to the file's user, group and project
mkimg quota.img src 32M -b 4096 -O quota,project,inline_data -I 256
debugfs -w -f - quota.img >/dev/null 2>&1 <<EOF
sif /etc/sub/b.bin uid 1000
sif /etc/sub/b.bin gid 2000
sif /usr/bin/tool projid 7
EOF
# mke2fs -d (1.47.0) and debugfs leave the usage stale: start from a clean image
e2fsck -fy quota.img >/dev/null 2>&1
if fsck_clean quota.img; then
	"$E2VERITY" seal -q -a quota.img || fail "quota: exit $?"
	check "quota: usage charged, e2fsck clean" fsck_clean quota.img
else
	fail "quota: e2fsck -fy did not clean the test image"
fi
finish
