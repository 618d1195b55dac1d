# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# crash-nojournal-lib.sh - what the crash tests of images without a journal share (sourced by
# seal-crash-nojournal.sh, repair-crash-nojournal.sh, ima-crash-nojournal.sh; three tests so
# that make -j runs them side by side): the files, the image, the key, and judge, which says what
# a cut run must leave: e2fsck -p repairs what is left without changing a byte of any file, and
# each file is sealed and right, or not sealed; SIGTERM at any write leaves a clean image
. "${top_srcdir:-.}/tests/lib.sh"
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
done >want.all
# shellcheck disable=SC2086 # FILES is a list of paths without blanks
dumps_setup out $FILES
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
	-subj /CN=e2verity-crash >/dev/null 2>&1 || fail "openssl req"

# judge NAME IMG MODE STATUS: e2fsck -p repairs the image (exit 0 or 1), after which it is clean;
# no file's bytes changed; the sealed files carry fsverity-utils' digests and pass check. A
# SIGTERM stops at a safe point: the image is clean without e2fsck.
judge()
{
	j_name=$1 j_img=$2
	if [ "$3" = term ] && [ "$4" -ne 0 ] && [ "$4" -ne 143 ]; then
		fail "$j_name: exit $4, want 0 or 143: $(cat cut.err)"
		return
	fi
	if [ "$3" = term ] && ! dumpe2fs -h "$j_img" 2>/dev/null | grep -q '^Filesystem state: *clean$'; then
		fail "$j_name: the image is not clean"
		return
	fi
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
	if ! dumps_same out "$j_img"; then
		fail "$j_name: the bytes of $DUMPS_DIFF changed"
		return
	fi
	judge_e2verity measure --all "$j_img" 2>/dev/null | sort >measure.out
	j_sealed=$(wc -l <measure.out)
	if [ "$j_sealed" -gt 0 ]; then
		grep -F -f measure.out want.all | sort >measure.want
		if ! cmp -s measure.out measure.want; then
			fail "$j_name: sealed files' digests: $(cat measure.out)"
			return
		fi
		if ! judge_e2verity check "$j_img" >check.out 2>&1; then
			fail "$j_name: check: $(cat check.out)"
			return
		fi
	fi
	# signing sealed files: every file stays sealed, signed whole or not at all
	if [ -n "$J_SIGNED" ]; then
		# shellcheck disable=SC2086 # FILES is a list of paths without blanks
		if [ "$j_sealed" -ne "$(echo $FILES | wc -w)" ]; then
			fail "$j_name: $j_sealed files sealed, want all: $(cat measure.out)"
			return
		fi
		# shellcheck disable=SC2086
		sig_judge "$j_name" "$j_img" sigs cert.pem $FILES || return
	fi
	if [ -n "$J_IMA" ]; then
		snapshot "$j_img" snap.cmds >cut.snap
		# shellcheck disable=SC2086
		ima_judge "$j_name" "$j_img" cut.snap "$J_IMA" $FILES || return
	fi
	pass "$j_name ($j_sealed sealed${J_SIGNED:+, $SIG_JUDGE_SIGNED signed})"
}


J_IMA=
J_SIGNED=
CUT_MODES="kill fail term"

# sealed.img: base.img with every file sealed (what the unseal and repair cuts start from)
make_sealed()
{
	cp base.img sealed.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal -q sealed.img $FILES || fail "seal for the unseal cuts"
	[ "$(debugfs -R 'ex /four' sealed.img 2>/dev/null | grep -c '^ *0/ *1 ')" -gt 0 ] ||
		fail "sealed /four has no extent leaf block"
}
