# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# repair-cuts-lib.sh - check -p and -y cut at every write (sourced by seal-crash.sh and
# seal-crash-nojournal.sh, after their FILES, src/, want.all and FAULT are set up): after recovery
# (the journal's replay, or e2fsck -p without one) e2fsck is clean, no file's data changed, and
# each damaged file is exactly as it was damaged or exactly repaired: its tree fsverity-utils'
# (or, for the zeroed descriptor, resealed to the manifest's digest), never a mix of the two.

# rc_tree_off FILE N: the byte offset of stored tree block N (root level first) of FILE
rc_pos()
{
	echo $(($(metadata_pos "$(stat -c %s "src$1")") + $2))
}

# repair_setup SEALED: damaged.img, the oracle's trees, and what each file must be
repair_setup()
{
	cp "$1" damaged.img
	# /big (9 MB or 3 MB): its top block, its first and last level-0 blocks; /sparse: two of
	# level 0; /ten (without a journal): a level-0 block of a file with an extent leaf block
	RC_TREES=
	for f in /big /sparse /ten; do
		case " $FILES " in *" $f "*) ;; *) continue ;; esac
		fsverity digest --out-merkle-tree="rc.tree.${f#/}" "src$f" >/dev/null ||
			fail "fsverity digest $f"
		n=$(($(stat -c %s "rc.tree.${f#/}") / 4096))
		RC_TREES="$RC_TREES $f"
		case $f in
		/big) offs="5 $((4096 + 7)) $(((n - 1) * 4096 + 9))" ;;
		/sparse) offs="$((6 * 4096 + 3)) $((31 * 4096 + 11))" ;;
		/ten) offs="$(((n - 1) * 4096 + 1))" ;;
		esac
		for o in $offs; do
			flip damaged.img "$f" "$(rc_pos "$f" "$o")" || fail "flipping $f at $o"
		done
	done
	# /dir/small has no tree: its descriptor is at 64 KiB; zeroed, only -y with the manifest mends it
	o=$(img_offset damaged.img /dir/small 65536) || fail "/dir/small's descriptor"
	dd if=/dev/zero of=damaged.img bs=1 seek="$o" count=256 conv=notrunc status=none
	for f in $RC_TREES; do
		"$E2VERITY" dump damaged.img "$f" merkle_tree >"rc.damaged.${f#/}"
		"$E2VERITY" dump "$1" "$f" descriptor >"rc.desc.${f#/}"
		cmp -s "rc.damaged.${f#/}" "rc.tree.${f#/}" && fail "$f: the flips changed nothing"
	done
	# shellcheck disable=SC2086 # FILES is a list of paths without blanks
	dumps_setup rc.out $FILES
	grep ' /dir/small$' want.all | cut -d' ' -f1 >rc.small
}

# repair_judge NAME IMG RECOVERY: RECOVERY is "replay" (the journal, as the kernel's mount does) or
# "preen" (e2fsck -p, as a boot does without one)
repair_judge()
{
	rj_name=$1 rj_img=$2
	if [ "$3" = replay ]; then
		e2fsck -fy -E journal_only "$rj_img" >/dev/null 2>&1
	else
		e2fsck -p "$rj_img" >fsck.p 2>&1
		rj_rc=$?
		[ "$rj_rc" -le 1 ] || { fail "$rj_name: e2fsck -p exit $rj_rc: $(head -5 fsck.p)"; return; }
	fi
	if ! e2fsck -fn "$rj_img" >fsck.out 2>&1; then
		fail "$rj_name: e2fsck -fn: $(grep -v '^Pass\|^e2fsck' fsck.out | head -5)"
		return
	fi
	dumps_same rc.out "$rj_img" || { fail "$rj_name: the data of $DUMPS_DIFF changed"; return; }
	rj_fixed=0
	for f in $RC_TREES; do
		judge_e2verity dump "$rj_img" "$f" merkle_tree >rc.now 2>/dev/null
		if cmp -s rc.now "rc.tree.${f#/}"; then
			rj_fixed=$((rj_fixed + 1))
		elif ! cmp -s rc.now "rc.damaged.${f#/}"; then
			fail "$rj_name: $f half repaired: its tree is neither as damaged nor fsverity-utils'"
			return
		fi
		judge_e2verity dump "$rj_img" "$f" descriptor >rc.now 2>/dev/null
		cmp -s rc.now "rc.desc.${f#/}" || { fail "$rj_name: $f: descriptor changed"; return; }
	done
	# the zeroed descriptor: still unreadable, or the manifest's digest and a file that checks
	if rj_m=$(judge_e2verity measure "$rj_img" /dir/small 2>/dev/null); then
		if [ "${rj_m% *}" != "$(cat rc.small)" ] ||
			! judge_e2verity check "$rj_img" /dir/small >/dev/null 2>&1; then
			fail "$rj_name: /dir/small resealed wrong: $rj_m"
			return
		fi
		rj_fixed=$((rj_fixed + 1))
	fi
	pass "$rj_name ($rj_fixed repaired)"
}

# repair_cuts NAME RECOVERY MODES CHECK_ARGS...: `check CHECK_ARGS... IMG` on damaged.img, cut
# at each of its writes in each of MODES (kill, fail, term)
repair_cuts()
{
	rc_name=$1 rc_rec=$2 rc_modes=$3
	shift 3
	cp damaged.img count.img
	rm -f writes.log
	E2VERITY_FAULT_LOG=writes.log "$FAULT" check "$@" count.img >rc.uncut 2>&1
	rc_st=$?
	[ $((rc_st & 1)) -eq 1 ] || fail "$rc_name: uncut run: exit $rc_st, nothing corrected"
	repair_judge "$rc_name: uncut" count.img "$rc_rec"
	total=$(tail -n 1 writes.log)
	[ "$total" -gt 5 ] || { fail "$rc_name: only '$total' writes counted"; return; }
	# the images judged in this run, by their content (image-lib.sh)
	# shellcheck disable=SC2034 # read by cut_judged (image-lib.sh)
	CUT_SEEN=
	for mode in $rc_modes; do
		n=1
		while [ "$n" -le "$total" ]; do
			cp damaged.img cut.img
			fault_cut "$mode" "$n" check "$@" cut.img >cut.out 2>cut.err
			rc=$?
			if [ "$mode" = fail ] && [ $((rc & 8)) -eq 0 ]; then
				fail "$rc_name: write $n failing: exit $rc, want the operational error bit 8"
			elif [ "$mode" = fail ] && ! grep -q "cut.img" cut.err; then
				fail "$rc_name: write $n failing: no message names the image: $(cat cut.err)"
			elif [ "$mode" = term ] && ! dumpe2fs -h cut.img 2>/dev/null |
				grep -q '^Filesystem state: *clean$'; then
				fail "$rc_name: SIGTERM at write $n left the image not clean"
			fi
			cut_key "$mode" "$rc" cut.img
			cut_judge repair_judge "$rc_name: $mode at write $n of $total" cut.img "$rc_rec"
			# every cut point killed; a failing write at every third one (E2V_CRASH_STRIDE
			# thins both out, for slow builds such as the sanitizers')
			if [ "$mode" = fail ]; then
				n=$((n + 3 * ${E2V_CRASH_STRIDE:-1}))
			else
				n=$((n + ${E2V_CRASH_STRIDE:-1}))
			fi
		done
		echo "$rc_name: $total cut points tried, $mode mode"
	done
}
