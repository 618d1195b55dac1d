# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# kernel-lib.sh - host side of the real-kernel test harness (source it; POSIX sh)
#
# A test does:
#	. "$top_srcdir/tests/kernel/kernel-lib.sh"
#	kh_require                  # exit 77 (SKIP) with a reason if qemu/kernel/busybox is missing
#	kh_boot -w img -o out guest.sh || exit 1
#	kh_get out MEASURE /mnt/a   # the value the guest printed for /mnt/a
# See tests/kernel/README for the guest output protocol.

# The KH_* variables it sets are for its callers.
# shellcheck disable=SC2034

KHARNESS_DIR=${KHARNESS_DIR:-${top_srcdir:-.}/tests/kernel}

# kh_skip MESSAGE - report why the test cannot run and exit 77 (automake SKIP)
kh_skip()
{
	echo "SKIP: $*" >&2
	exit 77
}

# kh_fail MESSAGE - report a harness failure and exit 99 (automake ERROR)
kh_fail()
{
	echo "kernel harness: $*" >&2
	exit 99
}

# kh_kcache_dir - where what is made from a kernel is cached (its initramfs, its PVH vmlinux):
# $E2V_KCACHE, else the build tree's tests/kernel/cache, else $TMPDIR
kh_kcache_dir()
{
	if [ -n "${E2V_KCACHE:-}" ]; then
		echo "$E2V_KCACHE"
	elif [ -n "${top_builddir:-}" ]; then
		echo "$top_builddir/tests/kernel/cache"
	else
		echo "${TMPDIR:-/tmp}/e2verity-kcache-$(id -u)"
	fi
}

# kh_kernel_cache - where fetch-kernels.sh keeps the kernels of the matrix
kh_kernel_cache()
{
	echo "${E2V_KERNEL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/e2verity/kernels}"
}

# kh_target_name KVER - a kernel's name in the matrix: major.minor and flavour
# (6.1.0-57-amd64 -> 6.1-amd64, 6.12.117+deb13-arm64-16k -> 6.12-arm64-16k)
kh_target_name()
{
	echo "$1" | sed -E 's/^([0-9]+\.[0-9]+)[.0-9]*(\+[A-Za-z0-9.~]+)?(-[0-9]+)?-([a-z].*)$/\1-\4/'
}

# kh_find_kernel - set KH_KERNEL, KH_KVER, KH_KMODDIR to the host's kernel; on failure set KH_WHY
# and return 1. E2V_KERNEL/E2V_KMODDIR override; otherwise the newest /boot/vmlinuz-* whose
# /lib/modules/<version>/modules.dep exists.
kh_find_kernel()
{
	KH_WHY=
	if [ -n "${E2V_KERNEL:-}" ]; then
		KH_KERNEL=$E2V_KERNEL
		if [ -n "${E2V_KMODDIR:-}" ]; then
			KH_KMODDIR=$E2V_KMODDIR
			KH_KVER=$(basename "$KH_KMODDIR")
		else
			KH_KVER=$(basename "$KH_KERNEL")
			KH_KVER=${KH_KVER#vmlinuz-}
			KH_KMODDIR=/lib/modules/$KH_KVER
		fi
	else
		KH_KERNEL=$(printf '%s\n' /boot/vmlinuz-* | sort -rV |
			while read -r k; do
				if [ -r "$k" ] &&
				   [ -f "/lib/modules/${k#/boot/vmlinuz-}/modules.dep" ]; then
					echo "$k"
					break
				fi
			done)
		KH_KVER=${KH_KERNEL#/boot/vmlinuz-}
		KH_KMODDIR=/lib/modules/$KH_KVER
		if [ -z "$KH_KERNEL" ]; then
			KH_WHY="no readable /boot/vmlinuz-* with a matching /lib/modules/<version>/modules.dep (set E2V_KERNEL, E2V_KMODDIR)"
			return 1
		fi
		KH_KMODDIR=${E2V_KMODDIR:-$KH_KMODDIR}
	fi
	if [ ! -r "$KH_KERNEL" ]; then
		KH_WHY="kernel image $KH_KERNEL is missing or not readable"
		return 1
	fi
	if [ ! -f "$KH_KMODDIR/modules.dep" ]; then
		KH_WHY="no modules.dep in $KH_KMODDIR"
		return 1
	fi
	return 0
}

# kh_targets - the kernels of the matrix, one name a line: the host's (or E2V_KERNEL's), then
# those fetch-kernels.sh provides, cached or not (an uncached one is a SKIP with its reason).
# The test's KH_KERNELS (default "all": every one) and the environment's E2V_KTARGETS="NAME..."
# keep only those; in both, "host" names the host's kernel.
kh_targets()
{
	_host=
	if kh_find_kernel; then
		_host=$(kh_target_name "$KH_KVER")
	fi
	{
		[ -z "$_host" ] || echo "$_host"
		if [ -z "${E2V_KERNEL:-}" ]; then
			echo 6.12-amd64
			echo 6.12-arm64-16k
			for e in "$(kh_kernel_cache)"/*/kernel.env; do
				[ -f "$e" ] && sed -n 's/^KT_NAME=//p' "$e"
			done
		fi
	} | awk -v only="${E2V_KTARGETS:-}" -v mine="${KH_KERNELS:-all}" -v host="$_host" '
		function names(list, set,   n, v, i) {
			n = split(list, v, " ")
			for (i = 1; i <= n; i++)
				set[v[i] == "host" ? host : v[i]] = 1
			return n
		}
		BEGIN { n = names(only, want); all = mine == "all"; if (!all) names(mine, test) }
		!seen[$0]++ && (n == 0 || $0 in want) && (all || $0 in test)'
}

# kh_use_target NAME - make NAME the kernel that run.sh boots: set KH_TARGET, KH_KERNEL, KH_KVER,
# KH_KMODDIR, KH_ARCH, KH_QEMU, KH_USERLAND (a foreign userland's root, or empty: the host's),
# KH_KMODULES_EXTRA, KH_PAGE_SIZE; or set KH_WHY and return 1
kh_use_target()
{
	KH_TARGET='' KH_USERLAND='' KH_KMODULES_EXTRA='' KH_WHY=''
	if kh_find_kernel && [ "$(kh_target_name "$KH_KVER")" = "$1" ]; then
		KH_ARCH=${E2V_KARCH:-$(uname -m)}
		KH_QEMU=${E2V_QEMU:-qemu-system-$KH_ARCH}
	else
		_env=$(kh_kernel_cache)/$1/kernel.env
		if [ ! -f "$_env" ]; then
			KH_WHY="kernel $1 is not in $(kh_kernel_cache) (tests/kernel/fetch-kernels.sh fetches it"
			if [ -f "$(kh_kernel_cache)/$1.why" ]; then
				KH_WHY="$KH_WHY; its last attempt: $(head -n 1 "$(kh_kernel_cache)/$1.why"))"
			else
				KH_WHY="$KH_WHY; scripts/install-deps.sh runs it)"
			fi
			return 1
		fi
		KT_USERLAND='' KT_KMODULES_EXTRA=''
		# shellcheck disable=SC1090 # written by fetch-kernels.sh
		. "$_env"
		KH_KERNEL=$KT_KERNEL KH_KVER=$KT_KVER KH_KMODDIR=$KT_KMODDIR KH_ARCH=$KT_ARCH
		KH_QEMU=$KT_QEMU KH_USERLAND=$KT_USERLAND KH_KMODULES_EXTRA=$KT_KMODULES_EXTRA
		if [ ! -r "$KH_KERNEL" ] || [ ! -f "$KH_KMODDIR/modules.dep" ]; then
			KH_WHY="the cached kernel $1 is incomplete (rerun tests/kernel/fetch-kernels.sh --update $1)"
			return 1
		fi
	fi
	KH_PAGE_SIZE=4096
	_cfg=$(dirname "$KH_KERNEL")/config-$KH_KVER
	if [ -f "$_cfg" ]; then
		grep -q '^CONFIG_ARM64_16K_PAGES=y' "$_cfg" && KH_PAGE_SIZE=16384
		grep -q '^CONFIG_ARM64_64K_PAGES=y' "$_cfg" && KH_PAGE_SIZE=65536
	fi
	KH_TARGET=$1
	return 0
}

# kh_kver_at_least MAJOR.MINOR - true when the kernel in use is that version or newer
kh_kver_at_least()
{
	_v=${KH_KVER%%[!0-9.]*}
	[ "$(printf '%s\n%s\n' "$1" "$_v" | sort -V | head -n 1)" = "$1" ]
}

# kh_page_block N - the first 4096-byte block of the page that holds 4096-byte block N. A kernel
# reads a file through its page cache a page at a time and fs-verity verifies the page whole, so
# with 16 KiB pages a corrupt block makes its three neighbours in the page unreadable too: EIO
# starts at this block (the same block with 4 KiB pages).
kh_page_block()
{
	echo $(($1 / (KH_PAGE_SIZE / 4096) * (KH_PAGE_SIZE / 4096)))
}

# kh_find_busybox - set KH_BUSYBOX to a static busybox, or KH_WHY and return 1
kh_find_busybox()
{
	if [ -n "${KH_USERLAND:-}" ]; then
		KH_BUSYBOX=$KH_USERLAND/usr/bin/busybox
		[ -f "$KH_BUSYBOX" ] && return 0
		KH_WHY="no busybox in $KH_USERLAND (rerun tests/kernel/fetch-kernels.sh --update)"
		return 1
	fi
	for b in ${E2V_BUSYBOX:-} /bin/busybox /usr/bin/busybox /usr/lib/busybox-static/busybox; do
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
			KH_BUSYBOX=$b
			return 0
		fi
	done
	KH_WHY="no static busybox (install busybox-static, or set E2V_BUSYBOX)"
	return 1
}

# kh_find_qemu - check KH_QEMU, or set KH_WHY and return 1
kh_find_qemu()
{
	if ! command -v "$KH_QEMU" >/dev/null 2>&1; then
		case $KH_QEMU in
		*aarch64) KH_WHY="$KH_QEMU not found (install qemu-system-arm)" ;;
		*) KH_WHY="$KH_QEMU not found (install qemu-system-x86, or set E2V_QEMU)" ;;
		esac
		return 1
	fi
	return 0
}

# kh_check - return 0 if everything the harness needs for the kernel in use is here, else 1 with
# KH_WHY set. The kernel in use: E2V_KTARGET, else the first of kh_targets that can run.
kh_check()
{
	if [ -z "${KH_TARGET:-}" ]; then
		if [ -n "${E2V_KTARGET:-}" ]; then
			kh_use_target "$E2V_KTARGET" || return 1
		else
			_why=
			for _t in $(kh_targets); do
				kh_use_target "$_t" && break
				_why=${_why:-$KH_WHY}
			done
			[ -n "$KH_TARGET" ] || { KH_WHY=${_why:-no kernel}; return 1; }
		fi
	fi
	if [ -z "$KH_USERLAND" ] && [ "$(uname -m)" != "$KH_ARCH" ]; then
		KH_WHY="the guest runs the host's programs, which are $(uname -m), on a $KH_ARCH kernel"
		return 1
	fi
	kh_find_qemu || return 1
	kh_find_busybox || return 1
	for t in cpio gzip fsverity timeout; do
		if ! command -v "$t" >/dev/null 2>&1; then
			KH_WHY="$t not found"
			return 1
		fi
	done
	if [ -n "$KH_USERLAND" ] && ! command -v readelf >/dev/null 2>&1; then
		KH_WHY="readelf not found (install binutils)"
		return 1
	fi
	return 0
}

# kh_matrix - run the calling test ($0) once per kernel of kh_targets, with E2V_KTARGET set, and
# exit with the combined status: 99 if one run could not finish, 1 if one failed, 77 if none could
# run, else 0. A kernel that cannot be had is a SKIP line with the reason, not a failure. The runs
# share KH_PREP_DIR, a directory removed at the end, where the first one's host side is saved for
# the next ones (kh_prep_save, kh_prep_restore).
kh_matrix()
{
	_ran=0 _bad=0 _err=0 _sum=
	# the host's preparation a run saves for the next kernels' (kh_prep_save, kh_prep_restore)
	KH_PREP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/e2verity-kprep.XXXXXX") || kh_fail "mktemp -d failed"
	export KH_PREP_DIR
	trap 'rm -rf "$KH_PREP_DIR"' EXIT
	trap 'exit 130' INT TERM
	for _t in $(kh_targets); do
		KH_TARGET=
		if ! kh_use_target "$_t" || ! kh_check; then
			echo "SKIP: kernel $_t: $KH_WHY"
			_sum="$_sum
  $_t: SKIP ($KH_WHY)"
			continue
		fi
		echo "=== kernel $_t ($KH_KVER, $KH_ARCH, ${KH_PAGE_SIZE}-byte pages) ==="
		_start=$(date +%s)
		_rc=0
		E2V_KTARGET=$_t "${KH_SH:-sh}" "$0" || _rc=$?
		_secs=$(($(date +%s) - _start))
		case $_rc in
		0) _r=PASS; _ran=$((_ran + 1)) ;;
		77) _r=SKIP ;;
		99) _r=ERROR; _err=1 ;;
		*) _r=FAIL; _bad=1 ;;
		esac
		_sum="$_sum
  $_t: $_r ($KH_KVER, ${_secs} s)"
	done
	echo "kernel matrix of $(basename "$0"):$_sum"
	[ $_err -eq 0 ] || exit 99
	[ $_bad -eq 0 ] || exit 1
	[ $_ran -gt 0 ] || exit 77
	exit 0
}

# kh_prep_restore [DIR] - when an earlier run of this test in the same kh_matrix saved its host
# side (kh_prep_save), copy it into DIR (default: the current directory) and return 0; else return
# 1, and the caller makes it. The host side is what does not depend on the kernel: images, sources,
# keys, the expected digests (a shell variable it sets must be saved in a file, or set again). A
# test runs it as
#	if ! kh_prep_restore; then ...make the images and the expectations...; kh_prep_save; fi
# before its first boot. Without a matrix (E2V_KTARGET set by hand) there is nothing to restore.
kh_prep_restore()
{
	[ -n "${KH_PREP_DIR:-}" ] && [ -f "$KH_PREP_DIR/done" ] &&
		[ "$(cat "$KH_PREP_DIR/done")" = "${0##*/}" ] || return 1
	# sparse files stay sparse (images of 16 to 64 MiB, sources mostly holes)
	cp -a --sparse=always "$KH_PREP_DIR/files/." "${1:-.}/" ||
		kh_fail "cannot copy the saved preparation from $KH_PREP_DIR/files"
	echo "# the host side made by the first kernel's run, restored (kh_prep_restore)"
	return 0
}

# kh_prep_save [DIR] - in a kh_matrix run, save the files of DIR (default: the current directory)
# for the next kernels' runs of this test: the whole tree, hidden files included (rand_bytes'
# counter). Call it before the first boot: a kernel writes into the images it gets with -w. It
# saves nothing when a check has failed so far (tests/lib.sh's T_FAILED): the next runs make the
# host side again and fail on their own. The marker, "done", is written last.
kh_prep_save()
{
	[ -n "${KH_PREP_DIR:-}" ] || return 0
	if [ "${T_FAILED:-0}" -ne 0 ]; then
		echo "# $T_FAILED failure(s) in the host side: not saved, the next kernels' runs make it again"
		return 0
	fi
	rm -rf "$KH_PREP_DIR/done" "$KH_PREP_DIR/files" "$KH_PREP_DIR/new"
	mkdir "$KH_PREP_DIR/new" &&
		cp -a --sparse=always "${1:-.}/." "$KH_PREP_DIR/new/" &&
		mv "$KH_PREP_DIR/new" "$KH_PREP_DIR/files" &&
		echo "${0##*/}" >"$KH_PREP_DIR/done.new" &&
		mv "$KH_PREP_DIR/done.new" "$KH_PREP_DIR/done" ||
		kh_fail "cannot save the preparation in $KH_PREP_DIR"
}

# kh_require - kh_check, or exit 77 saying why. Called without E2V_KTARGET (and without
# KH_MATRIX=no), it runs the whole test once per kernel (kh_matrix) and does not return.
kh_require()
{
	if [ -z "${E2V_KTARGET:-}" ] && [ "${KH_MATRIX:-yes}" != no ]; then
		kh_matrix
	fi
	kh_check || kh_skip "kernel harness: $KH_WHY"
}

# kh_setup CMD... - the start of a kernel test, once top_srcdir and top_builddir are set and this
# file sourced: tests/lib.sh, then kh_require, then require_cmd CMD...; anything missing is a SKIP
kh_setup()
{
	V=${V:-}
	# shellcheck source=tests/lib.sh disable=SC1091
	. "$top_srcdir/tests/lib.sh"
	kh_require
	require_cmd "$@"
}

# kh_boot [run.sh options] GUEST_SCRIPT - boot once; see run.sh for options.
# Exit status: the guest script's; 77 skip; 99 the guest did not finish.
kh_boot()
{
	sh "$KHARNESS_DIR/run.sh" "$@"
}

# kh_get FILE TAG PATH - print the rest of the first line "TAG PATH ..." of FILE
kh_get()
{
	awk -v t="$2" -v p="$3" '$1 == t && $2 == p {
		sub(/^[^ ]+ +[^ ]+ ?/, ""); print; exit }' "$1"
}

# kh_seal IMAGE LISTFILE [OUT] - seal files, with the kernel, of a writable image (fsverity-enable.sh)
kh_seal()
{
	sh "$KHARNESS_DIR/fsverity-enable.sh" "$@"
}
