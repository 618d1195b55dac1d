#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-crash-nojournal.sh - on images without a journal, seal (plain and signed) and unseal cut at
# every write (killed, or the write failing): e2fsck -p repairs what is left without changing a
# byte of any file, and each file is sealed and right, or not sealed; SIGTERM at any write leaves
# a clean image. With --ima-key (and its unseal, and --ima-only), a file is sealed exactly when it
# has its security.ima: in the inode, which switches with it, or in an extended attribute block
# allocated in the transaction (written before the inode, never the old one rewritten in place)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd openssl fsverity
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
t_tmpdir
cd "$T_TMP" || exit 1

# islands FILE N SEED: N blocks of data 64 KiB apart: N extents, so more than fit in the inode
islands()
{
	i=0
	: >"$1"
	while [ "$i" -lt "$2" ]; do
		seeded isl.blk 4096 $(($3 + i))
		dd if=isl.blk of="$1" bs=4096 seek=$((i * 16)) conv=notrunc status=none
		i=$((i + 1))
	done
}

mkdir -p src/dir
: >src/empty
seeded src/one 4096 1
seeded src/big 3000000 2
seeded src/dir/small 777 3
make_sparse src/sparse 20000000
# four extents fill the inode: the seal's fifth splits it; ten need a leaf block already
islands src/four 4 10
islands src/ten 10 20
FILES="/empty /one /big /dir/small /sparse /four /ten"
stride=${E2V_CRASH_STRIDE:-1}
mkimg base.img src 64M -b 4096 -O ^has_journal,quota || exit 1
# /dir/small has an attribute block: security.ima goes there, in a block of its own allocation
head -c 300 /dev/zero | tr '\0' x >big.val
debugfs -w -R "ea_set -f big.val /dir/small user.big" base.img >/dev/null 2>&1
IMA_XATTR_FILE=/dir/small
# mke2fs -d 1.47.0 may leave the quota inconsistent: start from a clean image
e2fsck -fy base.img >/dev/null 2>&1
fsck_clean base.img || exit 1
[ "$(inode_field base.img /ten Flags)" = 0x80000 ] || fail "/ten is not extent-mapped"
debugfs -R 'ex /ten' base.img 2>/dev/null | grep -q '^ *0/ *1 ' || fail "/ten has no extent leaf block"
for f in $FILES; do
	echo "$(fsverity digest "src$f" | cut -d' ' -f1) $f"
	printf 'dump "%s" "out%s"\n' "$f" "$(echo "$f" | tr / _)"
done >lines
grep -v '^dump' lines >want.all
grep '^dump' lines >dump.cmds
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
	-subj /CN=e2verity-crash >/dev/null 2>&1 || fail "openssl req"

# judge NAME IMG: e2fsck -p repairs the image (exit 0 or 1), after which it is clean; no file's
# bytes changed; the sealed files carry fsverity-utils' digests and pass check
judge()
{
	j_name=$1 j_img=$2
	e2fsck -p "$j_img" >fsck.p 2>&1
	j_rc=$?
	if [ "$j_rc" -gt 1 ]; then
		fail "$j_name: e2fsck -p exit $j_rc: $(head -5 fsck.p)"
		return
	fi
	if ! e2fsck -fn "$j_img" >fsck.out 2>&1; then
		fail "$j_name: e2fsck -fn after -p: $(grep -v '^Pass\|^e2fsck' fsck.out | head -5)"
		return
	fi
	rm -f out_*
	debugfs -f dump.cmds "$j_img" >/dev/null 2>&1
	for f in $FILES; do
		if ! cmp -s "src$f" "out$(echo "$f" | tr / _)"; then
			fail "$j_name: the bytes of $f changed (size $(wc -c <"out$(echo "$f" | tr / _)"))"
			return
		fi
	done
	"$E2VERITY" measure --all "$j_img" 2>/dev/null | sort >measure.out
	j_sealed=$(wc -l <measure.out)
	if [ "$j_sealed" -gt 0 ]; then
		grep -F -f measure.out want.all | sort >measure.want
		if ! cmp -s measure.out measure.want; then
			fail "$j_name: sealed files' digests: $(cat measure.out)"
			return
		fi
		if ! "$E2VERITY" check "$j_img" >check.out 2>&1; then
			fail "$j_name: check: $(cat check.out)"
			return
		fi
	fi
	if [ -n "$J_IMA" ]; then
		snapshot "$j_img" snap.cmds >cut.snap
		# shellcheck disable=SC2086
		ima_judge "$j_name" "$j_img" cut.snap "$J_IMA" $FILES || return
	fi
	pass "$j_name ($j_sealed sealed)"
}

# cuts NAME IMG_BEFORE COMMAND...: the command cut at each of its writes, killed or failing
cuts()
{
	c_name=$1 c_before=$2
	shift 2
	cp "$c_before" count.img
	rm -f writes.log
	E2VERITY_FAULT_LOG=writes.log "$FAULT" "$@" count.img $FILES >/dev/null 2>&1 ||
		{ fail "$c_name: uncut run failed"; return; }
	judge "$c_name: uncut" count.img
	total=$(tail -n 1 writes.log)
	[ "$total" -gt 10 ] || { fail "$c_name: only '$total' writes counted"; return; }
	for mode in kill fail term; do
		n=1
		while [ "$n" -le "$total" ]; do
			cp "$c_before" cut.img
			E2VERITY_FAULT_AT=$n E2VERITY_FAULT_MODE=$mode \
				"$FAULT" "$@" cut.img $FILES >cut.out 2>cut.err
			rc=$?
			if [ "$mode" = fail ] && [ "$rc" -ne 1 ]; then
				fail "$c_name: write $n failing: exit $rc, want 1"
			elif [ "$mode" = fail ] && ! grep -q "cut.img" cut.err; then
				fail "$c_name: write $n failing: no message names the image: $(cat cut.err)"
			elif [ "$mode" = term ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 143 ]; then
				fail "$c_name: SIGTERM at write $n: exit $rc, want 0 or 143: $(cat cut.err)"
			elif [ "$mode" = term ] && ! dumpe2fs -h cut.img 2>/dev/null |
				grep -q '^Filesystem state: *clean$'; then
				# a signal stops at a safe point: the image is clean without e2fsck
				fail "$c_name: SIGTERM at write $n left the image not clean"
			fi
			judge "$c_name: $mode at write $n of $total" cut.img
			n=$((n + stride))
		done
		echo "$c_name: $total cut points tried, $mode mode"
	done
}

J_IMA=
cuts "seal" base.img seal -q
cuts "signed seal" base.img seal -q --key=key.pem --cert=cert.pem
cp base.img sealed.img
"$E2VERITY" seal -q sealed.img $FILES || fail "seal for the unseal cuts"
[ "$(debugfs -R 'ex /four' sealed.img 2>/dev/null | grep -c '^ *0/ *1 ')" -gt 0 ] ||
	fail "sealed /four has no extent leaf block"
cuts "unseal" sealed.img unseal
# issue 21: never a sealed file without its security.ima, nor the reverse
# shellcheck disable=SC2086
snapshot_cmds $FILES >snap.cmds
cp cert.pem ima.crt
J_IMA=seal
cuts "seal --ima-key" base.img seal -q --ima-key=key.pem --ima-cert=cert.pem
cp base.img imasealed.img
"$E2VERITY" seal -q --ima-key=key.pem imasealed.img $FILES || fail "seal --ima-key for the unseal cuts"
J_IMA=unseal
cuts "unseal of signed files" imasealed.img unseal
J_IMA=only
cuts "seal --ima-only" sealed.img seal -q --ima-only --ima-key=key.pem
finish
