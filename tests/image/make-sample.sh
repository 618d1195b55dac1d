#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make-sample.sh - the file set of the image tests, and a sealed image plus manifest for the kernel test
#
# Sourced (after tests/lib.sh): make_fileset DIR [big]   files at the boundary sizes, a sparse file,
#                                                      a fragmented file (extent tree of depth 1),
#                                                      a deep path, names with spaces, a symlink
#                               write_manifest DIR OUT [fsverity options]
#                                   "path<TAB>fsverity digest<TAB>sha256 of the content" per regular
#                                   file, the digest from fsverity-utils (never from e2verity)
# Run:   tests/image/make-sample.sh OUTDIR [--hash-alg=A] [--block-size=N] [--salt=HEX]
#        builds OUTDIR/sample.img (4096-byte blocks), seals every file in it with e2verity and
#        writes OUTDIR/manifest.tsv; the kernel test mounts the image and compares.

# make_fileset DIR [big]: with "big", also a 70 MB sparse file (a three-level tree)
make_fileset()
{
	mf_dir=$1
	mkdir -p "$mf_dir/sizes" "$mf_dir/dir with spaces" "$mf_dir/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12" "$mf_dir/empty dir"
	# The last byte is never zero: mke2fs 1.47.0 -d -O inline_data makes a file whose last
	# block is all zero up to EOF that block shorter (the conversion out of inline data resets
	# i_size, and the copy skips zero blocks), which random data did 1 time in 256 per 1-byte tail.
	for n in 0 1 100 4095 4096 4097 65535 65536 65537 524288 524289 1048577; do
		rand_bytes "$n" >"$mf_dir/sizes/f$n"
		[ "$n" -eq 0 ] ||
			printf '\377' | dd of="$mf_dir/sizes/f$n" bs=1 seek=$((n - 1)) conv=notrunc 2>/dev/null
	done
	printf 'hello\n' >"$mf_dir/hello.txt"
	rand_bytes 3000 >"$mf_dir/dir with spaces/name with spaces.bin"
	rand_bytes 200000 >"$mf_dir/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/deep.bin"
	# a hole in the middle: data at both ends
	rm -f "$mf_dir/sparse"
	rand_bytes 10000 >"$mf_dir/sparse"
	truncate -s 3000000 "$mf_dir/sparse"
	rand_bytes 5000 >>"$mf_dir/sparse"
	# 40 islands of data: more extents than the inode holds, so an extent tree of depth 1
	rm -f "$mf_dir/fragmented"
	mf_i=0
	while [ $mf_i -lt 40 ]; do
		rand_bytes 5000 | dd of="$mf_dir/fragmented" bs=131072 seek=$mf_i conv=notrunc \
			2>/dev/null
		mf_i=$((mf_i + 1))
	done
	if [ "$2" = big ]; then
		rm -f "$mf_dir/sparse-70M"
		printf 'start\n' >"$mf_dir/sparse-70M"
		truncate -s 70000000 "$mf_dir/sparse-70M"
		printf 'end' | dd of="$mf_dir/sparse-70M" bs=1 seek=69999997 conv=notrunc 2>/dev/null
	fi
	ln -sf hello.txt "$mf_dir/link"
}

# write_manifest DIR OUT [fsverity options]
write_manifest()
{
	wm_dir=$1 wm_out=$2
	shift 2
	: >"$wm_out"
	(cd "$wm_dir" && find . -type f | LC_ALL=C sort) | while IFS= read -r f; do
		wm_p=${f#.}
		wm_dg=$(fsverity digest "$@" "$wm_dir/$f" | cut -d' ' -f1) || return 1
		wm_sh=$(sha256sum <"$wm_dir/$f" | cut -d' ' -f1)
		printf '%s\t%s\t%s\n' "$wm_p" "$wm_dg" "$wm_sh"
	done >>"$wm_out"
}

# Run as a script: build the sealed sample image for the kernel test.
if [ "${0##*/}" = make-sample.sh ]; then
	[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [fsverity tree options]" >&2; exit 2; }
	out=$1
	shift
	: "${E2VERITY:=$(dirname "$0")/../../e2verity}"
	# rand_bytes and the other helpers (sourced, the caller has them already)
	# shellcheck source=tests/lib.sh
	. "$(dirname "$0")/../lib.sh"
	set -e
	mkdir -p "$out"
	rm -rf "$out/files"
	make_fileset "$out/files" big
	mke2fs -q -F -t ext4 -b 4096 -d "$out/files" "$out/sample.img" 256M >/dev/null
	"$E2VERITY" seal -q -a "$@" "$out/sample.img"
	e2fsck -fn "$out/sample.img" >/dev/null 2>&1
	write_manifest "$out/files" "$out/manifest.tsv" "$@"
	echo "$out/sample.img: $(wc -l <"$out/manifest.tsv") sealed files listed in $out/manifest.tsv"
fi
