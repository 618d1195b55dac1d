#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-shapes-kernel.sh - files sealed offline by `e2verity seal` are accepted by the real Linux kernel
#
# Host: five ext4 images of several shapes (with and without `-O verity` beforehand, metadata_csum
# and 64bit on and off, inline_data), files at the Merkle-tree boundary sizes, sparse, 3-level,
# deep paths, SHA-512, salted, immutable, inline, signed. `e2verity seal` must print what
# `fsverity digest` prints for the sources, set the verity feature, and leave `e2fsck -fn` clean.
# A copy of one image gets one flipped byte in a data block of one file and one in a Merkle tree
# block of another. One boot (all images read-only, /dev/vda...): every sealed file measures as
# `fsverity digest` says and reads back the source's bytes, flags and dumped metadata match
# fsverity-utils, the corrupted files fail with EIO at the corrupted block, and a signed file
# opens only with its certificate loaded while require_signatures=1 refuses an unsigned one.
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs e2fsck debugfs dumpe2fs od dd sha256sum truncate sort cmp
[ -x "$E2VERITY" ] || skip "$E2VERITY is not built"
t_tmpdir
tmp=$T_TMP

salt=5eed0102abcdef
salt32=00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210

# put FILE OFFSET COUNT - COUNT random bytes at OFFSET (a multiple of 4096), the rest kept (holes)
put()
{
	rand_bytes "$3" | dd of="$1" bs=4096 seek="$(($2 / 4096))" conv=notrunc 2>/dev/null
}

# add IMG REL [SEAL_OPTIONS...] - seal /REL of image IMG (source $tmp/src-IMG/REL) with options
add()
{
	echo "$*" >>"$tmp/plan"
}

# mk IMG REL SIZE [SEAL_OPTIONS...] - a random source file of SIZE bytes, sealed with options
mk()
{
	mk_img=$1 mk_rel=$2 mk_size=$3
	shift 3
	mkdir -p "$(dirname "$tmp/src-$mk_img/$mk_rel")"
	rand_bytes "$mk_size" >"$tmp/src-$mk_img/$mk_rel"
	add "$mk_img" "$mk_rel" "$@"
}

# digest_opts OPTIONS... - the seal options that `fsverity digest` takes too
digest_opts()
{
	for o in "$@"; do
		[ "$o" = --immutable ] || printf '%s ' "$o"
	done
}

# flip IMG PBLK OFFSET - invert one byte of physical block PBLK
flip()
{
	fl_off=$(($2 * 4096 + $3))
	fl_byte=$(od -An -tu1 -j "$fl_off" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the octal escape
	printf "\\$(printf %03o $((fl_byte ^ 255)))" |
		dd of="$1" bs=1 seek="$fl_off" conv=notrunc 2>/dev/null
	[ "$(od -An -tu1 -j "$fl_off" -N1 "$1" | tr -d ' ')" -eq $((fl_byte ^ 255)) ]
}

# bmap IMG PATH LBLK - the physical block of a logical block (0 for a hole)
bmap()
{
	bm=$(debugfs -R "bmap $2 $3" "$1" 2>/dev/null)
	case $bm in
	'' | *[!0-9]*) echo 0 ;;
	*) echo "$bm" ;;
	esac
}

# same WHAT GOT WANT - pass when GOT is WANT
same()
{
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

# ---- the host's side, the same for every kernel: made once, by the matrix's first run, and
# handed to the next ones (kh_prep_restore), signature mode in $tmp/sig
if ! kh_prep_restore "$tmp"; then
	# ---- the files --------------------------------------------------------------------------
	: >"$tmp/plan"
	mkdir "$tmp/src-a" "$tmp/src-b" "$tmp/src-c" "$tmp/src-d"

	# a: `-O verity`, default features (metadata_csum, 64bit): every boundary of the tree shape
	# (4096-byte blocks, 64 KiB tree alignment, 128 SHA-256 hashes per tree block).
	for n in 0 1 4095 4096 4097 65535 65536 65537 524287 524288 524289 3146962; do
		mk a "r$n" "$n"
	done
	# holes in the middle: data in blocks 0-1, 200 and the tail of a 2 MiB + 123 B file
	truncate -s 2097275 "$tmp/src-a/sparse"
	put "$tmp/src-a/sparse" 0 8192
	put "$tmp/src-a/sparse" 819200 4096
	put "$tmp/src-a/sparse" 2093056 4219
	add a sparse
	# 3 levels with SHA-256: 70,000,000 B = 17090 blocks -> 134 + 2 + 1 tree blocks; mostly holes
	truncate -s 70000000 "$tmp/src-a/tree3"
	put "$tmp/src-a/tree3" 0 8192
	put "$tmp/src-a/tree3" 67108864 4096
	put "$tmp/src-a/tree3" 69996544 3456
	add a tree3
	mk a d1/d2/d3/d4/d5/d6/deep 200001
	mk a sha512 300000 --hash-alg=sha512
	# 3 levels with SHA-512 (64 hashes per block): 17,000,000 B = 4151 blocks -> 65 + 2 + 1 tree blocks
	truncate -s 17000000 "$tmp/src-a/sha512-3lvl"
	put "$tmp/src-a/sha512-3lvl" 4096 4096
	put "$tmp/src-a/sha512-3lvl" 16777216 4096
	add a sha512-3lvl --hash-alg=sha512
	mk a salted 70000 --salt=$salt
	mk a salt32-sha512 600000 --hash-alg=sha512 --salt=$salt32
	mk a immutable 50000 --immutable
	mk a immutable-salted 1 --immutable --salt=$salt

	# b: no verity feature beforehand, ^metadata_csum; -r on a directory; signatures
	for n in 0 4097 524289; do
		mk b "r$n" "$n"
	done
	mk b sha512 65537 --hash-alg=sha512
	mk b salted 4096 --salt=$salt
	mk b immutable 100000 --immutable
	mkdir -p "$tmp/src-b/tree/sub/subsub"
	rand_bytes 10000 >"$tmp/src-b/tree/one"
	rand_bytes 1 >"$tmp/src-b/tree/sub/two"
	rand_bytes 140000 >"$tmp/src-b/tree/sub/subsub/three"
	rand_bytes 333333 >"$tmp/src-b/signed"
	rand_bytes 22222 >"$tmp/src-b/unsigned"

	# c: `-O verity,^64bit`; its copy e gets the corruption
	for n in 0 1 4097 65537 524289; do
		mk c "r$n" "$n"
	done
	truncate -s 300000 "$tmp/src-c/sparse"
	put "$tmp/src-c/sparse" 8192 4096
	add c sparse
	mk c deep/er/path/file 77777 --hash-alg=sha512 --salt=$salt
	mk c immutable 4097 --immutable

	# d: no verity beforehand, ^metadata_csum,^64bit, inline_data: small files are inline until sealed
	for n in 4095 65536 524288; do
		mk d "r$n" "$n"
	done
	mk d inline3 3
	mk d inline60 60 --hash-alg=sha512
	mk d inline0 0 # empty: no data at all, inline flag set by mke2fs
	mk d inline-immutable 40 --immutable

	mke2fs -q -F -t ext4 -b 4096 -O verity -d "$tmp/src-a" "$tmp/a.img" 48M >/dev/null
	mke2fs -q -F -t ext4 -b 4096 -O ^metadata_csum -d "$tmp/src-b" "$tmp/b.img" 16M >/dev/null
	mke2fs -q -F -t ext4 -b 4096 -O verity,^64bit -d "$tmp/src-c" "$tmp/c.img" 16M >/dev/null
	mke2fs -q -F -t ext4 -b 4096 -O ^metadata_csum,^64bit,inline_data -d "$tmp/src-d" "$tmp/d.img" 16M >/dev/null

	# the inline files must really be inline, or the inline case proves nothing
	for f in inline3 inline60 inline-immutable; do
		fl=$(debugfs -R "stat /$f" "$tmp/d.img" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
		if [ $((${fl:-0} & 0x10000000)) -ne 0 ]; then
			pass "d:/$f is inline before sealing ($fl)"
		else
			fail "d:/$f is not an inline-data inode before sealing (flags '$fl'): mke2fs changed?"
		fi
	done
	for i in b d; do
		if dumpe2fs -h "$tmp/$i.img" 2>/dev/null | grep -q '^Filesystem features:.* verity'; then
			fail "$i.img has the verity feature before sealing"
		fi
	done

	# ---- seal -------------------------------------------------------------------------------
	# expected: "IMG REL DIGEST SHA256 IMMUTABLE(yes|no)" per sealed file
	: >"$tmp/expected"

	# want IMG REL [SEAL_OPTIONS...] - append a file's expectation; print its digest line
	want()
	{
		w_img=$1 w_rel=$2
		shift 2
		w_imm=no
		for o in "$@"; do
			[ "$o" = --immutable ] && w_imm=yes
		done
		# shellcheck disable=SC2046 # the options are separate words
		w_dig=$(fsverity digest $(digest_opts "$@") "$tmp/src-$w_img/$w_rel" | cut -d' ' -f1)
		w_sha=$(sha256sum <"$tmp/src-$w_img/$w_rel" | cut -d' ' -f1)
		echo "$w_img $w_rel $w_dig $w_sha $w_imm" >>"$tmp/expected"
		echo "$w_dig /$w_rel"
	}

	# seal_run NAME WANTFILE E2VERITY_SEAL_ARGS... - seal must exit 0 and print exactly WANTFILE's lines
	seal_run()
	{
		sr_name=$1 sr_want=$2
		shift 2
		sr_rc=0
		"$E2VERITY" seal "$@" >"$tmp/seal.out" 2>"$tmp/seal.err" || sr_rc=$?
		sort "$tmp/seal.out" >"$tmp/seal.sorted"
		if [ $sr_rc -ne 0 ]; then
			fail "$sr_name: e2verity seal $* exited $sr_rc: $(cat "$tmp/seal.err")"
		elif ! sort "$sr_want" | cmp -s - "$tmp/seal.sorted"; then
			fail "$sr_name: e2verity seal printed '$(cat "$tmp/seal.out")', fsverity digest says '$(cat "$sr_want")'"
		else
			pass "$sr_name: e2verity seal printed the fsverity digest lines"
		fi
	}

	for i in a b c d; do
		# one seal run per distinct option set, in plan order
		awk -v i=$i '$1 == i { o = ""; for (k = 3; k <= NF; k++) o = o " " $k; print o }' "$tmp/plan" |
			awk '!seen[$0]++' >"$tmp/optsets"
		while IFS= read -r opts; do
			awk -v i=$i -v o="$opts" '$1 == i { s = ""; for (k = 3; k <= NF; k++) s = s " " $k
				if (s == o) print $2 }' "$tmp/plan" >"$tmp/rels"
			: >"$tmp/want"
			set --
			while read -r rel; do
				# shellcheck disable=SC2086 # the options are separate words
				want $i "$rel" $opts >>"$tmp/want"
				set -- "$@" "/$rel"
			done <"$tmp/rels"
			# shellcheck disable=SC2086 # the options are separate words
			seal_run "$i:${opts:- (defaults)}" "$tmp/want" $opts "$tmp/$i.img" "$@"
		done <"$tmp/optsets"
	done

	# -r: every regular file below /tree, whatever the depth
	: >"$tmp/want"
	for rel in tree/one tree/sub/two tree/sub/subsub/three; do
		want b $rel >>"$tmp/want"
	done
	seal_run "b: -r /tree" "$tmp/want" -r "$tmp/b.img" /tree
	# the file for require_signatures=1 (never opened before that is set in the guest)
	echo "$(fsverity digest "$tmp/src-b/unsigned" | cut -d' ' -f1) /unsigned" >"$tmp/want"
	seal_run "b: /unsigned" "$tmp/want" "$tmp/b.img" /unsigned

	# Signatures: a key made now, signed with `fsverity sign`'s bytes; through `e2verity seal
	# --key/--cert` once seal has them, else through the library (tests/image/seal-lib-helper).
	sig=
	HELPER=$top_builddir/tests/image/seal-lib-helper
	if ! command -v openssl >/dev/null 2>&1; then
		echo "note: no openssl: signatures not tested" >&2
	elif ! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
		-subj /CN=e2verity-seal-kernel -days 2 >/dev/null 2>&1 ||
		! openssl x509 -in "$tmp/cert.pem" -outform der -out "$tmp/cert.der" 2>/dev/null; then
		fail "openssl could not make a test key and certificate"
	elif ! fsverity sign "$tmp/src-b/signed" "$tmp/signed.sig" --key="$tmp/key.pem" \
		--cert="$tmp/cert.pem" >/dev/null; then
		fail "fsverity sign failed"
	else
		d=$(fsverity digest "$tmp/src-b/signed" | cut -d' ' -f1)
		if "$E2VERITY" seal --help 2>&1 | grep -q -- '--key'; then
			sig=cli
			echo "$d /signed" >"$tmp/want"
			seal_run "b: --key --cert /signed" "$tmp/want" --key="$tmp/key.pem" \
				--cert="$tmp/cert.pem" "$tmp/b.img" /signed
		elif [ -x "$HELPER" ]; then
			sig=lib
			out=$("$HELPER" "$tmp/b.img" /signed "$tmp/signed.sig" bytes 2>&1) || true
			case $out in
			"$d /signed sig_size=$(wc -c <"$tmp/signed.sig") "*) pass "b: /signed sealed with a signature (library)" ;;
			*) fail "b: seal-lib-helper /signed said '$out', fsverity digest says '$d'" ;;
			esac
		else
			echo "note: e2verity seal has no --key and $HELPER is not built: signatures not tested" >&2
		fi
	fi

	for i in a b c d; do
		if e2fsck -fn "$tmp/$i.img" >"$tmp/fsck" 2>&1; then
			pass "$i.img: e2fsck -fn clean after sealing"
		else
			fail "$i.img: e2fsck -fn after sealing: $(cat "$tmp/fsck")"
		fi
		if dumpe2fs -h "$tmp/$i.img" 2>/dev/null | grep -q '^Filesystem features:.* verity'; then
			pass "$i.img has the verity feature"
		else
			fail "$i.img: no verity feature after sealing"
		fi
	done

	# ---- corruption on e, a copy of c -------------------------------------------------------
	# /r65537: one byte of data block 5. /r524289 (129 blocks): its tree is the root block then two
	# level-0 blocks, from logical block round_up(i_size, 64K) / 4096 = 144; the second level-0 block
	# (146) holds only the hash of data block 128, so reading must fail exactly there.
	cp "$tmp/c.img" "$tmp/e.img"
	p=$(bmap "$tmp/e.img" /r65537 5)
	if [ "$p" -gt 0 ] && flip "$tmp/e.img" "$p" 1000; then
		pass "e: flipped a byte of /r65537 data block 5 (physical $p)"
	else
		fail "e: could not flip /r65537 block 5 (bmap '$p')"
	fi
	p=$(bmap "$tmp/e.img" /r524289 146)
	if [ "$p" -gt 0 ] && flip "$tmp/e.img" "$p" 5; then
		pass "e: flipped a byte of /r524289 Merkle tree block 2 (physical $p)"
	else
		fail "e: could not flip /r524289 tree block at logical 146 (bmap '$p')"
	fi

	# ---- what the kernel's dumped metadata must be ------------------------------------------
	# "PATH merkle_tree|descriptor SIZE SHA256": fsverity digest --out-merkle-tree/--out-descriptor
	meta="/mnt/a/r0 /mnt/a/r4097 /mnt/a/r524289 /mnt/a/tree3 /mnt/a/sha512-3lvl /mnt/a/salt32-sha512
/mnt/b/tree/sub/subsub/three /mnt/c/deep/er/path/file /mnt/d/inline60"
	echo "$meta" | tr ' ' '\n' >"$tmp/meta"
	while read -r p; do
		rel=${p#/mnt/?/}
		i=${p#/mnt/}
		i=${i%%/*}
		opts=$(awk -v i="$i" -v r="$rel" '$1 == i && $2 == r { for (k = 3; k <= NF; k++) print $k }' \
			"$tmp/plan" | tr '\n' ' ')
		# shellcheck disable=SC2046,SC2086 # the options are separate words
		fsverity digest $(digest_opts $opts) --out-merkle-tree="$tmp/mt" --out-descriptor="$tmp/desc" \
			"$tmp/src-$i/$rel" >/dev/null
		for t in merkle_tree descriptor; do
			f=$tmp/mt
			[ $t = descriptor ] && f=$tmp/desc
			echo "$p $t $(wc -c <"$f") $(sha256sum <"$f" | cut -d' ' -f1)"
		done
	done <"$tmp/meta" >"$tmp/meta.want"
	echo "$sig" >"$tmp/sig"
	kh_prep_save "$tmp"
fi
sig=$(cat "$tmp/sig")

# ---- one boot -----------------------------------------------------------------------------------
awk '{ print "/mnt/" $1 "/" $2 }' "$tmp/expected" >"$tmp/paths"
{
	cat <<'EOF'
for i in a b c d e; do
	mount_image /dev/vd$i /mnt/$i ro
done
flags_all </files/paths
measure_all </files/paths
hash_all </files/paths
metadata_all merkle_tree </files/meta
metadata_all descriptor </files/meta
measure_all /mnt/e/r65537 /mnt/e/r524289
expect_eio /mnt/e/r65537 /mnt/e/r524289
hash_all /mnt/e/r4097 /mnt/e/sparse /mnt/e/deep/er/path/file
kmsg 'FILE CORRUPTED'
EOF
	if [ -n "$sig" ]; then
		cat <<'EOF'
echo "KEYRING-EMPTY $(hash_one /mnt/b/signed)"
load_cert /files/cert.der
require_signatures 1
hash_all /mnt/b/signed /mnt/b/unsigned
measure_all /mnt/b/signed
metadata_all signature /mnt/b/signed
flags_all /mnt/b/signed
EOF
	fi
	echo true
} >"$tmp/guest.sh"
set -- -f "$tmp/paths:/files/paths" -f "$tmp/meta:/files/meta"
[ -n "$sig" ] && set -- "$@" -f "$tmp/cert.der:/files/cert.der"
start=$(date +%s)
rc=0
kh_boot "$@" -r "$tmp/a.img" -r "$tmp/b.img" -r "$tmp/c.img" -r "$tmp/d.img" -r "$tmp/e.img" \
	-o "$tmp/out" "$tmp/guest.sh" || rc=$?
[ $rc -eq 0 ] || { cat "$tmp/out" 2>/dev/null; kh_fail "the guest exited $rc"; }
echo "boot: $(($(date +%s) - start)) s"
out=$tmp/out

for d in vda vdb vdc vdd vde; do
	if grep -qx "MOUNT /dev/$d OK" "$out"; then
		pass "/dev/$d mounts"
	else
		fail "/dev/$d: $(grep "^MOUNT /dev/$d " "$out")"
	fi
done

# every sealed file: flags, measure, content
while read -r i rel dig sha imm; do
	p=/mnt/$i/$rel
	got=$(kh_get "$out" FLAGS "$p")
	case $got in
	*" verity=yes immutable=$imm") pass "$p: flags $got" ;;
	*) fail "$p: flags '$got', want verity=yes immutable=$imm" ;;
	esac
	got=$(kh_get "$out" MEASURE "$p")
	if [ "$got" = "$dig" ]; then
		pass "$p: kernel measure = fsverity digest"
	else
		fail "$p: kernel measured '$got', fsverity digest says $dig"
	fi
	got=$(kh_get "$out" SHA256 "$p")
	if [ "$got" = "$sha" ]; then
		pass "$p: reads back the source's bytes"
	else
		fail "$p: read '$got' ($(grep " $p " "$out" | grep -v '^[FM]' | head -n 1)), source sha256 $sha"
	fi
done <"$tmp/expected"

# dumped Merkle tree and descriptor = fsverity digest --out-merkle-tree/--out-descriptor
while read -r p t w; do
	got=$(awk -v p="$p" -v t=$t '$1 == "METADATA" && $2 == p && $3 == t {
		sub(/^[^ ]+ +[^ ]+ +[^ ]+ ?/, ""); print; exit }' "$out")
	if [ "$got" = "$w" ]; then
		pass "$p: kernel's $t = fsverity digest's ($w)"
	else
		fail "$p: kernel's $t '$got', fsverity digest's $w"
	fi
done <"$tmp/meta.want"

# corruption: EIO exactly at the flipped block, descriptor still fine, the rest readable
# (a page at a time: with 16 KiB pages, EIO starts at the first block of the flipped one's page)
for pb in /mnt/e/r65537:$(kh_page_block 5) /mnt/e/r524289:$(kh_page_block 128); do
	p=${pb%:*}
	got=$(kh_get "$out" EXPECT_EIO "$p")
	if [ "$got" = "OK ${pb#*:}" ]; then
		pass "$p: EIO at block ${pb#*:}"
	else
		fail "$p: '$got', want EIO at block ${pb#*:}"
	fi
	want=$(awk -v r="${p#/mnt/e/}" '$1 == "c" && $2 == r { print $3 }' "$tmp/expected")
	got=$(kh_get "$out" MEASURE "$p")
	same "$p: measure after corruption" "$got" "$want"
done
for rel in r4097 sparse deep/er/path/file; do
	want=$(sha256sum <"$tmp/src-c/$rel" | cut -d' ' -f1)
	got=$(kh_get "$out" SHA256 "/mnt/e/$rel")
	same "/mnt/e/$rel (untouched) reads the source's bytes" "$got" "$want"
done
if grep -q '^KMSG .*FILE CORRUPTED' "$out"; then
	pass "the kernel logged FILE CORRUPTED"
else
	fail "no FILE CORRUPTED in the kernel log"
fi

# signatures
if [ -n "$sig" ]; then
	got=$(sed -n 's/^KEYRING-EMPTY //p' "$out")
	case $got in
	"OPENERR /mnt/b/signed ENOKEY "*) pass "signed file refused (ENOKEY) while the keyring is empty" ;;
	*) fail "signed file with an empty .fs-verity keyring: '$got', want OPENERR ENOKEY" ;;
	esac
	same "load_cert" "$(grep '^CERT' "$out" | cut -d' ' -f1-3)" "CERT /files/cert.der OK"
	same "require_signatures 1" "$(grep '^SYSCTL' "$out")" "SYSCTL require_signatures 1"
	want=$(sha256sum <"$tmp/src-b/signed" | cut -d' ' -f1)
	got=$(kh_get "$out" SHA256 /mnt/b/signed)
	same "signed file reads with require_signatures=1 ($(grep ' /mnt/b/signed ' "$out" |
		grep -v '^[FM]' | tail -n 1))" "$got" "$want"
	got=$(kh_get "$out" OPENERR /mnt/b/unsigned)
	case $got in
	EPERM*) pass "unsigned file refused (EPERM) with require_signatures=1" ;;
	*) fail "unsigned file with require_signatures=1: '$(grep ' /mnt/b/unsigned ' "$out")', want OPENERR EPERM" ;;
	esac
	want=$(fsverity digest "$tmp/src-b/signed" | cut -d' ' -f1)
	got=$(kh_get "$out" MEASURE /mnt/b/signed)
	same "signed file measures as fsverity digest" "$got" "$want"
	want="$(wc -c <"$tmp/signed.sig") $(sha256sum <"$tmp/signed.sig" | cut -d' ' -f1)"
	got=$(awk '$1 == "METADATA" && $2 == "/mnt/b/signed" && $3 == "signature" {
		sub(/^[^ ]+ +[^ ]+ +[^ ]+ ?/, ""); print; exit }' "$out")
	same "kernel's signature = fsverity sign's bytes" "$got" "$want"
	case $(kh_get "$out" FLAGS /mnt/b/signed) in
	*" verity=yes immutable=no") pass "signed file flags" ;;
	*) fail "signed file flags '$(kh_get "$out" FLAGS /mnt/b/signed)'" ;;
	esac
fi

finish
