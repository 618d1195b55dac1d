#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-refuse.sh - every refusal of e2verity seal: its one-line message, its exit status, and an
# image left byte for byte as it was
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd tune2fs flock
t_tmpdir
cd "$T_TMP" || exit 1

# refuse NAME STATUS PATTERN IMAGE SEAL-ARGS...: seal must fail with PATTERN and write nothing
refuse()
{
	rf_name=$1 rf_status=$2 rf_pattern=$3 rf_img=$4
	shift 4
	cp "$rf_img" before.img
	expect_fail "$rf_name" "$rf_status" "$rf_pattern" "$E2VERITY" seal "$@"
	cmp -s "$rf_img" before.img || fail "$rf_name: the image changed"
	[ "$(grep -c . "$T_TMP/err")" -eq "${EXPECT_LINES:-1}" ] ||
		fail "$rf_name: $(grep -c . "$T_TMP/err") error lines, want ${EXPECT_LINES:-1}: $(cat "$T_TMP/err")"
	[ ! -s "$T_TMP/out" ] || fail "$rf_name: printed digests: $(cat "$T_TMP/out")"
}

mkdir -p src/dir
printf 'hello\n' >src/good
rand_bytes 100000 >src/big
ln -s good src/link
mkimg ok.img src 16M -b 4096
debugfs -w -R "mknod chardev c 1 3" ok.img >/dev/null 2>&1
for f in encrypted dax append immutable; do debugfs -w -R "write src/big $f" ok.img >/dev/null 2>&1; done
debugfs -w -R "sif /encrypted flags 0x80800" ok.img >/dev/null 2>&1
debugfs -w -R "sif /dax flags 0x2080000" ok.img >/dev/null 2>&1
debugfs -w -R "sif /append flags 0x80020" ok.img >/dev/null 2>&1
debugfs -w -R "sif /immutable flags 0x80010" ok.img >/dev/null 2>&1

# what cannot be selected
refuse "missing path" 1 "No such file or directory while looking up '/missing'" ok.img ok.img /missing
refuse "directory without -r" 1 "Is a directory while checking '/dir'" ok.img ok.img /dir
refuse "symlink" 1 "Not a regular file while checking '/link'" ok.img ok.img /link
refuse "character device" 1 "Not a regular file while checking '/chardev'" ok.img ok.img /chardev
refuse "encrypted" 1 "File is encrypted (its key is needed to seal it) while checking '/encrypted'" \
	ok.img ok.img /encrypted
refuse "DAX" 1 "File has the DAX flag, which excludes fs-verity while checking '/dax'" ok.img \
	ok.img /dax
refuse "append-only" 1 "File is append-only while checking '/append'" ok.img ok.img /append
# as the kernel's enable (EPERM): unseal could not give the flag back, since it clears the one
# that seal --immutable sets
refuse "immutable" 1 "File is immutable (the kernel refuses fs-verity on it, EPERM); clear the flag first while checking '/immutable'" \
	ok.img ok.img /immutable
# every offending file is named, and the good one is not written either
EXPECT_LINES=3 refuse "several bad, one good" 1 "Not a regular file while checking '/link'" ok.img \
	ok.img /good /link /missing /dir
grep -q "while looking up '/missing'" err && grep -q "while checking '/dir'" err ||
	fail "several bad: not every file named: $(cat err)"
EXPECT_LINES=2 refuse "files-from with a bad line" 1 "No such file or directory while looking up '/nothere'" ok.img \
	--files-from=- ok.img <<EOF
/good
/nothere
/link
EOF

# filesystems that cannot take a verity file
mkimg ext3.img src 16M -b 4096 -O ^extent,^flex_bg,^64bit,^metadata_csum
refuse "no extent feature" 1 "Filesystem does not have the extent feature while checking 'ext3.img'" \
	ext3.img ext3.img /good
cp ext3.img mapped.img
tune2fs -O extent mapped.img >/dev/null 2>&1
refuse "block-mapped file" 1 \
	"File does not use extents (block-mapped files cannot be sealed) while checking '/big'" \
	mapped.img mapped.img /big
mkimg 1k.img src 16M -b 1024
refuse "Merkle block larger than fs block" 1 \
	"Merkle tree block size exceeds the filesystem block size while checking '1k.img' (--block-size=1024 works with Linux 6.3 and later)" \
	1k.img 1k.img /good
if mke2fs -q -F -t ext4 -b 4096 -O bigalloc -C 16384 -d src bigalloc.img 32M >/dev/null 2>&1; then
	refuse "bigalloc" 1 "bigalloc filesystems are not supported while checking 'bigalloc.img'" \
		bigalloc.img bigalloc.img /good
fi
cp ok.img recover.img
debugfs -w -R "feature needs_recovery" recover.img >/dev/null 2>&1
refuse "journal needs recovery" 1 "Filesystem journal needs recovery (run e2fsck -f first)" \
	recover.img recover.img /good

# already sealed
cp ok.img sealed.img
"$E2VERITY" seal -q sealed.img /good /big || fail "sealing the test file"
refuse "sealed with another hash" 1 \
	"File is already sealed with other parameters (--force reseals it) while checking '/good'" sealed.img \
	--hash-alg=sha512 sealed.img /good
refuse "sealed with another salt" 1 "already sealed with other parameters" sealed.img \
	--salt=abcd sealed.img /big
cp sealed.img broken.img
# a zero size word: the kernel cannot find the descriptor
pblk=$(debugfs -R "bmap /big $(($(last_lblk_end broken.img /big) - 1))" broken.img 2>/dev/null)
printf '\000\000\000\000' | dd of=broken.img bs=1 seek=$((pblk * 4096 + 4092)) conv=notrunc 2>/dev/null
refuse "sealed, metadata unreadable" 1 \
	"File is sealed but its fs-verity metadata is unreadable (--force reseals it) while checking '/big'" \
	broken.img broken.img /big

# not enough room: fill the image, leaving fewer free blocks than one tree needs
mkimg full.img src 8M -b 4096 -O ^has_journal
free=$(sb_field full.img "Free blocks")
rand_bytes $(((free - 1) * 4096)) >filler
debugfs -w -R "write filler filler" full.img >/dev/null 2>&1
check "the filler fits" fsck_clean full.img
refuse "not enough space" 1 "Not enough free blocks for the Merkle trees while checking 'full.img'" \
	full.img full.img /big /filler

# the image itself
refuse "no such image" 1 "No such file or directory while opening 'nope.img'" ok.img nope.img /good
# the subshell becomes the sleep that holds the lock: killing it releases the lock
(flock -x 9 && : >locked && exec sleep 60) 9<ok.img &
locker=$!
n=0
while [ ! -e locked ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
refuse "locked by another process" 1 "Image is locked by another process while locking 'ok.img'" \
	ok.img ok.img /good
kill "$locker" 2>/dev/null
wait "$locker" 2>/dev/null
"$E2VERITY" seal -q ok.img /good || fail "the lock is released when its holder ends: exit $?"
# a mounted image: only where a loop mount is possible (root, loop devices)
mkdir mnt
if [ "$(id -u)" -eq 0 ] && mount -o loop,ro ok.img mnt 2>/dev/null; then
	refuse "mounted image" 1 "Filesystem is mounted while opening 'ok.img' for writing" ok.img ok.img /good
	umount mnt
else
	echo "note: no loop mount here; the mounted-image refusal is not exercised" >&2
fi

# usage errors: status 2, the reason and the usage
EXPECT_LINES=$((1 + $("$E2VERITY" seal --help | sed -n "/^Usage:/,/^\$/p" | grep -c .)))
refuse "no image" 2 "no IMAGE given" ok.img
refuse "no path" 2 "no PATH given" ok.img ok.img
refuse "relative path" 2 "'good' is not an absolute path inside the image (paths start with '/')" \
	ok.img ok.img good
refuse "bad thread count" 2 "invalid thread count '0'" ok.img -j 0 ok.img /good
refuse "bad hash" 2 "unknown hash algorithm 'md5'" ok.img --hash-alg=md5 ok.img /good
refuse "digest-only option" 2 "belong to digest" ok.img --out-merkle-tree=t ok.img /good
refuse "undo in a dry run" 2 "nothing to undo in a dry run" ok.img -n -z u ok.img /good
refuse "unknown option" 2 "unrecognized option '--bogus'" ok.img --bogus ok.img /good
check "no undo file left by a refusal" test ! -e u
finish
