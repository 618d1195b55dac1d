#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-holes.sh - files that are mostly holes: seal, check and digest skip the holes, and the bytes
# they write and the digests they give are still those of fsverity-utils, which reads every zero
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd timeout truncate
t_tmpdir
cd "$T_TMP" || exit 1

G=1073741824
mkdir files
# holes of every alignment: data inside a block, holes that start and end mid-block, a hole up to
# a size that is no multiple of any block size, data right after a 64 KiB boundary
make_sparse files/start-end $((G + 12345))
seeded files/ragged 5000 1
truncate -s $((G / 2 + 777)) files/ragged
printf 'x' | dd of=files/ragged bs=1 seek=$((G / 4 + 4097)) conv=notrunc status=none
seeded files/mid 70000 2
dd if=files/mid of=files/middle bs=1 seek=$((300 * 1048576 + 65536)) status=none
truncate -s $((301 * 1048576 + 3)) files/middle
truncate -s $((G / 8)) files/empty-hole
# 3 GiB, a few bytes in it: tree levels of many blocks that are all hashes of zeros
make_sparse files/big $((3 * G + 1))
mkimg base.img files 200M -b 4096 -O verity || { fail "mke2fs"; finish; }
check "e2fsck -fn clean before sealing" fsck_clean base.img

SALT=00112233445566778899aabbccddeeff0011
# fsverity digest reads the files from a copy on tmpfs where there is one: there a hole reads as
# the zero page, where from ext4 each page of it is allocated and zeroed in the page cache first
# (3 GiB: 2.4 s of CPU against 9.8). The bytes, and so the digests, are the same.
fv_src=files
if fv_shm=$(mktemp -d /dev/shm/e2verity-holes.XXXXXX 2>/dev/null); then
	trap 'rm -rf "$T_TMP" "$fv_shm"' EXIT
	if cp -r --sparse=always files/. "$fv_shm" 2>/dev/null; then
		fv_src=$fv_shm
	fi
fi
# fsverity digest reads every zero (seconds a file): each option set's digests once, then e2verity
# on its default hashing and on OpenSSL's (E2VERITY_HASH=openssl, the path of CPUs without SHA-NI),
# in this one test rather than a second run of it (OPENSSL_TESTS) that would read them all again
n=0
for opts in "" "--hash-alg=sha512 --salt=$SALT" "--block-size=1024 --salt=ab"; do
	n=$((n + 1))
	for f in start-end ragged middle empty-hole big; do
		mkdir -p "fv.$n/$f"
		out=
		# ragged's and middle's tree and descriptor too, for check_sealed (CS_FROM) below
		case $f in ragged | middle)
			out="--out-merkle-tree=fv.$n/$f/tree --out-descriptor=fv.$n/$f/desc" ;;
		esac
		# shellcheck disable=SC2086
		fsverity digest $opts $out "$fv_src/$f" >"fv.$n/$f/digest"
		echo "$(cut -d' ' -f1 "fv.$n/$f/digest") /$f"
	done >want.$n
	for hash in "" openssl; do
		what="$opts${hash:+ (E2VERITY_HASH=openssl)}"
		img=sealed.img
		cp base.img "$img"
		# shellcheck disable=SC2086
		E2VERITY_HASH=$hash timeout 120 "$E2VERITY" seal $opts "$img" /start-end /ragged /middle \
			/empty-hole /big >out 2>err
		rc=$?
		[ $rc -eq 0 ] || { fail "seal $what: exit $rc: $(cat err)"; continue; }
		for f in start-end ragged middle empty-hole big; do
			want=$(grep " /$f\$" want.$n | cut -d' ' -f1)
			got=$(grep " /$f\$" out | cut -d' ' -f1)
			same "seal $what: /$f digest is fsverity digest's" "$got" "$want"
			# shellcheck disable=SC2086
			got=$(E2VERITY_HASH=$hash timeout 60 "$E2VERITY" digest $opts "files/$f" | cut -d' ' -f1)
			same "digest $what: files/$f (SEEK_DATA) is fsverity digest's" "$got" "$want"
		done
		# the stored tree and descriptor, byte for byte
		for f in ragged middle; do
			# shellcheck disable=SC2086
			if CS_FROM=fv.$n/$f check_sealed "$img" "/$f" "files/$f" $opts >/dev/null; then
				pass "seal $what: /$f stored as fsverity-utils builds it"
			else
				fail "seal $what: /$f stored as fsverity-utils builds it"
			fi
		done
		check "seal $what: e2fsck -fn clean" fsck_clean "$img"
		E2VERITY_HASH=$hash timeout 120 "$E2VERITY" check "$img" >out 2>&1
		check "check $what: every file passes" grep -q ": 5 files checked, 5 passed, 0 failed" out
	done
done

# a tree block standing for a hole, changed: check finds it (the hashed-once path still compares
# every stored block)
cp base.img hole.img
"$E2VERITY" seal hole.img /big >/dev/null 2>&1 || fail "seal /big"
# 3 GiB + 1 byte, SHA-256, 4 KiB blocks: 786433 data blocks, 128 hashes a tree block; the levels
# are stored top first: 1, 49 and 6145 blocks.  Level-0 block 1000 covers data blocks 128000 to
# 128127, deep in the hole.
mpos=$(metadata_pos $((3 * G + 1)))
check "flip a byte of a level-0 block over the hole" flip hole.img /big $((mpos + (1 + 49 + 1000) * 4096 + 17))
timeout 60 "$E2VERITY" check hole.img >out 2>&1
rc=$?
same "check of the changed tree block: exit 4" "$rc" 4
check "check names the tree mismatch" grep -q "TREE_MISMATCH" out

# host files: a hole of 4 TiB costs nothing (fsverity digest would read 4 TiB of zeros)
make_sparse files/huge $((4 * 1024 * G))
timeout 20 "$E2VERITY" digest files/huge >out 2>err
same "digest of a 4 TiB sparse host file: done in time" "$?" 0
finish
