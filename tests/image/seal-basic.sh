#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-basic.sh - e2verity seal -a on images of each supported shape: every file's data, placement
# and metadata bytes match fsverity-utils, the printed digests match `fsverity digest`, e2fsck is clean;
# on the OpenSSL hashing too, which must seal the same bytes
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
. "${top_srcdir:-.}/tests/image/make-sample.sh"
t_tmpdir
cd "$T_TMP" || exit 1

make_fileset files
make_fileset files-big big

# run_case NAME IMAGE_SIZE DIR "MKE2FS OPTIONS" "TREE OPTIONS"
run_case()
{
	rc_name=$1 rc_size=$2 rc_dir=$3 rc_mkopts=$4 rc_treeopts=$5
	rc_img=$T_TMP/$rc_name.img
	# shellcheck disable=SC2086
	mkimg "$rc_img" "$rc_dir" "$rc_size" $rc_mkopts || { fail "$rc_name: mke2fs $rc_mkopts"; return; }
	# mke2fs -d must have made the files right, or what follows judges mke2fs, not e2verity
	(cd "$rc_dir" && find . -type f | LC_ALL=C sort) >"$rc_name.files"
	while IFS= read -r f; do
		rc_isize=$(inode_field "$rc_img" "${f#.}" Size)
		[ "$rc_isize" = "$(wc -c <"$rc_dir/$f")" ] ||
			{ fail "$rc_name: mke2fs -d made ${f#.} $rc_isize bytes, not $(wc -c <"$rc_dir/$f")"; return; }
	done <"$rc_name.files"
	if [ -n "$INLINE_EXPECTED" ]; then
		rc_flags=$(inode_flags "$rc_img" /hello.txt)
		[ $((rc_flags & 0x10000000)) -ne 0 ] || { fail "$rc_name: /hello.txt is not inline ($rc_flags)"; return; }
	fi
	cp "$rc_img" "$rc_img.orig"
	# shellcheck disable=SC2086
	"$E2VERITY" seal -a $rc_treeopts "$rc_img" >"$rc_name.out" 2>"$rc_name.err" ||
		{ fail "$rc_name: seal exit $?: $(cat "$rc_name.err")"; return; }
	check "$rc_name: e2fsck -fn clean" fsck_clean "$rc_img"
	# the check command (written apart from seal) re-verifies every tree
	rc_n=$(cd "$rc_dir" && find . -type f | wc -l)
	"$E2VERITY" check "$rc_img" >"$rc_name.check" 2>&1
	check "$rc_name: e2verity check passes all $rc_n files" \
		grep -q ": $rc_n files checked, $rc_n passed, 0 failed" "$rc_name.check"
	check "$rc_name: verity feature set" has_feature "$rc_img" verity
	# the OpenSSL hashing (the path of CPUs without SHA-NI) must write the very same image and print
	# the same digests: all that is judged here against fsverity-utils then holds for it too
	cp "$rc_img.orig" "$rc_img.ossl"
	# shellcheck disable=SC2086
	E2VERITY_HASH=openssl "$E2VERITY" seal -a $rc_treeopts "$rc_img.ossl" >"$rc_name.ossl.out" \
		2>"$rc_name.ossl.err" || fail "$rc_name: seal, OpenSSL hashing: exit $?: $(cat "$rc_name.ossl.err")"
	check "$rc_name: the OpenSSL hashing seals the same bytes" cmp "$rc_img" "$rc_img.ossl"
	check "$rc_name: the OpenSSL hashing prints the same digests" cmp "$rc_name.out" "$rc_name.ossl.out"
	E2VERITY_HASH=openssl "$E2VERITY" check "$rc_img.ossl" >"$rc_name.ossl.check" 2>&1
	check "$rc_name: e2verity check on the OpenSSL hashing passes all $rc_n files" \
		grep -q ": $rc_n files checked, $rc_n passed, 0 failed" "$rc_name.ossl.check"
	rm -f "$rc_img.ossl"
	while IFS= read -r f; do
		p=${f#.}
		# shellcheck disable=SC2086
		want=$(check_sealed "$rc_img" "$p" "$rc_dir/$f" $rc_treeopts) || {
			# was the file already wrong in the image mke2fs made?
			debugfs -R "dump \"$p\" $T_TMP/before" "$rc_img.orig" 2>/dev/null
			# debugfs 1.47.0 dumps all of an inline file's inline area, past i_size: cut it
			head -c "$(wc -c <"$rc_dir/$f")" "$T_TMP/before" | cmp -s - "$rc_dir/$f" ||
				echo "$p: differs before sealing too" >&2
			fail "$rc_name: $p"
			continue
		}
		grep -qxF -- "$want" "$rc_name.out" ||
			{ fail "$rc_name: $p: printed digest is not '$want'"; continue; }
		pass "$rc_name: $p"
	done <"$rc_name.files"
	# one line per regular file: nothing for the symlink or the directories
	check "$rc_name: one digest line per regular file" \
		test "$(wc -l <"$rc_name.out")" -eq "$(wc -l <"$rc_name.files")"
	check "$rc_name: no warning for 4K blocks" sh -c "[ '$6' = warn ] || [ ! -s '$rc_name.err' ]"
}

SALT=0011223344556677889900112233445566778899001122334455667788990011
run_case ext4-4k 96M files-big "-b 4096" ""
run_case ext4-4k-verity-nocsum-32bit 32M files "-b 4096 -O verity,^metadata_csum,^64bit" ""
run_case ext4-4k-noflexbg-sha512-salt 32M files "-b 4096 -O ^flex_bg" "--hash-alg=sha512 --salt=$SALT"
run_case ext4-4k-merkle1k 32M files "-b 4096" "--block-size=1024" warn
run_case ext4-1k 32M files "-b 1024" "--block-size=1024" warn
run_case ext4-1k-nocsum-sha512 32M files "-b 1024 -O ^metadata_csum,^64bit" \
	"--block-size=1024 --hash-alg=sha512" warn
INLINE_EXPECTED=1 run_case ext4-4k-inline 32M files "-b 4096 -O inline_data -I 256" ""

# the script the kernel test uses: a sealed image and a manifest of path, digest, content hash
if sh "${top_srcdir:-.}/tests/image/make-sample.sh" "$T_TMP/sample" >/dev/null; then
	check "make-sample.sh: one manifest line per file" test \
		"$(wc -l <"$T_TMP/sample/manifest.tsv")" -eq "$(find "$T_TMP/sample/files" -type f | wc -l)"
	check "make-sample.sh: path, digest, sha256 on each line" sh -c \
		"! grep -Evq '^/[^	]+	sha256:[0-9a-f]{64}	[0-9a-f]{64}\$' '$T_TMP/sample/manifest.tsv'"
	check "make-sample.sh: the image is sealed as listed" sh -c \
		"grep -q '^/sizes/f65537	' '$T_TMP/sample/manifest.tsv'"
	check_sealed "$T_TMP/sample/sample.img" /sizes/f65537 "$T_TMP/sample/files/sizes/f65537" \
		>"$T_TMP/f65537.want" || fail "make-sample.sh: /sizes/f65537"
	check "make-sample.sh: manifest digest" grep -qF \
		"$(cut -d' ' -f1 "$T_TMP/f65537.want")" "$T_TMP/sample/manifest.tsv"
else
	fail "make-sample.sh OUTDIR"
fi
finish
