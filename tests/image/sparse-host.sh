#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sparse-host.sh - Android sparse images on the host: sealed through a symbolic link (the image it
# names is sealed, the link stays), mode, owner and attributes kept, a hard-linked one or one in a
# directory not writable refused before any work; the copy in TMPDIR expanded once, holes kept, no
# name left there even after kill -9; a chunk table that claims more than the file holds refused
# before anything is expanded; -z refused. Oracles: simg2img, e2fsck -fn, debugfs, stat of the
# kernel's view of the copy (/proc/PID/fd), the chunk table read by Python.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd img2simg simg2img python3 mke2fs e2fsck debugfs
t_tmpdir
cd "$T_TMP" || exit 1
mkdir tmp src o
TMPDIR=$T_TMP/tmp
export TMPDIR

seeded src/a 300000 41
printf 'hello\n' >src/hello
mkimg raw.img src 64M -b 4096 -O verity
img2simg raw.img base.simg || fail "img2simg"

# expanded IMG: the sparse image expanded by simg2img, clean and /a sealed
sealed_in()
{
	simg2img "$1" "$1.raw" && e2fsck -fn "$1.raw" >/dev/null 2>&1 &&
		[ $(($(inode_flags "$1.raw" /a) & 0x100000)) -ne 0 ]
}
tmp_empty()
{
	[ -z "$(ls -A tmp)" ]
}

# ---- through a symbolic link: the image it names is sealed, the link stays a link ----
cp base.simg o/real.simg
ln -s real.simg o/link.simg
"$E2VERITY" seal -q o/link.simg /a
check "seal LINK.simg: exit 0" test $? -eq 0
check "seal LINK.simg: still a symbolic link" test -L o/link.simg
check "seal LINK.simg: the image it names is sealed, e2fsck clean" sealed_in o/real.simg

# ---- mode, owner, group kept; no temporary file left beside it ----
cp base.simg o/private.simg
chmod 600 o/private.simg
[ "$(id -u)" -eq 0 ] && chown nobody:nogroup o/private.simg
before=$(stat -c '%a %U %G' o/private.simg)
"$E2VERITY" seal -q o/private.simg /a
check "seal of a private sparse image: its mode, owner, group kept ($before)" \
	test "$(stat -c '%a %U %G' o/private.simg)" = "$before"
check "seal of a private sparse image: sealed" sealed_in o/private.simg
check "no temporary file beside the images, none in TMPDIR" \
	sh -c '! ls -A o | grep -q e2verity && test -z "$(ls -A tmp)"'

# ---- a hard-linked image is refused before anything is done ----
cp base.simg o/h1.simg
ln o/h1.simg o/h2.simg
expect_fail "a hard-linked sparse image: refused" 1 "it has 2 hard links" \
	"$E2VERITY" seal -q o/h1.simg /a
check "a hard-linked sparse image: unchanged, still linked" \
	sh -c 'cmp -s o/h1.simg base.simg && test "$(stat -c %h o/h1.simg)" -eq 2'

# ---- a directory where no new file can be made: said before the work ----
# as another user where the tests run as root (root may write in any directory)
other_user
as_user=$AS_USER
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
	chmod 755 "$T_TMP"
	mkdir ro && cp base.simg ro/img.simg && chmod 666 ro/img.simg && chmod 555 ro
	chmod 777 tmp
	expect_fail "a sparse image in a directory not writable: refused" 1 \
		"no new file can be made in 'ro'" \
		$as_user "$E2VERITY" seal -q ro/img.simg /a
	check "... and unchanged" cmp -s ro/img.simg base.simg
	# check reads it as well as ever
	$as_user "$E2VERITY" check ro/img.simg >/dev/null 2>&1
	check "check of it by the same user: exit 0" test $? -eq 0
	chmod 755 ro
fi

# ---- -z has nothing to undo in a sparse image: refused ----
cp base.simg o/z.simg
expect_fail "-z on a sparse image: refused" 1 \
	"'o/z.simg' is an Android sparse image, which -z cannot protect: e2undo cannot undo it" \
	"$E2VERITY" seal -q -z o/z.undo o/z.simg /a
check "-z on a sparse image: the reason alone, no errno text" sh -c "! grep -q 'Invalid argument' '$T_TMP/err'"
check "-z on a sparse image: unchanged, no undo file" \
	sh -c 'cmp -s o/z.simg base.simg && test ! -e o/z.undo'

# ---- the copy in TMPDIR: one, without a name, holes kept; kill -9 leaves nothing ----
# half the image is a file of zeros, which img2simg encodes as a fill chunk
mkdir src2
seeded src2/a 300000 42
head -c 30000000 /dev/zero >src2/zeros
mkimg raw2.img src2 64M -b 4096 -O verity
img2simg raw2.img big.simg
cp big.simg o/big.simg
mkfifo list
"$E2VERITY" seal -q --files-from=list o/big.simg &
pid=$!
trap 'kill -9 $pid 2>/dev/null; rm -rf "$T_TMP"' EXIT
# the selection is read after the image was expanded: look at the copy while it waits
for _ in 1 2 3 4 5 6 7 8 9 10; do
	copy=$(ls -l /proc/$pid/fd 2>/dev/null | sed -n 's/.* -> \(.*\/tmp\/.*(deleted)\)$/\1/p')
	[ -n "$copy" ] && break
	sleep 0.5
done
# shellcheck disable=SC2010 # the names are fd numbers: grep reads the links' targets
fdn=$(ls -l /proc/$pid/fd 2>/dev/null | grep ' (deleted)$' | grep "$TMPDIR" | sed 's/.* \([0-9]*\) -> .*/\1/' | head -n 1)
check "the copy in TMPDIR has no name ('$copy')" test -n "$fdn"
if [ -n "$fdn" ]; then
	used=$(($(stat -L -c %b /proc/$pid/fd/$fdn) * $(stat -L -c %B /proc/$pid/fd/$fdn)))
	size=$(stat -L -c %s /proc/$pid/fd/$fdn)
	check "the copy keeps holes: $used bytes on the host for $size (zeros 30 MB)" \
		test "$used" -lt $((size / 4))
	ls -l /proc/$pid/fd >fds
	check "one copy at once" test "$(grep -o "$TMPDIR/#[0-9]*" fds | sort -u | wc -l)" -eq 1
fi
kill -9 $pid
wait $pid 2>/dev/null
check "after kill -9: nothing left in TMPDIR" tmp_empty
check "after kill -9: the sparse image unchanged" cmp -s o/big.simg big.simg

# the chunks after a seal: "don't care" only where there was "don't care" (zeros stay fills)
cat >chunks.py <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
_, _, _, fhs, chs, bs, blocks, n, _ = struct.unpack('<IHHHHIIII', d[:28])
p, blk, dc = fhs, 0, set()
for _ in range(n):
    t, _, cnt, size = struct.unpack('<HHII', d[p:p + 12])
    if t == 0xcac3:
        dc.update(range(blk, blk + cnt))
    if t != 0xcac4:
        blk += cnt
    p += size
print(' '.join(map(str, sorted(dc))) if len(sys.argv) < 3 else len(dc))
EOF
python3 chunks.py big.simg >dc.before
"$E2VERITY" seal -q o/big.simg /a /zeros
check "seal of the image with a fill of zeros: exit 0" test $? -eq 0
python3 chunks.py o/big.simg >dc.after
check "\"don't care\" blocks after the seal were \"don't care\" before" \
	python3 -c 'import sys; a=set(open("dc.after").read().split()); b=set(open("dc.before").read().split()); sys.exit(not a <= b)'
simg2img o/big.simg big.raw
debugfs -R "dump /zeros zeros.out" big.raw 2>/dev/null
check "the file of zeros reads back as zeros" cmp -s zeros.out src2/zeros
check "e2fsck -fn clean" sh -c 'e2fsck -fn big.raw >/dev/null 2>&1'
if command -v strace >/dev/null; then
	cp big.simg o/big2.simg
	strace -f -e trace=openat -o trace "$E2VERITY" seal -q --manifest=o/m o/big2.simg /a >/dev/null 2>&1
	check "seal with --manifest expands the sparse image once" \
		test "$(grep -c "\"$TMPDIR\".*O_TMPFILE" trace)" -eq 1
fi

# ---- two sparse images at once (diff): each read from its own copy, even with the same UUID ----
mkdir d1 d2
seeded d1/a 300000 61
seeded d2/a 300000 62
uuid=$(cat /proc/sys/kernel/random/uuid 2>/dev/null || echo 2b1f6d4e-6c1a-4c9e-9b7a-3f0c2d1e5a77)
mkimg r1.img d1 48M -b 4096 -U "$uuid"
mkimg r2.img d2 48M -b 4096 -U "$uuid"
img2simg r1.img s1.simg && img2simg r2.img s2.simg
"$E2VERITY" seal -q s1.simg /a && "$E2VERITY" seal -q s2.simg /a
"$E2VERITY" diff --verify s1.simg s2.simg >diff.out 2>&1
check "diff --verify of two sparse images with one UUID: exit 1, they differ" test $? -eq 1
check "... /a changed from the digest of one source to the other's" \
	grep -qxF "changed   $(fsverity digest d1/a | cut -d' ' -f1) $(fsverity digest d2/a | cut -d' ' -f1) /a" diff.out

# ---- chunk tables that claim more than the file holds: refused before anything is expanded ----
# damage KIND OUT: a copy of base.simg with its header or a chunk lying
cat >damage.py <<'EOF'
import struct, sys
d = bytearray(open('base.simg', 'rb').read())
kind, out = sys.argv[1], sys.argv[2]
fhs, chs = struct.unpack('<HH', d[8:12])
first = fhs
if kind == 'chunks':      # a header that claims a billion chunks
    struct.pack_into('<I', d, 20, 1 << 30)
elif kind == 'raw':       # the first raw chunk claims far more data than the file has
    p = first
    while struct.unpack('<H', d[p:p + 2])[0] != 0xcac1:
        p += struct.unpack('<I', d[p + 8:p + 12])[0]
    cnt = 1 << 18
    struct.pack_into('<II', d, p + 4, cnt, 12 + cnt * 4096)
elif kind == 'fill':      # a fill of 0xff...: 16 TiB, no filesystem in it, nothing expanded
    d = d[:28] + struct.pack('<HHII', 0xcac2, 0, 0xffffffff, 16) + b'\xff\xff\xff\xff'
    struct.pack_into('<II', d, 16, 0xffffffff, 1)
elif kind == 'blocks':    # chunks that hold fewer blocks than the header
    struct.pack_into('<I', d, 16, struct.unpack('<I', d[16:20])[0] + 5)
elif kind == 'type':
    struct.pack_into('<H', d, first, 0xcaff)
open(out, 'wb').write(d)
EOF
for k in chunks:"claims 1073741824 chunks, more than" raw:"past its end at byte" \
	fill:"hold no ext4 filesystem" blocks:"its chunks hold" type:"unknown type 0xcaff"; do
	kind=${k%%:*}
	python3 damage.py "$kind" bad.simg
	cp bad.simg bad.orig
	expect_fail "a sparse image whose $kind lie: refused" 1 "${k#*:}" "$E2VERITY" seal -q bad.simg /a
	check "... unchanged, nothing in TMPDIR" sh -c 'cmp -s bad.simg bad.orig && test -z "$(ls -A tmp)"'
	expect_fail "... check says so too (exit 8)" 8 "${k#*:}" "$E2VERITY" check bad.simg
done
finish
