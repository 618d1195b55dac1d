# SPDX-License-Identifier: GPL-2.0-or-later
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

# kh_find_kernel - set KH_KERNEL, KH_KVER, KH_KMODDIR; on failure set KH_WHY and return 1.
# E2V_KERNEL/E2V_KMODDIR override; otherwise the newest /boot/vmlinuz-* whose
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

# kh_find_busybox - set KH_BUSYBOX to a static busybox, or KH_WHY and return 1
kh_find_busybox()
{
	for b in ${E2V_BUSYBOX:-} /bin/busybox /usr/bin/busybox /usr/lib/busybox-static/busybox; do
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
			KH_BUSYBOX=$b
			return 0
		fi
	done
	KH_WHY="no static busybox (install busybox-static, or set E2V_BUSYBOX)"
	return 1
}

# kh_find_qemu - set KH_QEMU, or KH_WHY and return 1
kh_find_qemu()
{
	KH_QEMU=${E2V_QEMU:-qemu-system-x86_64}
	if ! command -v "$KH_QEMU" >/dev/null 2>&1; then
		KH_WHY="$KH_QEMU not found (install qemu-system-x86, or set E2V_QEMU)"
		return 1
	fi
	return 0
}

# kh_check - return 0 if everything the harness needs is here, else 1 with KH_WHY set
kh_check()
{
	if [ "$(uname -m)" != x86_64 ]; then
		KH_WHY="the harness boots an x86_64 kernel; host is $(uname -m)"
		return 1
	fi
	kh_find_qemu || return 1
	kh_find_kernel || return 1
	kh_find_busybox || return 1
	for t in cpio gzip fsverity timeout; do
		if ! command -v "$t" >/dev/null 2>&1; then
			KH_WHY="$t not found"
			return 1
		fi
	done
	return 0
}

# kh_require - kh_check, or exit 77 saying why
kh_require()
{
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
