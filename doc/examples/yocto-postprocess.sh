#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# yocto-postprocess.sh - an ext4 root filesystem image with chosen paths sealed, checked, and a manifest
#
#   yocto-postprocess.sh ROOTFS_DIR IMAGE MANIFEST PATH...
#
# PATHs are absolute inside the image; a directory stands for every regular file under it.
# MANIFEST gets one "sha256:DIGEST /path" line per sealed file: what "fsverity measure" prints for
# it on the target, for an IMA/IPE policy or a signing service.
#
# In a Yocto image recipe (or a bbclass) the same steps would follow the ext4 image task; a sketch,
# not tried against a Yocto build here:
#
#   DEPENDS += "e2verity-native"
#   do_image_ext4[postfuncs] += "e2verity_seal_rootfs"
#   e2verity_seal_rootfs() {
#       img=${IMGDEPLOYDIR}/${IMAGE_NAME}${IMAGE_NAME_SUFFIX}.ext4
#       e2verity seal -q -r $img /usr/bin /usr/sbin /usr/lib
#       e2verity check $img
#       e2verity measure $img --all >$img.fsverity-manifest
#   }
#
# Nothing here needs root, a loop mount or a kernel with fs-verity on the build host.
set -eu
E2VERITY=${E2VERITY:-e2verity}
[ $# -ge 4 ] || { echo "usage: $0 ROOTFS_DIR IMAGE MANIFEST PATH..." >&2; exit 2; }
rootfs=$1 img=$2 manifest=$3
shift 3

# 1. The image, as IMAGE_CMD:ext4 makes it.  4096-byte blocks: every kernel with fs-verity
#    mounts those; before Linux 6.3 no other size works.  Room for the trees: the data again
#    is far more than they take (a 4 KiB block of SHA-256 hashes covers 512 KiB of data).
kb=$(du -sk "$rootfs" | cut -f1)
mke2fs -q -F -t ext4 -b 4096 -d "$rootfs" "$img" "$((kb * 2 + 8192))K" >/dev/null

# 2. Seal the chosen paths.  Nothing is written unless every file can be sealed.
"$E2VERITY" seal -q -r "$img" "$@"

# 3. Re-verify every sealed file from the image, as the kernel will (exit status as fsck).
"$E2VERITY" check "$img"

# 4. The manifest: the stored digests, read back from the image.
"$E2VERITY" measure "$img" --all >"$manifest.tmp"
mv "$manifest.tmp" "$manifest"

# 5. And the filesystem is still one e2fsck is happy with.
e2fsck -fn "$img" >/dev/null 2>&1 || { echo "$0: e2fsck -fn $img finds problems" >&2; exit 1; }
echo "$img: $(wc -l <"$manifest") files sealed; manifest in $manifest"
