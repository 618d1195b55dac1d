#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fsverity-enable.sh - seal files of an ext4 image with the real kernel's `fsverity enable`, in one boot
#
# Usage: fsverity-enable.sh [--cert=CERT]... [--no-fsck] IMAGE LISTFILE
#   LISTFILE: one file per line, "PATH [fsverity enable options]", PATH absolute inside the image,
#             e.g. "/big --hash-alg=sha512 --salt=00ff". "--signature=HOSTFILE" is copied into the
#             guest. Empty lines and lines starting with # are skipped. No white space in tokens.
#   --cert=CERT  load this X.509 certificate (PEM or DER) into the .fs-verity keyring first
#   --no-fsck    do not run `e2fsck -fn` on the image afterwards
# Prints "<alg>:<hex> PATH" for each file as the kernel measures it (like `fsverity measure`).
# Exit status: 0 all sealed (and e2fsck clean), 1 a file was not sealed or e2fsck found problems,
# 2 usage, 77 the harness cannot run here, 99 the guest did not finish.
set -eu

KHARNESS_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$KHARNESS_DIR/kernel-lib.sh"

usage()
{
	sed -n '4,13s/^# \{0,1\}//p' "$KHARNESS_DIR/fsverity-enable.sh" >&2
	exit 2
}

fsck=yes
work=$(mktemp -d "${TMPDIR:-/tmp}/e2v-seal.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
: >"$work/args"
: >"$work/certs"
ncert=0
while [ $# -gt 0 ]; do
	case $1 in
	--cert=*)
		c=${1#--cert=}
		[ -f "$c" ] || kh_fail "no certificate $c"
		if grep -q -- '-----BEGIN' "$c"; then
			openssl x509 -in "$c" -outform der -out "$work/cert$ncert.der" ||
				kh_fail "cannot convert $c to DER"
		else
			cp "$c" "$work/cert$ncert.der"
		fi
		echo "-f $work/cert$ncert.der:/files/cert$ncert.der" >>"$work/args"
		echo "load_cert /files/cert$ncert.der || exit 1" >>"$work/certs"
		ncert=$((ncert + 1))
		;;
	--no-fsck) fsck=no ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 2 ] || usage
image=$1
list=$2
[ -f "$image" ] || kh_fail "no image $image"
[ -f "$list" ] || kh_fail "no list $list"

# The guest script: mount, load certificates, enable each file, measure them all, unmount.
{
	echo "mount_image /dev/vda /mnt || exit 1"
	cat "$work/certs"
} >"$work/guest.sh"
: >"$work/paths"
nsig=0
while read -r path opts; do
	case $path in
	'' | '#'*) continue ;;
	/*) ;;
	*) kh_fail "$list: path '$path' is not absolute" ;;
	esac
	line="enable /mnt$path"
	for o in $opts; do
		case $o in
		*[!A-Za-z0-9=_./:+-]*) kh_fail "$list: unsupported characters in '$o'" ;;
		--signature=*)
			s=${o#--signature=}
			[ -f "$s" ] || kh_fail "$list: no signature file $s"
			echo "-f $s:/files/sig$nsig" >>"$work/args"
			o=--signature=/files/sig$nsig
			nsig=$((nsig + 1))
			;;
		esac
		line="$line $o"
	done
	case $path in
	*[!A-Za-z0-9=_./:+-]*) kh_fail "$list: unsupported characters in '$path'" ;;
	esac
	echo "$line || rc=1" >>"$work/guest.sh"
	echo "/mnt$path" >>"$work/paths"
done <"$list"
[ -s "$work/paths" ] || kh_fail "$list names no file"
{
	echo "measure_all <<'EOF'"
	cat "$work/paths"
	echo "EOF"
	echo "umount_image /mnt || exit 1"
	# shellcheck disable=SC2016 # expanded in the guest
	echo 'exit ${rc:-0}'
} >>"$work/guest.sh"

rc=0
# shellcheck disable=SC2046 # the -f options are single words by construction
sh "$KHARNESS_DIR/run.sh" $(cat "$work/args") -w "$image" -o "$work/out" "$work/guest.sh" || rc=$?
case $rc in
0 | 1) ;;
*) exit "$rc" ;;
esac

# Print the measurements with image paths; any failure is shown with the guest's own line.
while read -r tag p rest; do
	case $tag in
	MEASURE)
		case $rest in
		ERR*) echo "fsverity-enable: $p: $rest" >&2; rc=1 ;;
		*) echo "$rest ${p#/mnt}" ;;
		esac
		;;
	ENABLE | CERT | MOUNT | UMOUNT)
		case $rest in
		OK*) ;;
		*) echo "fsverity-enable: $tag $p $rest" >&2; rc=1 ;;
		esac
		;;
	esac
done <"$work/out"

if [ "$fsck" = yes ]; then
	if ! e2fsck -fn "$image" >"$work/fsck" 2>&1; then
		cat "$work/fsck" >&2
		echo "fsverity-enable: e2fsck -fn $image is not clean after sealing" >&2
		rc=1
	fi
fi
exit "$rc"
