#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fetch-kernels.sh - download and unpack the extra kernels of the harness's matrix (Debian 13's 6.12),
# and Debian 13's ima-evm-utils, the oracle of IMA's fs-verity signatures
#
# Usage: fetch-kernels.sh [--update] [--quiet] [TARGET...]
#   TARGET        6.12-amd64, 6.12-arm64-16k, ima-evm-utils (default: all three)
#   --update      fetch the newest package even when a target is already cached
#   --quiet       print only failures
# The packages come from the Debian archive this machine's apt already uses (suite trixie), through
# a private apt configuration under the cache (its own sources list, lists and archives, arm64 among
# its architectures): the system's apt sources and dpkg database are never touched, no foreign
# architecture is installed. A target is the kernel package unpacked with `dpkg -x`, its modules.dep
# made with `depmod -b`, and for arm64 the userland the guest runs (static busybox, fsverity,
# keyctl, lsattr and their libraries) unpacked from Debian's arm64 packages. A cached target is
# used as it is (no network); kernel-lib.sh finds it by its kernel.env. The ima-evm-utils target
# is no kernel: evmctl 1.5 (`sign_hash --veritysig`; Debian 12 has 1.4) with the libraries it
# loads, unpacked under CACHE/ima-evm-utils/root and run through the unpacked dynamic loader
# (ld-linux-x86-64.so.2 --library-path); CACHE/ima-evm-utils/tool.env says how.
# Cache: $E2V_KERNEL_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/e2verity/kernels.
#   E2V_DEBIAN_ARCHIVE  the archive URI (default: the one apt serves this machine's release from)
# Exit status: 0 every target is there, 1 one could not be had (why: stderr and CACHE/TARGET.why).
set -u

KHARNESS_DIR=$(cd "$(dirname "$0")" && pwd)
SUITE=trixie

update=no
quiet=no
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=yes ;;
	--quiet) quiet=yes ;;
	-h | --help) sed -n '4,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "fetch-kernels: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || set -- 6.12-amd64 6.12-arm64-16k ima-evm-utils

# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$KHARNESS_DIR/kernel-lib.sh"
cache=$(kh_kernel_cache)
mkdir -p "$cache" || exit 1

say()
{
	[ "$quiet" = yes ] || echo "fetch-kernels: $*"
}

# target_info TARGET - set the package name pattern, architecture and qemu of a target
target_info()
{
	case $1 in
	6.12-amd64)
		t_pattern='^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$'
		t_deb_arch=amd64 t_arch=x86_64 t_qemu=qemu-system-x86_64 t_user=
		t_extra=
		;;
	6.12-arm64-16k)
		t_pattern='^linux-image-6\.12\.[0-9]+\+deb13-arm64-16k-unsigned$'
		t_deb_arch=arm64 t_arch=aarch64 t_qemu=qemu-system-aarch64
		# what the guest runs, with every library it loads (checked below with readelf)
		t_user="busybox-static fsverity libfsverity0 keyutils libkeyutils1 e2fsprogs libext2fs2t64
			libcom-err2 libssl3t64 libzstd1 zlib1g libc6"
		# the ARMv8 crypto-extension hashes: what such a device uses, and faster under TCG
		t_extra="sha2_ce sha512_ce"
		;;
	*) return 1 ;;
	esac
}

# The private apt: its own sources list (the suite on this machine's archive), state and cache.
aptdir=$cache/apt
apt_setup()
{
	[ -f "$aptdir/apt.conf" ] && return 0
	uri=${E2V_DEBIAN_ARCHIVE:-}
	if [ -z "$uri" ]; then
		codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
		uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
			awk -v r="$codename" '$2 == r && $3 == "main" { print $1; exit }')
	fi
	if [ -z "$uri" ]; then
		why="cannot tell which Debian archive this machine uses (no main component of its release in \`apt-get indextargets\`; set E2V_DEBIAN_ARCHIVE)"
		return 1
	fi
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || { why="no $keyring (install debian-archive-keyring)"; return 1; }
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/sources.list.d" \
		"$aptdir/preferences.d" || return 1
	: >"$aptdir/status"
	echo "deb [signed-by=$keyring] $uri $SUITE main" >"$aptdir/sources.list"
	cat >"$aptdir/apt.conf.tmp" <<EOF
Dir::Etc::SourceList "$aptdir/sources.list";
Dir::Etc::SourceParts "$aptdir/sources.list.d";
Dir::Etc::Preferences "$aptdir/preferences";
Dir::Etc::PreferencesParts "$aptdir/preferences.d";
Dir::State::Lists "$aptdir/lists";
Dir::State::status "$aptdir/status";
Dir::Cache "$aptdir/cache";
APT::Architecture "amd64";
APT::Architectures { "amd64"; "arm64"; };
APT::Sandbox::User "$(id -un)";
Acquire::Languages "none";
EOF
	mv "$aptdir/apt.conf.tmp" "$aptdir/apt.conf"
}

apt_updated=no
apt_update()
{
	[ "$apt_updated" = yes ] && return 0
	say "updating the private package lists ($SUITE)"
	if ! APT_CONFIG=$aptdir/apt.conf apt-get -q update >"$aptdir/update.log" 2>&1; then
		why="apt-get update of suite $SUITE failed: $(grep -E '^(E|W):' "$aptdir/update.log" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	apt_updated=yes
}

# download PKG:ARCH... - into $cache/debs (kept, so a rebuilt target needs no network)
download()
{
	mkdir -p "$cache/debs"
	if ! (cd "$cache/debs" && APT_CONFIG=$aptdir/apt.conf apt-get -q download "$@") \
		>"$aptdir/download.log" 2>&1; then
		why="apt-get download $* failed: $(grep -E '^(E|W):' "$aptdir/download.log" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
}

# deb_of NAME ARCH - the downloaded .deb of a package (the newest if several)
deb_of()
{
	printf '%s\n' "$cache/debs/$1"_*_"$2".deb "$cache/debs/$1"_*_all.deb | while read -r d; do
		[ -f "$d" ] && echo "$d"
	done | sort -V | tail -n 1
}

# needed_libs ROOT ELF - check that every library ELF loads (recursively) is under ROOT
needed_libs()
{
	for n in $(readelf -d "$2" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		f=
		for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib; do
			[ -e "$1/$d/$n" ] && { f=$1/$d/$n; break; }
		done
		if [ -z "$f" ]; then
			why="$n, needed by $(basename "$2"), is in none of the arm64 packages unpacked"
			return 1
		fi
		needed_libs "$1" "$f" || return 1
	done
}

# fetch_evmctl - $cache/ima-evm-utils: evmctl and every library it loads, from trixie's amd64
# packages, with a tool.env that runs it; or set why and return 1
fetch_evmctl()
{
	dir=$cache/ima-evm-utils
	if [ -f "$dir/tool.env" ] && [ "$update" = no ]; then
		say "ima-evm-utils: cached ($(sed -n 's/^EVMCTL_VERSION=//p' "$dir/tool.env"))"
		return 0
	fi
	for t in apt-get dpkg dpkg-deb; do
		command -v "$t" >/dev/null 2>&1 || { why="$t not found"; return 1; }
	done
	[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] ||
		{ why="only an amd64 host runs Debian's amd64 evmctl"; return 1; }
	apt_setup || return 1
	apt_update || return 1
	# evmctl, the libraries it loads, and the glibc (and its loader) they were built against
	t_pkgs="ima-evm-utils libimaevm4 libssl3t64 libkeyutils1 libc6"
	set --
	for p in $t_pkgs; do
		set -- "$@" "$p:amd64"
	done
	say "ima-evm-utils: downloading $t_pkgs"
	download "$@" || return 1
	rm -rf "$dir.new"
	mkdir -p "$dir.new/root"
	for p in $t_pkgs; do
		d=$(deb_of "$p" amd64)
		[ -n "$d" ] || { why="no .deb of $p:amd64 after the download"; return 1; }
		dpkg-deb -x "$d" "$dir.new/root" || { why="dpkg-deb -x $d failed"; return 1; }
	done
	libdir=$dir.new/root/usr/lib/x86_64-linux-gnu
	[ -x "$dir.new/root/usr/bin/evmctl" ] || { why="ima-evm-utils has no usr/bin/evmctl"; return 1; }
	[ -x "$libdir/ld-linux-x86-64.so.2" ] || { why="libc6 has no ld-linux-x86-64.so.2"; return 1; }
	v=$("$libdir/ld-linux-x86-64.so.2" --library-path "$libdir" "$dir.new/root/usr/bin/evmctl" \
		--version 2>&1) || { why="the unpacked evmctl does not run: $v"; return 1; }
	# the paths are written for where the directory will be after the rename
	cat >"$dir.new/tool.env" <<EOF
EVMCTL_VERSION=$(dpkg-deb -f "$(deb_of ima-evm-utils amd64)" Version)
EVMCTL=$dir/root/usr/bin/evmctl
EVMCTL_LIBDIR=$dir/root/usr/lib/x86_64-linux-gnu
EVMCTL_LOADER=$dir/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
EOF
	rm -rf "$dir.old"
	[ -d "$dir" ] && mv "$dir" "$dir.old"
	mv "$dir.new" "$dir" && rm -rf "$dir.old"
	rm -f "$cache/ima-evm-utils.why"
	say "ima-evm-utils: ready ($v)"
}

# fetch TARGET - make $cache/TARGET complete, or set why and return 1
fetch()
{
	tg=$1
	[ "$tg" = ima-evm-utils ] && { fetch_evmctl; return; }
	target_info "$tg" || { why="unknown target $tg"; return 1; }
	dir=$cache/$tg
	if [ -f "$dir/kernel.env" ] && [ "$update" = no ]; then
		say "$tg: cached ($(sed -n 's/^KT_KVER=//p' "$dir/kernel.env"))"
		return 0
	fi
	for t in apt-get dpkg-deb depmod readelf; do
		command -v "$t" >/dev/null 2>&1 || { why="$t not found"; return 1; }
	done
	apt_setup || return 1
	apt_update || return 1
	pkg=$(APT_CONFIG=$aptdir/apt.conf apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		grep -E "$t_pattern" | sort -V | tail -n 1)
	if [ -z "$pkg" ]; then
		why="no package matching $t_pattern in $SUITE"
		return 1
	fi
	kver=${pkg#linux-image-}
	kver=${kver%-unsigned}
	set -- "$pkg:$t_deb_arch"
	for p in $t_user; do
		set -- "$@" "$p:$t_deb_arch"
	done
	say "$tg: downloading $pkg$([ -n "$t_user" ] && echo " and the arm64 userland")"
	download "$@" || return 1

	rm -rf "$dir.new"
	mkdir -p "$dir.new/kernel"
	kdeb=$(deb_of "$pkg" "$t_deb_arch")
	dpkg-deb -x "$kdeb" "$dir.new/kernel" || { why="dpkg-deb -x $kdeb failed"; return 1; }
	kernel=$dir.new/kernel/boot/vmlinuz-$kver
	[ -f "$kernel" ] || { why="$pkg has no /boot/vmlinuz-$kver"; return 1; }
	# Debian's kernel packages leave modules.dep to depmod at install time
	base=
	for b in usr ''; do
		[ -d "$dir.new/kernel/$b/lib/modules/$kver" ] && { base=$dir.new/kernel/$b; break; }
	done
	[ -n "$base" ] || { why="$pkg has no lib/modules/$kver"; return 1; }
	depmod -b "$base" "$kver" 2>"$dir.new/depmod.log" ||
		{ why="depmod -b $base $kver failed: $(head -n 3 "$dir.new/depmod.log")"; return 1; }
	moddir=${base#"$dir.new"}/lib/modules/$kver
	userland=
	if [ -n "$t_user" ]; then
		mkdir -p "$dir.new/user"
		for p in $t_user; do
			d=$(deb_of "$p" "$t_deb_arch")
			[ -n "$d" ] || { why="no .deb of $p:$t_deb_arch after the download"; return 1; }
			dpkg-deb -x "$d" "$dir.new/user" || { why="dpkg-deb -x $d failed"; return 1; }
		done
		for b in bin/busybox bin/fsverity bin/keyctl bin/lsattr sbin/lsattr; do
			[ -f "$dir.new/user/usr/$b" ] && needed_libs "$dir.new/user" "$dir.new/user/usr/$b" ||
				[ ! -f "$dir.new/user/usr/$b" ] || return 1
		done
		[ -f "$dir.new/user/usr/bin/busybox" ] || { why="busybox-static:$t_deb_arch has no usr/bin/busybox"; return 1; }
		userland=/user
	fi
	# the paths are written for where the directory will be after the rename
	cat >"$dir.new/kernel.env" <<EOF
KT_NAME=$tg
KT_PACKAGE=$pkg
KT_VERSION=$(dpkg-deb -f "$kdeb" Version)
KT_KVER=$kver
KT_ARCH=$t_arch
KT_QEMU=$t_qemu
KT_KERNEL=$dir/kernel/boot/vmlinuz-$kver
KT_KMODDIR=$dir$moddir
KT_USERLAND=${userland:+$dir$userland}
KT_KMODULES_EXTRA="$t_extra"
EOF
	rm -rf "$dir.old"
	[ -d "$dir" ] && mv "$dir" "$dir.old"
	mv "$dir.new" "$dir" && rm -rf "$dir.old"
	rm -f "$cache/$tg.why"
	say "$tg: ready ($kver)"
}

# One fetcher at a time (tests run in parallel may all ask).
status=0
(
	command -v flock >/dev/null 2>&1 && flock 9
	for t in "$@"; do
		why=
		if ! fetch "$t"; then
			echo "fetch-kernels: $t: ${why:-failed}" >&2
			echo "${why:-failed}" >"$cache/$t.why"
			rm -rf "$cache/$t.new"
			status=1
		fi
	done
	exit $status
) 9>"$cache/lock" || status=1
exit $status
