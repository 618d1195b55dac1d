#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pvh-kernel.sh - the x86 kernel's uncompressed vmlinux, once per kernel, for qemu's PVH entry
#
# Usage: pvh-kernel.sh BZIMAGE [CACHE_DIR]
# Prints the path of the vmlinux taken out of BZIMAGE (cached under CACHE_DIR, by default the
# initramfs's: kh_kcache_dir in kernel-lib.sh), or BZIMAGE
# itself when that cannot be done (no PVH note, an unknown compression, no decompressor).
# Why: under TCG a bzImage spends some 2 of its 6 seconds of boot in the BIOS, real mode and the
# decompressor, on every one of the suite's fifty-odd boots; qemu loads an ELF vmlinux with a
# Xen PVH note (CONFIG_PVH) straight into the 64-bit entry. Same kernel, same code after entry.
set -u
bz=${1:?usage: pvh-kernel.sh BZIMAGE [CACHE_DIR]}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$(cd "$(dirname "$0")" && pwd)/kernel-lib.sh"
cache=${2:-$(kh_kcache_dir)}

# le N OFFSET: the N-byte little-endian number at OFFSET of the bzImage
le()
{
	od -An -t u"$1" -j "$2" -N "$1" --endian=little "$bz" | tr -d ' '
}

# the x86 boot protocol (Documentation/arch/x86/boot.rst): "HdrS" at 0x202, version >= 2.08
# for payload_offset (0x248) and payload_length (0x24c), counted from the protected-mode code,
# which follows the (setup_sects (0x1f1) + 1) sectors of real-mode setup
[ -r "$bz" ] && [ "$(od -An -c -j 514 -N 4 "$bz" 2>/dev/null | tr -d ' ')" = HdrS ] &&
	[ "$(le 2 518)" -ge 520 ] || { echo "$bz"; exit 0; }
sects=$(le 1 497)
[ "$sects" -ne 0 ] || sects=4
off=$(((sects + 1) * 512 + $(le 4 584)))
len=$(le 4 588)
out=$cache/vmlinux-$(basename "$bz")-$(cksum <"$bz" | cut -d' ' -f1)
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache" || { echo "$bz"; exit 0; }
tmp=$(mktemp "$out.XXXXXX") || { echo "$bz"; exit 0; }
trap 'rm -f "$tmp"' EXIT
magic=$(od -An -t x1 -j "$off" -N 4 "$bz" | tr -d ' ')
case $magic in
fd377a58) dec="xz -dcq" ;;
28b52ffd) dec="zstd -dcq" ;;
1f8b*) dec="gzip -dcq" ;;
*) dec= ;;
esac
# the payload may end with its decompressed size: a decompressor's complaint about what follows
# is no failure, what it wrote is judged below
[ -n "$dec" ] && command -v "${dec%% *}" >/dev/null 2>&1 &&
	tail -c +$((off + 1)) "$bz" | head -c "$len" | $dec >"$tmp" 2>/dev/null
# an ELF file with the PVH entry note (readelf names it "Xen" with type 0x12, XEN_ELFNOTE_PHYS32_ENTRY)
if [ "$(head -c 4 "$tmp" 2>/dev/null | od -An -c | tr -d ' ')" = 177ELF ] &&
	readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*0x00000012\|PHYS32_ENTRY' && mv "$tmp" "$out"; then
	echo "$out"
else
	echo "$bz"
fi
