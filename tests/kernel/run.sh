#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - boot the real kernel once under qemu (TCG) with disk images and run a guest script
#
# Usage: run.sh [-w IMG | -r IMG]... [-f HOSTFILE[:GUESTPATH]]... [-o OUT] [-c CONSOLE_LOG]
#               [-t SECONDS] [-m MEMORY] GUEST_SCRIPT
#   -w IMG   attach a raw image writable   (first disk is /dev/vda, then /dev/vdb, ...)
#   -r IMG   attach a raw image read-only
#   -f F[:G] put host file F into the guest at G (default /files/<basename of F>)
#   -o OUT   write the guest's output lines to OUT (default: stdout)
#   -c LOG   keep the kernel console log in LOG
#   -t SECS  hard timeout for the whole boot (default $E2V_QEMU_TIMEOUT, or 300; three times
#            that for an arm64 kernel, which TCG emulates several times slower)
#   -m MEM   guest memory (default 512M)
# GUEST_SCRIPT becomes /test.sh; /init sources /e2v/guest-lib.sh first (see README).
# Exit status: the guest script's; 77 the harness cannot run here (SKIP); 99 the guest did not
# finish (timeout, panic, module failure): the console tail is printed on stderr.
set -eu

KHARNESS_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$KHARNESS_DIR/kernel-lib.sh"

usage()
{
	sed -n '4,17s/^# \{0,1\}//p' "$KHARNESS_DIR/run.sh" >&2
	exit 2
}

timeout_s=${E2V_QEMU_TIMEOUT:-300}
timeout_set=
mem=512M
out=
console=

work=$(mktemp -d "${TMPDIR:-/tmp}/e2v-run.XXXXXX")
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	if [ -n "${E2V_KEEP:-}" ]; then
		echo "run.sh: kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/run/files"
: >"$work/drives"
ndisks=0

while getopts w:r:f:o:c:t:m: opt; do
	case $opt in
	w | r)
		[ -f "$OPTARG" ] || kh_fail "no image $OPTARG"
		ro=
		[ "$opt" = r ] && ro=,readonly=on
		# cache=unsafe: the guest's flushes need not reach the host disk; the data still lands
		# in the image file before qemu exits. Commas in a path are doubled for -drive.
		f=$(printf '%s' "$OPTARG" | sed 's/,/,,/g')
		echo "file=$f,format=raw,if=virtio,cache=unsafe$ro" >>"$work/drives"
		ndisks=$((ndisks + 1))
		;;
	f)
		src=${OPTARG%%:*}
		dst=${OPTARG#*:}
		[ "$dst" = "$OPTARG" ] && dst=/files/$(basename "$src")
		[ -f "$src" ] || kh_fail "no file $src"
		mkdir -p "$work/run$(dirname "$dst")"
		cp "$src" "$work/run$dst"
		;;
	o) out=$OPTARG ;;
	c) console=$OPTARG ;;
	t) timeout_s=$OPTARG timeout_set=yes ;;
	m) mem=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
[ -f "$1" ] || kh_fail "no guest script $1"

kh_check || kh_skip "kernel harness: $KH_WHY"
[ "$KH_ARCH" = aarch64 ] && [ -z "$timeout_set" ] && timeout_s=$((timeout_s * 3))
base=$(sh "$KHARNESS_DIR/mkinitramfs.sh") || {
	rc=$?
	[ $rc -eq 77 ] && exit 77
	kh_fail "building the initramfs failed"
}

cp "$1" "$work/run/test.sh"
(cd "$work/run" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1n >"$work/run.cpio.gz"
cat "$base" "$work/run.cpio.gz" >"$work/initrd"

: >"$work/console"
: >"$work/out"
# cryptomgr.notests: the kernel's self-tests of each crypto algorithm it registers (a second of
# an arm64 boot under TCG) test the kernel, not e2verity's output
append="panic=-1 oops=panic loglevel=4 cryptomgr.notests e2v.disks=$ndisks"
case $KH_ARCH in
aarch64)
	# virt has one serial port (the console); the output channel is a virtio console, hvc0
	set -- -machine virt -cpu max -smp 1 -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$KH_KERNEL" -initrd "$work/initrd" \
		-append "console=ttyAMA0 $append e2v.out=hvc0" \
		-serial "file:$work/console" \
		-device virtio-serial-pci -chardev "file,id=e2vout,path=$work/out" \
		-device virtconsole,chardev=e2vout
	;;
*)
	# the vmlinux in the bzImage, entered through PVH: no BIOS, real mode or decompressor to
	# emulate (pvh-kernel.sh; the bzImage itself when it cannot be had)
	kernel=$(sh "$KHARNESS_DIR/pvh-kernel.sh" "$KH_KERNEL")
	# no_timer_check: under TCG on a busy host the timer's interrupts can come late enough
	# for the kernel's IO-APIC check to panic ("IO-APIC + timer doesn't work!"; seen in CI)
	set -- -machine accel=tcg -cpu max -smp 1 -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$kernel" -initrd "$work/initrd" \
		-append "console=ttyS0 no_timer_check $append" \
		-serial "file:$work/console" -serial "file:$work/out"
	;;
esac
while read -r d; do
	set -- "$@" -drive "$d"
done <"$work/drives"

start=$(date +%s)
qrc=0
timeout -k 10 "$timeout_s" "$KH_QEMU" "$@" </dev/null >"$work/qemu.log" 2>&1 || qrc=$?
secs=$(($(date +%s) - start))
[ -n "$console" ] && cp "$work/console" "$console"

tr -d '\r' <"$work/out" >"$work/out.txt"
end=$(grep -a '^E2V-END ' "$work/out.txt" | tail -n 1 || true)
if [ -z "$end" ] || ! grep -aq '^E2V-BEGIN$' "$work/out.txt"; then
	{
		if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
			echo "run.sh: the guest did not finish: timeout after ${timeout_s} s"
		else
			why=$(tr -d '\r' <"$work/console" | grep -a -m1 -o 'Kernel panic - .*' || true)
			echo "run.sh: the guest did not finish (${why:-qemu exit status $qrc}, ${secs} s)"
		fi
		grep -a '^E2V-INIT-FAIL' "$work/out.txt" || true
		echo "--- qemu output:"
		tail -n 20 "$work/qemu.log"
		echo "--- guest output:"
		tail -n 20 "$work/out.txt"
		echo "--- console tail:"
		tr -d '\r' <"$work/console" | tail -n 40
	} >&2
	exit 99
fi
grc=${end#E2V-END }

sed -n '/^E2V-BEGIN$/,/^E2V-END /{/^E2V-BEGIN$/d;/^E2V-END /d;p;}' "$work/out.txt" >"$work/result"
if [ -n "$out" ]; then
	cp "$work/result" "$out"
else
	cat "$work/result"
fi
grep -a '^E2V-INIT-WARN' "$work/out.txt" >&2 || true
echo "run.sh: guest script exited $grc after ${secs} s ($ndisks disk(s), kernel $KH_KVER)" >&2
exit "$grc"
