#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# names-data.sh - a directory entry whose name holds a '/' ("../../../decoy") or a NUL is never
# joined into a path: seal -a refuses (naming the entry), no signature is read from outside
# --signatures-from, no manifest line names another file, check and measure never print it
#
# The entries are made by patching the name bytes of an ordinary entry in the image (no
# metadata_csum, so no directory block checksum to redo); e2fsck -fn is the oracle that the
# names are ones e2fsck calls illegal.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck debugfs python3 openssl
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p src/d
printf 'the file behind the bad name\n' >src/d/AA_AA_AA_decoy
printf 'a good file\n' >src/d/good
printf 'another\n' >src/d/nulXbyte
mke2fs -q -F -t ext4 -b 4096 -O ^metadata_csum -d src clean.img 8M >/dev/null 2>&1 || fail "mke2fs"

# patch IMG OLD NEW: the name OLD of an entry in /d becomes NEW (as many bytes)
patch_name()
{
	blk=$(debugfs -R 'bmap /d 0' "$1" 2>/dev/null)
	python3 - "$1" "$blk" "$2" "$3" <<'EOF'
import sys
img, blk, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4].encode()
new = new.replace(b'NUL', b'\0')
assert len(old) == len(new)
with open(img, 'r+b') as f:
    f.seek(blk * 4096)
    b = f.read(4096)
    i = b.index(old)
    f.seek(blk * 4096 + i)
    f.write(new)
EOF
}

# a sealed file whose name becomes "../../../decoy", and a name with a NUL in it
cp clean.img sealed.img
"$E2VERITY" seal -q sealed.img /d/AA_AA_AA_decoy || fail "sealing /d/AA_AA_AA_decoy"
cp sealed.img slash.img
patch_name slash.img AA_AA_AA_decoy ../../../decoy || fail "patching the name"
cp clean.img nul.img
patch_name nul.img nulXbyte nulNULbyte || fail "patching the name"
e2fsck -fn slash.img >fsck.out 2>&1
check "e2fsck -fn calls the '/' name illegal" grep -q "illegal characters in its name" fsck.out
e2fsck -fn nul.img >fsck.out 2>&1
check "e2fsck -fn calls the NUL name illegal" grep -q "illegal characters in its name" fsck.out

# seal -a, -r, and a dry run's manifest: refused, the entry named escaped, nothing written
for img in slash nul; do
	cp $img.img $img.before
	case $img in slash) shown='\.\.\\x2f\.\.\\x2f\.\.\\x2fdecoy' ;; nul) shown='nul\\x00byte' ;; esac
	expect_fail "$img: seal -a refused" 1 \
		"while reading directory '/d': the entry '$shown' (inode [0-9]*) is not a name a path can hold" \
		"$E2VERITY" seal -a $img.img
	expect_fail "$img: seal -r refused" 1 "is not a name a path can hold" "$E2VERITY" seal -r $img.img /d
	expect_fail "$img: seal -n --manifest refused" 1 "is not a name a path can hold" \
		"$E2VERITY" seal -n -a --manifest=$img.m $img.img
	check "$img: no manifest written" test ! -e $img.m
	check "$img: image unchanged" cmp -s $img.img $img.before
done

# --signatures-from: a signature planted where "sigs/d/../../../decoy.sig" would lead is never read
mkdir -p a/b/c/sigs/d
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 30 -subj /CN=t \
	>/dev/null 2>&1 || fail "openssl req"
for f in good nulXbyte; do
	"$E2VERITY" sign src/d/$f a/b/c/sigs/d/$f.sig --key=key.pem --cert=cert.pem >/dev/null ||
		fail "sign $f"
done
cp a/b/c/sigs/d/good.sig a/b/decoy.sig
cp clean.img planted.img
patch_name planted.img AA_AA_AA_decoy ../../../decoy || fail "patching the name"
cp planted.img planted.before
expect_fail "--signatures-from: refused before a signature is read" 1 "is not a name a path can hold" \
	"$E2VERITY" seal -a --signatures-from=a/b/c/sigs planted.img
check "--signatures-from: image unchanged" cmp -s planted.img planted.before

# measure --all and check never print the bad name: refused, or the file left without one
expect_fail "measure --all refused" 1 "is not a name a path can hold" "$E2VERITY" measure --all slash.img
"$E2VERITY" check -v slash.img >check.out 2>check.err
check "check: the sealed file is checked" grep -q '^slash.img: 1 file checked, 1 passed' check.out
check "check -v: no path with the bad name" sh -c '! grep -q "decoy" check.out'
check "check -v: the file has no name" grep -q '^ok sha256:[0-9a-f]* (no name)$' check.out

# after e2fsck repairs the names, everything works again
e2fsck -fy slash.img >/dev/null 2>&1
"$E2VERITY" seal -q -a slash.img && pass "seal -a after e2fsck -fy" || fail "seal -a after e2fsck -fy"
finish
