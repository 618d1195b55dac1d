#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# undo-fail.sh - -z: seal, unseal and check -p with the undo file's writes cut at every one (EIO or
# ENOSPC, and kill): a failed write stops the run (exit non-zero, a message naming the undo file)
# with no undo file and the image as it was; after a kill plain e2undo (no -f) gives back the image
# byte for byte, or there is no undo file and the image is untouched.  The one exception the README
# names: a kill between a superblock write and the header that follows it, where e2undo -f puts
# back every block.  And no image write comes before the undo writes it needs are made durable.
# Oracles: e2undo, cmp.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd e2undo
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
seeded src/big 300000 61
seeded src/small 5000 62
printf 'one\n' >src/one
FILES="/big /small /one"
stride=${E2V_CRASH_STRIDE:-1}
# small images, each run copies one: 4 KiB blocks without a journal, 1 KiB with one (the
# superblock a block of its own)
mkimg nojournal.img src 4M -b 4096 -O ^has_journal
mkimg journal.img src 4M -b 1024
e2fsck -fy nojournal.img >/dev/null 2>&1
e2fsck -fy journal.img >/dev/null 2>&1
# cuts NAME BEFORE PATHS COMMAND...: the command with -z on PATHS, its undo file's writes cut at
# each one
cuts()
{
	c_name=$1 c_before=$2 c_paths=$3
	shift 3
	cp "$c_before" count.img
	rm -f writes.log trace.log u.undo
	# shellcheck disable=SC2086 # c_paths: paths without blanks
	E2VERITY_FAULT_FILE=undo E2VERITY_FAULT_LOG=writes.log E2VERITY_FAULT_TRACE=trace.log \
		"$FAULT" "$@" -z u.undo count.img $c_paths >/dev/null 2>err
	c_ok=$?
	! grep -q 'Sanitizer\|runtime error' err || fail "$c_name: uncut: $(grep -m1 'Sanitizer\|runtime error' err)"
	# seal and unseal exit 0; check -p 1, repaired
	[ "$c_ok" -le 1 ] || { fail "$c_name: uncut run failed (exit $c_ok)"; return; }
	undo_restored "$c_name: uncut, undone" count.img "$c_before" 0
	total=$(tail -n 1 writes.log)
	[ "$total" -gt 5 ] || { fail "$c_name: only '$total' undo writes counted"; return; }
	# write-ahead: between an undo write that is not the header following the superblock and the
	# next image write, an fdatasync() of the undo file
	bad=$(awk '$2 == "fdatasync" { pending = "" }
		$1 != "-" && $2 != "fdatasync" && $2 != "rename" && $2 != "directory" &&
			$0 !~ /after the superblock/ { pending = $0 }
		$2 == "image" && $3 == "write" && pending != "" { print NR ": " pending; exit }' trace.log)
	check "$c_name: no image write before the undo write it needs is synced${bad:+ (line $bad)}" \
		test -z "$bad"
	syncs=$(grep -c ' fdatasync$' trace.log)
	iw=$(grep -c '^- image write$' trace.log)
	echo "$c_name: $total undo writes, $syncs fdatasync() for $iw image writes"
	win=$(awk '/after the superblock/ { print $1 }' trace.log | tr '\n' ' ')
	# EIO and ENOSPC take one path (undo_io.c tells them apart only in its message): each
	# write fails with one of them in turn (E2V_UNDO_ERRORS="fail enospc": both at each), and
	# is killed
	for cut in ${E2V_UNDO_ERRORS:-error} kill; do
		n=1
		while [ "$n" -le "$total" ]; do
			mode=$cut
			[ "$cut" != error ] || mode=$(if [ $((n % 2)) = 1 ]; then echo fail; else echo enospc; fi)
			cp "$c_before" cut.img
			rm -f u.undo
			# shellcheck disable=SC2086
			(E2VERITY_FAULT_FILE=undo E2VERITY_FAULT_AT=$n E2VERITY_FAULT_MODE=$mode \
				"$FAULT" "$@" -z u.undo cut.img $c_paths >out 2>err)
			rc=$?
			! grep -q 'Sanitizer\|runtime error' err ||
				fail "$c_name: $mode at undo write $n: $(grep -m1 'Sanitizer\|runtime error' err)"
			if [ "$mode" = kill ]; then
				w=0
				case " $win " in *" $n "*) w=1 ;; esac
				undo_restored "$c_name: kill at undo write $n of $total" cut.img "$c_before" $w
			else
				# stopped, said so, and nothing left to undo
				c_what="$c_name: $mode at undo write $n of $total"
				[ "$rc" -ne 0 ] && [ "$rc" -ne "$c_ok" ] || fail "$c_what: exit $rc"
				grep -q "while writing the undo file 'u.undo'" err ||
					fail "$c_what: no message names the undo file: $(head -2 err)"
				rm -f u.undo.*
				if [ -e u.undo ]; then
					fail "$c_what: an undo file is left: $(head -2 err)"
				elif ! cmp -s cut.img "$c_before"; then
					fail "$c_what: the image changed: $(cmp cut.img "$c_before" 2>&1 | head -1)"
				else
					pass "$c_what: the image as it was, no undo file"
				fi
			fi
			n=$((n + stride))
		done
	done
}

for j in nojournal journal; do
	bs=$(fs_block_size $j.img)
	cuts "seal ($j)" $j.img "$FILES" seal -q --block-size="$bs"
	cp $j.img sealed-$j.img
	# shellcheck disable=SC2086 # FILES is a list of paths without blanks
	"$E2VERITY" seal -q --block-size="$bs" sealed-$j.img $FILES || fail "sealing for the unseal cuts"
	cuts "unseal ($j)" sealed-$j.img "$FILES" unseal -q
done

# check -p: a flipped tree block rewritten
cp sealed-journal.img damaged.img
flip damaged.img /big $(($(metadata_pos 300000) + 7)) || fail "flipping /big's tree"
cuts "check -p (journal)" damaged.img "" check -p

echo "kills in the named window, undone by e2undo -f: $undo_windows"
finish
