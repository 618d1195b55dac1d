#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# disk-images.sh - images as image builders make them: a GPT disk (an ESP of random bytes, an ext4
# root made with mke2fs -E offset=) sealed and checked by --partition (number, name, UUID) and by
# IMAGE?offset=, every byte outside the partition unchanged; an MBR disk; an Android sparse image
# from img2simg sealed and written back sparse. Oracles: fsverity digest, e2fsck -fn on the partition
# cut out with dd and on the image expanded by simg2img, and the kernel reading both (one boot).
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd sfdisk mke2fs e2fsck fsverity dd cmp python3
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
make_data src/a 300000
make_data src/b 4096
printf 'hello\n' >src/hello
make_sparse src/holes 5000000
digest_of()
{
	fsverity digest "src$1" | cut -d' ' -f1
}

# ---- a GPT disk: 1 MiB, an 8 MiB ESP of random bytes, a 24 MiB ext4 root, 7 MiB after ----
start=18432 # sectors
size=49152
off=$((start * 512))
len=$((size * 512))
truncate -s 40M disk.img
printf '%s\n' 'label: gpt' \
	'start=2048, size=16384, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="esp"' \
	"start=$start, size=$size, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=\"root\"" |
	sfdisk -q disk.img || fail "sfdisk"
make_data esp $((16384 * 512))
dd if=esp of=disk.img bs=512 seek=2048 conv=notrunc status=none
mke2fs -q -F -t ext4 -b 4096 -O verity -d src -E offset=$off disk.img 24M >/dev/null 2>&1 ||
	fail "mke2fs -E offset="
uuid=$(sfdisk --part-uuid disk.img 2 2>/dev/null)
cp disk.img orig.img

"$E2VERITY" seal --partition=root disk.img /a >out 2>err
check "seal --partition=NAME: exit 0" test $? -eq 0
check "seal --partition=NAME: the digest of fsverity" grep -qxF "$(digest_of /a) /a" out
"$E2VERITY" seal --partition=2 disk.img /b >/dev/null 2>&1
check "seal --partition=NUMBER: exit 0" test $? -eq 0
"$E2VERITY" seal "disk.img?offset=$off" /hello /holes >/dev/null 2>&1
check "seal IMAGE?offset=: exit 0" test $? -eq 0
[ -n "$uuid" ] && {
	"$E2VERITY" check --partition="$uuid" disk.img >out 2>&1
	check "check --partition=UUID: 4 files passed" grep -q ': 4 files checked, 4 passed, 0 failed' out
}
"$E2VERITY" check -v --partition=2 disk.img >out 2>&1
check "check --partition=2: exit 0" test $? -eq 0
for p in /a /b /hello /holes; do
	check "check --partition: $p has the digest of fsverity" grep -qxF "ok $(digest_of $p) $p" out
done
"$E2VERITY" measure "disk.img?offset=$off" /a /holes >out
check "measure IMAGE?offset=" sh -c "grep -qxF '$(digest_of /a) /a' out && grep -qxF '$(digest_of /holes) /holes' out"
"$E2VERITY" dump --partition=root disk.img /a descriptor >desc
check "dump --partition: a 256-byte descriptor" test "$(wc -c <desc)" -eq 256
check "the bytes before the partition are unchanged" \
	sh -c "cmp -s -n $off disk.img orig.img"
check "the bytes after the partition are unchanged" \
	sh -c "cmp -s -i $((off + len)) disk.img orig.img"
dd if=disk.img of=root.img bs=512 skip=$start count=$size status=none
check "the partition cut out: e2fsck -fn clean" sh -c "e2fsck -fn root.img >/dev/null 2>&1"
"$E2VERITY" unseal --partition=root disk.img /b >/dev/null 2>&1
check "unseal --partition: exit 0" test $? -eq 0
check "unseal --partition: outside unchanged" \
	sh -c "cmp -s -n $off disk.img orig.img && cmp -s -i $((off + len)) disk.img orig.img"
"$E2VERITY" seal -q --partition=root disk.img /b || fail "sealing /b again"
dd if=disk.img of=root.img bs=512 skip=$start count=$size status=none

# what cannot be: the ESP, a partition that is not there, one past the end, a filesystem too big
cp disk.img before.img
expect_fail "--partition=esp: not ext4" 1 \
	"while opening 'disk.img' (partition 1 is not an ext4 filesystem" \
	"$E2VERITY" seal --partition=esp disk.img /a
# said of the disk, with the partitions it has, and no errno text ("No such file or directory")
expect_fail "--partition=9: no such partition (check: fsck's 8)" 8 \
	"^e2verity: 'disk.img' has no partition number '9' (its partitions: 1 'esp', 2 'root')$" \
	"$E2VERITY" check --partition=9 disk.img
expect_fail "--partition=nope: no such name" 1 \
	"^e2verity: 'disk.img' has no partition named 'nope' (its partitions: 1 'esp', 2 'root')$" \
	"$E2VERITY" measure --partition=nope disk.img /a
expect_fail "--partition of an image without a partition table" 1 \
	"^e2verity: 'root.img' has no partition table (--partition=2)$" \
	"$E2VERITY" measure --partition=2 root.img /a
expect_fail "--partition and ?offset=" 1 "exclude each other" \
	"$E2VERITY" seal --partition=2 "disk.img?offset=$off" /a
expect_fail "?offset= at no filesystem" 1 "(offset 4096 is not an ext4 filesystem" \
	"$E2VERITY" measure "disk.img?offset=4096" /a
expect_fail "an unknown io option: a usage error" 2 "unknown io option 'bogus=1'" \
	"$E2VERITY" unseal "disk.img?bogus=1" /a
expect_fail "--partition given twice" 2 "option '--partition' given twice" \
	"$E2VERITY" seal --partition=1 --partition=2 disk.img /a
check "refusals leave the disk unchanged" cmp -s disk.img before.img
cp orig.img big.img
mke2fs -q -F -t ext4 -b 4096 -O verity -E offset=$off big.img 28M >/dev/null 2>&1
expect_fail "a filesystem larger than its partition" 1 "larger than the $len there" \
	"$E2VERITY" seal --partition=2 big.img /a

# ---- an MBR disk: partitions by number ----
truncate -s 20M mbr.img
printf 'start=2048, size=30720, type=83\n' | sfdisk -q mbr.img || fail "sfdisk mbr"
mke2fs -q -F -t ext4 -b 4096 -O verity -d src -E offset=1048576 mbr.img 15M >/dev/null 2>&1
"$E2VERITY" seal -q --partition=1 mbr.img /a && "$E2VERITY" check --partition=1 mbr.img /a >out
check "MBR --partition=1: sealed and checked" grep -q ': 1 file checked, 1 passed' out
# an MBR has no backup table at the end: a cut image still shows a partition that runs past it
head -c 10485760 mbr.img >short.img
expect_fail "a partition past the end of the image" 1 \
	"(partition 1 ends at byte 16777216, past the end of the image at 10485760)" \
	"$E2VERITY" measure --partition=1 short.img /a

# ---- an Android sparse image ----
if command -v img2simg >/dev/null && command -v simg2img >/dev/null &&
	"$E2VERITY" check --help >/dev/null; then
	mke2fs -q -F -t ext4 -b 4096 -O verity -d src raw.img 48M >/dev/null 2>&1
	img2simg raw.img sparse.img
	# chunks: "raw", "fill" and "don't care" blocks, from the sparse format's headers
	cat >chunks.py <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
magic, _, _, fhs, _, bs, blocks, nchunks, _ = struct.unpack('<IHHHHIIII', d[:28])
assert magic == 0xed26ff3a, hex(magic)
kinds, p = {0xcac1: 0, 0xcac2: 0, 0xcac3: 0}, fhs
for _ in range(nchunks):
    t, _, n, size = struct.unpack('<HHII', d[p:p + 12])
    kinds[t] = kinds.get(t, 0) + n
    p += size
if len(sys.argv) > 2:  # turn the zero fills into "don't care" chunks, as other tools write
    out, p = bytearray(d[:fhs]), fhs
    for _ in range(nchunks):
        t, r, n, size = struct.unpack('<HHII', d[p:p + 12])
        if t == 0xcac2 and d[p + 12:p + 16] == b'\0\0\0\0':
            out += struct.pack('<HHII', 0xcac3, r, n, 12)
        else:
            out += d[p:p + size]
        p += size
    open(sys.argv[2], 'wb').write(out)
print(kinds[0xcac1], kinds[0xcac2], kinds[0xcac3])
EOF
	python3 chunks.py sparse.img holes.img >before.chunks
	read -r _ fill0 _ <before.chunks
	read -r _ _ dch <<EOF2
$(python3 chunks.py holes.img)
EOF2
	check "img2simg wrote fills ($fill0), the copy \"don't care\" chunks ($dch)" \
		sh -c "test $fill0 -gt 0 && test $dch -gt 0"
	"$E2VERITY" check sparse.img >out 2>&1
	check "check reads a sparse image" grep -q '^sparse.img: 0 files checked' out
	"$E2VERITY" seal sparse.img /a /b /hello /holes >out 2>err
	check "seal of a sparse image: exit 0" test $? -eq 0
	check "seal of a sparse image: the digests of fsverity" \
		grep -qxF "$(digest_of /holes) /holes" out
	read -r _ fill1 _ <<EOF2
$(python3 chunks.py sparse.img)
EOF2
	check "written back as a sparse image, fills kept ($fill0 -> $fill1 fill blocks)" \
		test "$fill1" -gt $((fill0 - 2000))
	"$E2VERITY" seal holes.img /a /b /hello /holes >/dev/null 2>&1
	read -r _ _ dc2 <<EOF2
$(python3 chunks.py holes.img)
EOF2
	check "\"don't care\" chunks stay holes ($dch -> $dc2 blocks)" test "$dc2" -gt $((dch - 2000))
	simg2img sparse.img expanded.img
	check "the expanded image: e2fsck -fn clean" sh -c "e2fsck -fn expanded.img >/dev/null 2>&1"
	simg2img holes.img expanded2.img
	check "the expanded image with holes: e2fsck -fn clean" \
		sh -c "e2fsck -fn expanded2.img >/dev/null 2>&1"
	"$E2VERITY" check -v expanded.img >out 2>&1
	check "check of the expanded image: 4 passed" grep -q ': 4 files checked, 4 passed' out
	"$E2VERITY" unseal sparse.img /b >/dev/null 2>&1
	simg2img sparse.img unsealed.img
	check "unseal of a sparse image: written back, e2fsck clean" \
		sh -c "e2fsck -fn unsealed.img >/dev/null 2>&1"
	"$E2VERITY" check sparse.img >out 2>&1
	check "unseal of a sparse image: 3 sealed files left" grep -q ': 3 files checked, 3 passed' out
	expect_fail "a sparse image with an offset" 1 "no offset" \
		"$E2VERITY" seal "holes.img?offset=4096" /a
	gzip -c sparse.img >sparse.gz
	expect_fail "a gzip-compressed image" 1 "(it is gzip-compressed: decompress it first)" \
		"$E2VERITY" seal sparse.gz /a
	check "no temporary raw copy is left" sh -c "! ls '${TMPDIR:-/tmp}'/e2verity-raw-* 2>/dev/null | grep -q ."
	have_sparse=1
else
	echo "note: img2simg/simg2img missing; the sparse image part is not run" >&2
fi

# ---- the kernel reads the partition cut out and the expanded sparse image: one boot ----
. "$top_srcdir/tests/kernel/kernel-lib.sh"
if kh_check; then
	set -- -r root.img
	[ -n "${have_sparse:-}" ] && set -- "$@" -r expanded.img
	cat >guest.sh <<'EOF'
mount_image /dev/vda /mnt/p ro || exit 1
measure_all /mnt/p/a /mnt/p/b /mnt/p/hello /mnt/p/holes
hash_all /mnt/p/a /mnt/p/b /mnt/p/hello /mnt/p/holes
if [ -e /dev/vdb ]; then
	mount_image /dev/vdb /mnt/s ro || exit 1
	measure_all /mnt/s/a /mnt/s/b /mnt/s/hello /mnt/s/holes
	hash_all /mnt/s/a /mnt/s/b /mnt/s/hello /mnt/s/holes
fi
EOF
	kh_boot "$@" -o kernel.out guest.sh
	st=$?
	check "the kernel boot ran the checks" test $st -eq 0
	dirs=p
	[ -n "${have_sparse:-}" ] && dirs="p s"
	for d in $dirs; do
		for f in a b hello holes; do
			check "kernel ($d): /$f measures as fsverity digest" \
				test "$(kh_get kernel.out MEASURE /mnt/$d/$f)" = "$(digest_of /$f)"
			check "kernel ($d): /$f reads back as its source" \
				test "$(kh_get kernel.out SHA256 /mnt/$d/$f)" = "$(sha256sum <src/$f | cut -d' ' -f1)"
		done
	done
else
	echo "note: kernel harness unavailable ($KH_WHY); the kernel part is not run" >&2
fi
finish
