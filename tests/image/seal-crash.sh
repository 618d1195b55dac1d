#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-crash.sh - a seal, an unseal, check -p and check -y, and signing sealed files cut at every write
# (killed, or the write failing): after e2fsck's journal replay the image is clean and each file is
# sealed and right, or untouched (a sealed file signed whole, or not at all);
# with --ima-key (and its unseal, and --ima-only), a file is sealed exactly when it has its
# security.ima, one in an extended attribute block too
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd openssl
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
t_tmpdir
cd "$T_TMP" || exit 1


mkdir -p src/dir
: >src/empty
seeded src/one 4096 1
seeded src/big 9000000 2
seeded src/dir/small 777 3
make_sparse src/sparse 20000000
FILES="/empty /one /big /dir/small /sparse"
mkimg base.img src 64M -b 4096 || exit 1
# /dir/small has an attribute block: security.ima goes there, in a block of its own allocation
head -c 300 /dev/zero | tr '\0' x >big.val
debugfs -w -R "ea_set -f big.val /dir/small user.big" base.img >/dev/null 2>&1
IMA_XATTR_FILE=/dir/small
self_signed ima.key ima.crt "e2verity crash ima"
# mke2fs -d 1.47.0 may leave the quota inconsistent: start from a clean image
e2fsck -fy base.img >/dev/null 2>&1
fsck_clean base.img || exit 1
for f in $FILES; do
	echo "$(fsverity digest "src$f" | cut -d' ' -f1) $f"
done >want.all

# per file, its flags and its extents, from one debugfs run; an unsealed file is as mke2fs made it
# shellcheck disable=SC2086
snapshot_cmds $FILES >snap.cmds
snapshot base.img snap.cmds >ref.snap

# judge_signed NAME IMG: after a cut of signing the sealed files and the replay, e2fsck is clean and
# every file is sealed with fsverity's digest, and signed with fsverity sign's bytes or not at all
judge_signed()
{
	js_name=$1 js_img=$2
	e2fsck -fy -E journal_only "$js_img" >/dev/null 2>&1
	if ! e2fsck -fn "$js_img" >fsck.out 2>&1; then
		fail "$js_name: e2fsck -fn after replay: $(grep -v '^Pass\|^e2fsck' fsck.out | head -5)"
		return
	fi
	judge_e2verity measure --all "$js_img" 2>&1 | sort >measure.out
	if ! sort want.all | cmp -s - measure.out; then
		fail "$js_name: digests: $(cat measure.out)"
		return
	fi
	# shellcheck disable=SC2086
	sig_judge "$js_name" "$js_img" sigs sign.crt $FILES || return
	pass "$js_name ($SIG_JUDGE_SIGNED signed)"
}

# judge NAME IMG: after replay, e2fsck is clean, each file sealed and right or as mke2fs made it
judge()
{
	[ -z "$J_SIGN" ] || { judge_signed "$@"; return; }
	j_name=$1 j_img=$2
	e2fsck -fy -E journal_only "$j_img" >/dev/null 2>&1
	if ! e2fsck -fn "$j_img" >fsck.out 2>&1; then
		fail "$j_name: e2fsck -fn after replay: $(grep -v '^Pass\|^e2fsck' fsck.out | head -5)"
		return
	fi
	snapshot "$j_img" snap.cmds >cut.snap
	# one awk for all the files: a judge runs after each of hundreds of cuts
	# shellcheck disable=SC2086 # FILES is a list of paths without blanks
	if ! j_sealed=$(snap_sealed_or_same ref.snap cut.snap $FILES); then
		fail "$j_name: $j_sealed"
		return
	fi
	if [ "$j_sealed" -gt 0 ]; then
		# the sealed ones carry fsverity-utils' digests and pass the full re-verification
		judge_e2verity measure --all "$j_img" 2>&1 | sort >measure.out
		grep -F -f measure.out want.all | sort >measure.want
		if [ "$(wc -l <measure.out)" -ne "$j_sealed" ] || ! cmp -s measure.out measure.want; then
			fail "$j_name: sealed files' digests: $(cat measure.out)"
			return
		fi
		if ! judge_e2verity check "$j_img" >check.out 2>&1; then
			fail "$j_name: check: $(cat check.out)"
			return
		fi
	fi
	# shellcheck disable=SC2086
	[ -z "$J_IMA" ] || ima_judge "$j_name" "$j_img" cut.snap "$J_IMA" $FILES || return
	pass "$j_name ($j_sealed sealed)"
}

J_IMA=
J_SIGN=
# every cut point killed; a failing write at every third one
# shellcheck disable=SC2034 # read by cut_writes (image-lib.sh), through eval
CUT_STEP_fail=3
cut_writes "seal" base.img seal -q
cp base.img sealed.img
"$E2VERITY" seal -q sealed.img $FILES || fail "seal for the unseal cuts"
cut_writes "unseal" sealed.img unseal
# check -p (trees flipped) and -y (a descriptor zeroed too) on the sealed image, cut at every write:
# each file as damaged or repaired whole, never half (tests/image/repair-cuts-lib.sh)
. "$top_srcdir/tests/image/repair-cuts-lib.sh"
repair_setup sealed.img
repair_cuts "check -p" replay "kill fail" -p
repair_cuts "check -y" replay "kill fail" -y --manifest=want.all

# issue 38: signing files sealed without a signature writes their descriptor, signature and size
# word to fresh blocks the extents switch to: never a file half signed, nor one unsealed
self_signed sign.key sign.crt "e2verity crash signer"
# shellcheck disable=SC2086
sign_sources sigs sign.key sign.crt $FILES
J_SIGN=1
cut_writes "seal --key on sealed files" sealed.img seal -q --key=sign.key --cert=sign.crt
J_SIGN=

# issue 21: never a sealed file without its security.ima, nor the reverse
J_IMA=seal
cut_writes "seal --ima-key" base.img seal -q --ima-key=ima.key --ima-cert=ima.crt
cp base.img imasealed.img
"$E2VERITY" seal -q --ima-key=ima.key imasealed.img $FILES || fail "seal --ima-key for the unseal cuts"
J_IMA=unseal
cut_writes "unseal of signed files" imasealed.img unseal
J_IMA=only
cut_writes "seal --ima-only" sealed.img seal -q --ima-only --ima-key=ima.key
finish
