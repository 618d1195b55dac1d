#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install-deps.sh - install what building and testing e2verity needs on Debian 12 (run as root)
set -e
PKGS="build-essential autoconf automake libtool pkg-config
	libext2fs-dev comerr-dev e2fsprogs libssl-dev openssl check
	fsverity groff-base
	libblkid-dev fdisk android-sdk-libsparse-utils
	debhelper lintian
	clang libclang-rt-14-dev valgrind
	clang-tools-14 clang-format cppcheck shellcheck
	qemu-system-x86 linux-image-amd64 busybox-static keyutils cpio zstd
	qemu-system-arm binutils xz-utils kmod debian-archive-keyring"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages:$missing; run this script as root" >&2
		exit 1
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi
# The other kernels of the real-kernel tests (Debian 13's 6.12 for amd64 and 16 KiB-page arm64),
# unpacked into a cache outside the tree, through a private apt configuration. Once cached, no
# network; when they cannot be had, their tests say SKIP with the reason, so this is no failure.
sh "$(dirname "$0")/../tests/kernel/fetch-kernels.sh" --quiet ||
	echo "install-deps: some kernels of the matrix could not be fetched (see above)" >&2
exit 0
