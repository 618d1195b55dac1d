#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# undo-cut.sh - -z: seal and unseal cut at every write (killed, or the write failing), with and
# without a journal, and killed by kill -9 at random moments: plain e2undo (no -f) takes the undo
# file every time and gives back the image byte for byte (or, stopped before the undo file had its
# header, there is none and the image is untouched); with IMAGE?offset= too.
# Oracles: e2undo, cmp.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd e2undo
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
seeded src/big 3000000 51
seeded src/small 5000 52
printf 'one\n' >src/one
make_sparse src/sparse 9000000
FILES="/big /small /one /sparse"
stride=${E2V_CRASH_STRIDE:-1}
mkimg nojournal.img src 32M -b 4096 -O ^has_journal
mkimg journal.img src 32M -b 4096
e2fsck -fy nojournal.img >/dev/null 2>&1
e2fsck -fy journal.img >/dev/null 2>&1

# cuts NAME BEFORE COMMAND...: the command with -z cut at each of its writes
cuts()
{
	c_name=$1 c_before=$2
	shift 2
	cp "$c_before" count.img
	rm -f writes.log u.undo
	E2VERITY_FAULT_LOG=writes.log "$FAULT" "$@" -z u.undo count.img $FILES >/dev/null 2>&1 ||
		{ fail "$c_name: uncut run failed"; return; }
	undo_restored "$c_name: uncut, undone" count.img "$c_before"
	total=$(tail -n 1 writes.log)
	[ "$total" -gt 5 ] || { fail "$c_name: only '$total' writes counted"; return; }
	for mode in kill fail; do
		n=1
		while [ "$n" -le "$total" ]; do
			cp "$c_before" cut.img
			rm -f u.undo
			(E2VERITY_FAULT_AT=$n E2VERITY_FAULT_MODE=$mode \
				"$FAULT" "$@" -z u.undo cut.img $FILES >/dev/null 2>&1)
			undo_restored "$c_name: $mode at write $n of $total, undone" cut.img "$c_before"
			n=$((n + stride))
		done
	done
}

for j in nojournal journal; do
	cuts "seal ($j)" $j.img seal -q
	cp $j.img sealed-$j.img
	"$E2VERITY" seal -q sealed-$j.img $FILES || fail "sealing for the unseal cuts"
	cuts "unseal ($j)" sealed-$j.img unseal -q
done

# kill -9 at a moment nobody chose, as a user would (the 5 refusals in 8 trials)
seeded src2.big 40000000 53
mkdir src2 && mv src2.big src2/big
mkimg slow.img src2 96M -b 4096 -O ^has_journal
e2fsck -fy slow.img >/dev/null 2>&1
# the run's length, measured: the kills fall inside it
cp slow.img k.img
t0=$(date +%s%N)
"$E2VERITY" seal -q -z u.undo k.img /big || fail "uncut seal of slow.img"
t1=$(date +%s%N)
run_us=$(((t1 - t0) / 1000))
for k in 1 2 3 4 5 6 7 8; do
	us=$((run_us * k / 9))
	cp slow.img k.img
	rm -f u.undo
	"$E2VERITY" seal -q -z u.undo k.img /big >/dev/null 2>&1 &
	pid=$!
	sleep "$((us / 1000000)).$(printf %06d $((us % 1000000)))"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	undo_restored "kill -9 after ${us} us of $run_us, undone" k.img slow.img
done

# IMAGE?offset=: the undo file records the offset, e2undo applies it there
rand_bytes 1048576 >disk.img
cat nojournal.img >>disk.img
cp disk.img disk.orig
"$E2VERITY" seal -q -z u.undo "disk.img?offset=1048576" $FILES
check "seal -z IMAGE?offset=: exit 0" test $? -eq 0
undo_restored "seal -z IMAGE?offset=, undone" disk.img disk.orig
finish
