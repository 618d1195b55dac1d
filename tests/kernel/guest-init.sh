#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# guest-init.sh - /init of the harness initramfs: load modules, run /test.sh, report, power off
#
# The kernel console is ttyS0 (ttyAMA0 on arm64); the test's output goes to a second port alone,
# so kernel messages never break its lines: ttyS1, or the one e2v.out= names (hvc0, a virtio
# console, on arm64's virt machine, which has one serial port). It carries: E2V-BEGIN, the
# test's lines, then E2V-END <exit status>.
# The kernel command line may say e2v.disks=N (wait for that many /dev/vd* disks).
export PATH=/bin
umask 022

# No /dev/console node exists in the archive (making one needs root on the host), so the kernel
# started us without stdio: get it from devtmpfs first.
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o size=64m tmp /tmp
# a foreign busybox's applets were not listed when the archive was made: link what is missing
/bin/busybox --install -s /bin 2>/dev/null

read -r cmdline </proc/cmdline
disks=0
out=ttyS1
for arg in $cmdline; do
	case $arg in
	e2v.disks=*) disks=${arg#e2v.disks=} ;;
	e2v.out=*) out=${arg#e2v.out=} ;;
	esac
done
out=/dev/$out

say()
{
	echo "$*"
	echo "$*" >"$out"
}

fatal()
{
	say "E2V-INIT-FAIL $*"
	poweroff -f
}

stty -F "$out" raw -echo 2>/dev/null
echo "E2V-INIT kernel $(uname -r)"

while read -r m; do
	err=$(insmod "/lib/modules/$m" 2>&1) || fatal "insmod $m: $err"
done </e2v/modules

# vdisks - how many virtio disks the kernel has registered
vdisks()
{
	set -- /sys/block/vd*
	[ -e "$1" ] || set --
	echo $#
}

i=0
while [ "$(vdisks)" -lt "$disks" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || fatal "only $(vdisks) of $disks disks appeared"
	sleep 0.1
done

[ -f /test.sh ] || fatal "no /test.sh in the initramfs"
say E2V-BEGIN
(
	cd /
	# shellcheck disable=SC1091 # the guest path of guest-lib.sh
	. /e2v/guest-lib.sh
	# shellcheck disable=SC1091 # supplied per run
	. /test.sh
) >"$out" 2>&1 </dev/null
rc=$?

# Leave every writable disk clean for the host (e2fsck -fn, reuse): unmount in reverse order.
sync
awk '$1 ~ "^/dev/vd" { print $2 }' /proc/mounts | sort -r | while read -r mp; do
	umount "$mp" || say "E2V-INIT-WARN umount $mp failed"
done
sync
say "E2V-END $rc"
poweroff -f
