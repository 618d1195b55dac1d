#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sealed-sample-kernel.sh - images sealed by e2verity, read by the real Linux kernel under qemu: every file
# measures as `fsverity digest` says and reads back (verified) as its source, in one boot
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_require
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd openssl
cd "$T_TMP" || exit 1

# Disk 1: the sample file set (boundary sizes, 70 MB sparse, fragmented, deep path, spaces),
# sealed with -a and the defaults; its manifest comes from fsverity-utils and sha256sum.
sh "$top_srcdir/tests/image/make-sample.sh" sample >/dev/null || { fail "make-sample.sh"; finish; }
sed 's#^#/mnt/a#' sample/manifest.tsv >want.tsv

# Disk 2: the cases that change the file before sealing, and the other options
mkdir src
printf 'inline data moved to a block\n' >src/inline
rand_bytes 100000 >src/sha512
rand_bytes 777777 >src/immutable
rand_bytes 99999 >src/resealed
rand_bytes 300000 >src/signed
rand_bytes 20000 >stale
head -c 3000 stale >stale.data
printf 'preallocated\n' >src/prealloc
mkimg b.img src 64M -b 4096 -O inline_data -I 256 || { fail "mke2fs"; finish; }
debugfs -w -f - b.img >/dev/null 2>&1 <<EOF
write stale stale
sif stale size 3000
fallocate prealloc 1 40
EOF
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -subj /CN=e2verity-test \
	-days 2 >/dev/null 2>&1 || { fail "openssl req"; finish; }
openssl x509 -in cert.pem -outform der -out cert.der
{
	"$E2VERITY" seal -q b.img /inline /stale /prealloc /resealed &&
		"$E2VERITY" seal -q --hash-alg=sha512 --salt=00ff b.img /sha512 &&
		"$E2VERITY" seal -q --immutable b.img /immutable &&
		"$E2VERITY" seal -q --force --salt=1234 b.img /resealed &&
		"$E2VERITY" seal -q --key=key.pem --cert=cert.pem b.img /signed
} || fail "sealing disk 2"
check "disk 2: e2fsck clean" fsck_clean b.img
line()
{
	printf '/mnt/b/%s\t%s\t%s\n' "$1" "$(fsverity digest $3 "$2" | cut -d' ' -f1)" \
		"$(sha256sum <"$2" | cut -d' ' -f1)"
}
{
	line inline src/inline
	line stale stale.data
	line prealloc src/prealloc
	line resealed src/resealed --salt=1234
	line sha512 src/sha512 "--hash-alg=sha512 --salt=00ff"
	line immutable src/immutable
	line signed src/signed
} >>want.tsv

cut -f1 want.tsv >paths
cat >guest.sh <<'EOF'
mkdir -p /mnt/a /mnt/b
mount_image /dev/vda /mnt/a ro || exit 1
mount_image /dev/vdb /mnt/b ro || exit 1
load_cert /files/cert.der || exit 1
measure_all </files/paths
hash_all </files/paths
flags_all /mnt/b/immutable /mnt/b/signed
EOF
kh_boot -r sample/sample.img -r b.img -f cert.der -f paths -o out guest.sh
st=$?
[ $st -eq 77 ] && skip "the kernel harness cannot run here"
check "the guest ran to the end" test $st -eq 0
n=0
while IFS="$(printf '\t')" read -r p dg sh; do
	n=$((n + 1))
	grep -qxF "MEASURE $p $dg" out || { fail "measure $p: $(grep -F "MEASURE $p " out)"; continue; }
	grep -qxF "SHA256 $p $sh" out || { fail "read $p: $(grep -F " $p " out | grep -v MEASURE)"; continue; }
	pass "kernel: $p"
done <want.tsv
check "kernel: every file of both disks ($n)" test "$n" -ge 25
check "kernel: --immutable gives verity and immutable" \
	grep -q '^FLAGS /mnt/b/immutable .* verity=yes immutable=yes$' out
check "kernel: without --immutable only verity" \
	grep -q '^FLAGS /mnt/b/signed .* verity=yes immutable=no$' out
finish
