#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# extent-cases-kernel.sh - issue 24 against the real kernel: the extent trees `check` flags are the
# ones the kernel refuses.  Each recipe of tests/check/cases/extent-* (and a few others) is built
# again, and the image kept at every point where it runs `check`; one boot then reads the sealed
# file of every image.  A file `check` fails with a code the kernel enforces must not read back
# (open or read error); one `check` passes (warnings such as METADATA_NOT_OWN, which is about what
# unseal may free, allowed) must read back whole, and measure as the digest `e2verity measure`
# says it was sealed with, before the corruption.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs debugfs e2fsck openssl od dd
[ -x "$E2VERITY" ] || skip "$E2VERITY is not built"
t_tmpdir
tmp=$T_TMP
cd "$tmp" || exit 1
E2VERITY=$(cd "$(dirname "$E2VERITY")" && pwd)/$(basename "$E2VERITY")
export E2VERITY top_srcdir

# The host's side, the same for every kernel: made once, by the matrix's first run, and handed to
# the next ones (kh_prep_restore)
if ! kh_prep_restore; then
	cases="$(cd "$top_srcdir/tests/check/cases" && ls -d extent-*/ | tr -d /) extents-unreadable meta-block0
		casefold-no-feature
		meta-reserved-gdt meta-shared-intact"

	# Every recipe in a directory of its own; `run check img` (and refused's) keeps the image as
	# NAME.N.img, with the sealed file's path, check's exit status and its codes in list.
	: >list
	for name in $cases; do
		mkdir "$tmp/$name" || exit 99
		(
			cd "$tmp/$name" || exit 1
			T_TMP=$PWD
			# shellcheck source=tests/check/cases-lib.sh disable=SC1091
			. "$top_srcdir/tests/check/cases-lib.sh"
			n=0
			run()
			{
				[ "$1" = check ] || return 0
				n=$((n + 1))
				for p in /a /f; do
					flags=$(debugfs -R "stat $p" img 2>/dev/null |
						sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
					# the sealed one (EXT4_VERITY_FL)
					[ -n "$flags" ] && [ $((flags & 0x100000)) -ne 0 ] || continue
					"$E2VERITY" check img >check.out 2>&1
					st=$?
					codes=$(grep -o ' error [A-Z0-9_]*' check.out | sed 's/ error //' | sort -u | tr '\n' ,)
					cp img "$tmp/$name.$n.img"
					echo "$name.$n $p $st ${codes:-none}" >>"$tmp/list"
				done
			}
			guard() { :; }
			fsck_says() { :; }
			refused() { run check img; }
			# shellcheck disable=SC1090
			. "$top_srcdir/tests/check/cases/$name/recipe"
		) >"$tmp/$name.log" 2>&1 || kh_fail "recipe $name: $(tail -n 3 "$tmp/$name.log")"
	done
	[ -s list ] || kh_fail "no image kept"

	# what `e2verity measure` says the file was sealed with, where check passes: "IMG PATH DIGEST"
	while read -r img path st codes; do
		kcodes=$(echo "$codes" | tr , '\n' | grep -v -e '^none$' -e '^$' | tr '\n' ,)
		[ -z "$kcodes" ] || continue
		echo "$img $path $("$E2VERITY" measure "$img.img" "$path" 2>/dev/null | cut -d' ' -f1)"
	done <list >measured
	kh_prep_save
fi

# A boot per 16 images: the guest mounts each disk, reads the file whole and measures it
split -l 16 list batch.
boots=0
for b in batch.*; do
	i=0
	: >guest.sh
	set --
	while read -r img path st codes; do
		dev=/dev/vd$(printf "\\$(printf '%03o' $((97 + i)))")
		echo "mount_image $dev /mnt/$i ro && { hash_one /mnt/$i$path; measure_all /mnt/$i$path; umount_image /mnt/$i; }" >>guest.sh
		set -- "$@" -r "$img.img"
		i=$((i + 1))
	done <"$b"
	echo true >>guest.sh
	start=$(date +%s)
	rc=0
	kh_boot "$@" -o "$b.out" guest.sh || rc=$?
	[ $rc -eq 0 ] || { cat "$b.out" 2>/dev/null; kh_fail "the guest exited $rc"; }
	boots=$((boots + 1))
	echo "boot $boots: $(($(date +%s) - start)) s, $i images"

	i=0
	while read -r img path st codes; do
		p=/mnt/$i$path
		read_=$(awk -v p="$p" '($1 == "SHA256" || $1 == "OPENERR" || $1 == "READERR") &&
			$2 == p { print $1, $3; exit }' "$b.out")
		meas=$(kh_get "$b.out" MEASURE "$p")
		i=$((i + 1))
		# what the kernel enforces: every error
		kcodes=$(echo "$codes" | tr , '\n' | grep -v -e '^none$' -e '^$' | tr '\n' ,)
		if [ -n "$kcodes" ]; then
			case $read_ in
			OPENERR* | READERR*) pass "$img ($kcodes): the kernel refuses $path ($read_)" ;;
			*) fail "$img: check says $kcodes (exit $st), but the kernel reads $path: '$read_'" ;;
			esac
			continue
		fi
		want=$(awk -v i="$img" -v p="$path" '$1 == i && $2 == p { print $3; exit }' measured)
		case $read_ in
		SHA256*)
			if [ -n "$want" ] && [ "$meas" = "$want" ]; then
				pass "$img (check exit $st, $codes): the kernel reads $path as sealed"
			else
				fail "$img: the kernel reads $path but measures '$meas', not '$want'"
			fi
			;;
		*) fail "$img: check exit $st ($codes) but the kernel refuses $path: '$read_'" ;;
		esac
	done <"$b"
done
finish
