#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# android-sparse.sh - seal the APKs and framework jars of a system image kept in Android's sparse format
#
#   android-sparse.sh ROOT_DIR SPARSE_IMAGE MANIFEST
#
# ROOT_DIR is the root of the system partition (system-as-root: it holds system/app, ...).
# Android builds make system.img as a sparse image (img2simg's format: holes and fills are not
# stored) and fastboot flashes it as such.  e2verity reads and writes that format directly: the
# image is only expanded into a file without a name in $TMPDIR, holes kept, and comes back sparse.  Sealed here: every file under
# /system/app, /system/priv-app and /system/framework, the files whose fs-verity digests an
# Android device checks; MANIFEST gets their "sha256:DIGEST /path" lines.
#
# Android's own tools keep fs-verity metadata next to the files (.fsv_meta, read by userspace);
# this flow instead seals the files in the filesystem, for a kernel that enforces fs-verity.
set -eu
E2VERITY=${E2VERITY:-e2verity}
[ $# -eq 3 ] || { echo "usage: $0 ROOT_DIR SPARSE_IMAGE MANIFEST" >&2; exit 2; }
root=$1 simg=$2 manifest=$3
raw=$simg.raw.tmp
trap 'rm -f "$raw"' EXIT

# 1. The system image as the build makes it: ext4 (4096-byte blocks, as every Android kernel
#    needs for fs-verity), then made sparse.  Only the sparse image is kept.
kb=$(du -sk "$root" | cut -f1)
mke2fs -q -F -t ext4 -b 4096 -L system -d "$root" "$raw" "$((kb * 2 + 16384))K" >/dev/null
img2simg "$raw" "$simg"
rm -f "$raw"

# 2. Seal the chosen directories in the sparse image; it is written back sparse, and only if
#    every file could be sealed.
set --
for d in /system/app /system/priv-app /system/framework; do
	[ -d "$root$d" ] && set -- "$@" "$d"
done
"$E2VERITY" seal -q -r --manifest="$manifest" "$simg" "$@"

# 3. Check the sparse image as it will be flashed.
"$E2VERITY" check "$simg"
echo "$simg: $(wc -l <"$manifest") files sealed; digests in $manifest"
