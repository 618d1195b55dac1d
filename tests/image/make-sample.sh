#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make-sample.sh - the file set of the image tests, and a sealed image plus manifest for the kernel test
#
# Sourced (after tests/lib.sh): make_fileset DIR [big]   files at the boundary sizes, a sparse file,
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
	d=$1
	mkdir -p "$d/sizes" "$d/dir with spaces" "$d/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12" "$d/empty dir"
	for n in 0 1 100 4095 4096 4097 65535 65536 65537 524288 524289 1048577; do
		head -c "$n" /dev/urandom >"$d/sizes/f$n"
	done
	printf 'hello\n' >"$d/hello.txt"
	head -c 3000 /dev/urandom >"$d/dir with spaces/name with spaces.bin"
	head -c 200000 /dev/urandom >"$d/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/deep.bin"
	# a hole in the middle: data at both ends
	rm -f "$d/sparse"
	head -c 10000 /dev/urandom >"$d/sparse"
	truncate -s 3000000 "$d/sparse"
	head -c 5000 /dev/urandom >>"$d/sparse"
	if [ "$2" = big ]; then
		rm -f "$d/sparse-70M"
		printf 'start\n' >"$d/sparse-70M"
		truncate -s 70000000 "$d/sparse-70M"
		printf 'end' | dd of="$d/sparse-70M" bs=1 seek=69999997 conv=notrunc 2>/dev/null
	fi
	ln -sf hello.txt "$d/link"
}

# write_manifest DIR OUT [fsverity options]
write_manifest()
{
	d=$1 out=$2
	shift 2
	: >"$out"
	(cd "$d" && find . -type f | LC_ALL=C sort) | while IFS= read -r f; do
		p=${f#.}
		dg=$(fsverity digest "$@" "$d/$f" | cut -d' ' -f1) || return 1
		sh=$(sha256sum <"$d/$f" | cut -d' ' -f1)
		printf '%s\t%s\t%s\n' "$p" "$dg" "$sh"
	done >>"$out"
}

# Run as a script: build the sealed sample image for the kernel test.
if [ "${0##*/}" = make-sample.sh ]; then
	[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [fsverity tree options]" >&2; exit 2; }
	out=$1
	shift
	: "${E2VERITY:=$(dirname "$0")/../../e2verity}"
	set -e
	mkdir -p "$out"
	rm -rf "$out/files"
	make_fileset "$out/files" big
	mke2fs -q -F -t ext4 -b 4096 -d "$out/files" "$out/sample.img" 256M
	"$E2VERITY" seal -q -a "$@" "$out/sample.img"
	e2fsck -fn "$out/sample.img" >/dev/null
	write_manifest "$out/files" "$out/manifest.tsv" "$@"
	echo "$out/sample.img: $(wc -l <"$out/manifest.tsv") sealed files listed in $out/manifest.tsv"
fi
