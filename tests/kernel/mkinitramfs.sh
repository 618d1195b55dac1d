#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mkinitramfs.sh - build, once per kernel and harness version, the base initramfs of the kernel harness
#
# Usage: mkinitramfs.sh [CACHE_DIR]
# Prints the path of the gzip'd newc cpio on stdout. It holds a static busybox, the ext4/virtio/crypto
# modules in load order, fsverity, keyctl and lsattr with their shared libraries, /init
# (guest-init.sh) and /e2v/guest-lib.sh. The result is cached under CACHE_DIR (default:
# kh_kcache_dir in kernel-lib.sh) by kernel version and a checksum
# of the harness files, so a test suite builds it once; concurrent builders are harmless (atomic rename).
# Exit status: 0 built or cached, 77 an ingredient is missing, 1 failure.
set -eu

KHARNESS_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$KHARNESS_DIR/kernel-lib.sh"

# What the guest needs: virtio disks, ext4 (crc32c for metadata_csum), sha512 for fs-verity's second
# hash. Dependencies are added from modules.dep.
KMODULES=${E2V_KMODULES:-"virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk crc16 mbcache jbd2 crc32c_generic ext4 sha512_generic"}
kh_check || kh_skip "$KH_WHY"
KMODULES="$KMODULES $KH_KMODULES_EXTRA ${E2V_KMODULES_EXTRA:-}"
command -v ldd >/dev/null 2>&1 || kh_skip "ldd not found"

cache=${1:-$(kh_kcache_dir)}
mkdir -p "$cache"

sum=$( (cat "$KHARNESS_DIR/mkinitramfs.sh" "$KHARNESS_DIR/guest-init.sh" \
	"$KHARNESS_DIR/guest-lib.sh"
	echo "$KH_KERNEL $KH_KMODDIR $KMODULES $KH_BUSYBOX $KH_USERLAND"
	ls -lL "$KH_BUSYBOX" "$(command -v fsverity)") | cksum | cut -d' ' -f1)
out=$cache/base-$KH_TARGET-$KH_KVER-$sum.cpio.gz
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/e2v-initramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
root=$work/root
mkdir -p "$root/bin" "$root/usr" "$root/lib/modules" "$root/e2v" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/mnt" "$root/etc"
ln -s bin "$root/sbin"
ln -s ../bin "$root/usr/bin"
ln -s ../bin "$root/usr/sbin"

cp "$KH_BUSYBOX" "$root/bin/busybox"
# A foreign busybox cannot run here to list its applets: the host's list is close, and /init
# runs `busybox --install -s` for the rest.
applets=$KH_BUSYBOX
[ -n "$KH_USERLAND" ] && applets=$(command -v busybox || true)
if [ -n "$applets" ]; then
	for a in $("$applets" --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
fi
[ -e "$root/bin/sh" ] || ln -s busybox "$root/bin/sh"

# copy_dyn BINARY - copy a dynamic executable to /bin with every library ldd lists, at the same paths
copy_dyn()
{
	bin=$(command -v "$1") || return 0
	rm -f "$root/bin/$1"
	cp -L "$bin" "$root/bin/$1"
	ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
}

# copy_foreign BINARY - the same from the foreign userland KH_USERLAND (fetch-kernels.sh), whose
# programs cannot run here: the libraries are found from readelf's NEEDED entries, recursively,
# and go to /lib/<multiarch>, a directory the dynamic loader searches by default
copy_foreign()
{
	for d in usr/bin usr/sbin bin sbin; do
		[ -f "$KH_USERLAND/$d/$1" ] || continue
		rm -f "$root/bin/$1"
		cp -L "$KH_USERLAND/$d/$1" "$root/bin/$1"
		interp=$(readelf -l "$root/bin/$1" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
		if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
			mkdir -p "$root$(dirname "$interp")"
			cp -L "$KH_USERLAND/usr$interp" "$root$interp" 2>/dev/null ||
				cp -L "$KH_USERLAND$interp" "$root$interp"
		fi
		foreign_libs "$root/bin/$1"
		return 0
	done
	echo "mkinitramfs: no $1 in $KH_USERLAND" >&2
	return 1
}
foreign_libs()
{
	for n in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		for d in "$root"/lib/*-linux-gnu; do
			[ -e "$d/$n" ] && continue 2
		done
		found=
		for f in "$KH_USERLAND"/usr/lib/*-linux-gnu/"$n" "$KH_USERLAND"/lib/*-linux-gnu/"$n"; do
			[ -e "$f" ] && { found=$f; break; }
		done
		[ -n "$found" ] || { echo "mkinitramfs: $n, needed by $1, not in $KH_USERLAND" >&2; return 1; }
		multiarch=$(basename "$(dirname "$found")")
		mkdir -p "$root/lib/$multiarch"
		cp -L "$found" "$root/lib/$multiarch/$n"
		foreign_libs "$root/lib/$multiarch/$n" || return 1
	done
}
for p in fsverity keyctl lsattr; do
	if [ -n "$KH_USERLAND" ]; then
		copy_foreign "$p" || exit 1
	else
		copy_dyn "$p"
	fi
done

# Modules in load order: each one after everything modules.dep says it needs. A wanted module that
# is built in (modules.builtin) is skipped; one that is neither is an error.
touch "$work/builtin"
[ -f "$KH_KMODDIR/modules.builtin" ] && cp "$KH_KMODDIR/modules.builtin" "$work/builtin"
awk -v want="$KMODULES" '
function norm(p,  n) {
	n = p; sub(/.*\//, "", n); sub(/\.ko(\.[a-z0-9]+)?$/, "", n); gsub(/-/, "_", n); return n
}
function visit(p,  d, i, n) {
	if (p in done)
		return
	done[p] = 1
	n = split(deps[p], d, " ")
	for (i = 1; i <= n; i++)
		visit(d[i])
	print p
}
FNR == NR { builtin[norm($1)] = 1; next }
{
	p = $1; sub(/:$/, "", p); byname[norm(p)] = p
	deps[p] = ""
	for (i = 2; i <= NF; i++)
		deps[p] = deps[p] " " $i
}
END {
	n = split(want, w, " ")
	for (i = 1; i <= n; i++) {
		m = w[i]; gsub(/-/, "_", m)
		if (m in byname)
			visit(byname[m])
		else if (!(m in builtin)) {
			print "mkinitramfs: module " w[i] " not found in modules.dep" > "/dev/stderr"
			bad = 1
		}
	}
	exit bad
}' "$work/builtin" "$KH_KMODDIR/modules.dep" >"$work/modules"

: >"$root/e2v/modules"
while read -r m; do
	src=$KH_KMODDIR/$m
	name=$(basename "$m")
	case $name in
	*.ko) cp "$src" "$root/lib/modules/$name" ;;
	*.ko.xz) name=${name%.xz}; xz -dc "$src" >"$root/lib/modules/$name" ;;
	*.ko.zst) name=${name%.zst}; zstd -qdc "$src" >"$root/lib/modules/$name" ;;
	*.ko.gz) name=${name%.gz}; gzip -dc "$src" >"$root/lib/modules/$name" ;;
	*) echo "mkinitramfs: unknown module format $m" >&2; exit 1 ;;
	esac
	echo "$name" >>"$root/e2v/modules"
done <"$work/modules"

cp "$KHARNESS_DIR/guest-init.sh" "$root/init"
cp "$KHARNESS_DIR/guest-lib.sh" "$root/e2v/guest-lib.sh"
chmod 755 "$root/init"
echo "$KH_KVER" >"$root/e2v/kernel"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -6n >"$work/base.cpio.gz"
mv -f "$work/base.cpio.gz" "$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
echo "$out"
