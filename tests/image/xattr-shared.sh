#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# xattr-shared.sh - issue 36: an extended attribute block is freed, or its count lowered, only when
# its reference count is the number of inodes that name it. Two files given one block with a count
# of 1 (a damaged or hostile image, as e2fsck -fn reports it): seal --ima-key and unseal of either
# are refused before anything is written for any file, the message names the block and both
# inodes, the image stays byte for byte. A block shared with the right count still works as before
# (with a journal: a new block, the count lowered; without one: refused); a count higher than the
# inodes is refused too. Journaled and not.
# Oracles: debugfs (the block, the inodes), e2fsck -fn, cmp.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd openssl
t_tmpdir
cd "$T_TMP" || exit 1

self_signed key.pem cert.pem "e2verity xattr"
mkdir src
seeded src/a 100000 1
seeded src/b 5000 2
seeded src/c 7000 3
seeded src/x 3000 4
# too large for the inode's body: the attributes live in a block
head -c 300 /dev/zero | tr '\0' v >big.val

# acl_of IMG PATH: the inode's extended attribute block, 0 for none
acl_of()
{
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*File ACL: *\([0-9]*\).*/\1/p'
}
# ino_of IMG PATH: the inode number
ino_of()
{
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'
}
# share IMG FROM TO...: each TO names FROM's attribute block too, its i_blocks counting it; the
# block's count is left as it was
share()
{
	sh_img=$1 sh_blk=$(acl_of "$1" "$2")
	shift 2
	for sh_p in "$@"; do
		printf 'sif %s file_acl %s\nsif %s blocks %s\n' "$sh_p" "$sh_blk" "$sh_p" \
			$(($(inode_field "$sh_img" "$sh_p" Blockcount) + 8))
	done | debugfs -w -f - "$sh_img" >/dev/null 2>&1
}
# refused NAME IMG PATTERN COMMAND...: exit 1, PATTERN on stderr, IMG byte for byte as it was
refused()
{
	rf_name=$1 rf_img=$2 rf_pattern=$3
	shift 3
	cp "$rf_img" before.img
	expect_fail "$rf_name" 1 "$rf_pattern" "$@"
	cmp -s "$rf_img" before.img || fail "$rf_name: the image changed"
}

msg="Extended attribute block's reference count is not the number of inodes that name it (run e2fsck -f first)"

for o in "" "-O ^has_journal"; do
	j=${o:+no journal}
	j=${j:-journal}

	# ---- a block two files name, its count 1 ---------------------------------------------
	# shellcheck disable=SC2086
	mkimg lie.img src 32M -b 4096 -O verity $o || { fail "mke2fs $o"; continue; }
	debugfs -w -R "ea_set -f big.val /a user.big" lie.img >/dev/null 2>&1
	blk=$(acl_of lie.img /a)
	check "$j: /a's attributes are in a block" test "${blk:-0}" -ne 0
	share lie.img /a /b
	ia=$(ino_of lie.img /a) ib=$(ino_of lie.img /b)
	e2fsck -fn lie.img >fsck.out 2>&1
	check "$j: e2fsck -fn finds the count wrong" \
		grep -q "Extended attribute block $blk has reference count 1, should be 2" fsck.out
	refused "$j, count 1 for 2 inodes: seal --ima-key /a" lie.img \
		"^e2verity: $msg while checking '/a' (block $blk: reference count 1, but inodes $ia and $ib name it)$" \
		"$E2VERITY" seal --ima-key=key.pem lie.img /a
	refused "$j, count 1 for 2 inodes: seal --ima-key /b" lie.img \
		"$msg while checking '/b' (block $blk: reference count 1, but inodes $ib and $ia name it)$" \
		"$E2VERITY" seal --ima-key=key.pem lie.img /b
	refused "$j, count 1 for 2 inodes: another file first, nothing written for it" lie.img \
		"while checking '/a' (block $blk: reference count 1, but inodes $ia and $ib name it)" \
		"$E2VERITY" seal --ima-key=key.pem lie.img /x /a
	check "... /x not sealed" test $(($(inode_flags lie.img /x) & 0x100000)) -eq 0

	# a third name: the message counts the rest
	cp lie.img three.img
	share three.img /a /c
	refused "$j, count 1 for 3 inodes" three.img \
		"while checking '/a' (block $blk: reference count 1, but inodes $ia, $ib and 1 more name it)$" \
		"$E2VERITY" seal --ima-key=key.pem three.img /a

	# a count higher than the names (its checksum off, to write it by hand): no proof either
	# shellcheck disable=SC2086
	mkimg high.img src 32M -b 4096 -O verity,^metadata_csum $o || { fail "mke2fs $o"; continue; }
	debugfs -w -R "ea_set -f big.val /a user.big" high.img >/dev/null 2>&1
	share high.img /a /b
	hblk=$(acl_of high.img /a)
	put_le32 high.img $((hblk * 4096 + 4)) 3
	e2fsck -fn high.img >fsck.out 2>&1
	check "$j: e2fsck -fn finds the count 3 wrong" \
		grep -q "Extended attribute block $hblk has reference count 3, should be 2" fsck.out
	refused "$j, count 3 for 2 inodes" high.img \
		"while checking '/a' (block $hblk: reference count 3, but only 2 inodes name it, $ia and $ib among them)$" \
		"$E2VERITY" seal --ima-key=key.pem high.img /a

	# ---- unseal, and a reseal: /a's security.ima is in the block /b names too -----------------
	# shellcheck disable=SC2086
	mkimg un.img src 32M -b 4096 -O verity $o || { fail "mke2fs $o"; continue; }
	debugfs -w -R "ea_set -f big.val /a user.big" un.img >/dev/null 2>&1
	"$E2VERITY" seal -q --ima-key=key.pem un.img /a || fail "$j: seal --ima-key /a"
	check "$j: sealed with its security.ima, e2fsck clean" fsck_clean un.img
	ublk=$(acl_of un.img /a)
	share un.img /a /b
	e2fsck -fn un.img >fsck.out 2>&1
	check "$j: e2fsck -fn finds the count of the sealed file's block wrong" \
		grep -q "Extended attribute block $ublk has reference count 1, should be 2" fsck.out
	refused "$j, count 1 for 2 inodes: unseal /a" un.img \
		"^e2verity: $msg while unsealing '/a' (block $ublk: reference count 1, but inodes $ia and $ib name it)$" \
		"$E2VERITY" unseal un.img /a
	refused "$j, count 1 for 2 inodes: seal --force --ima-key /a (replace)" un.img \
		"while checking '/a' (block $ublk: reference count 1, but inodes $ia and $ib name it)$" \
		"$E2VERITY" seal --force --ima-key=key.pem un.img /a
	refused "$j, count 1 for 2 inodes: seal --force --hash-alg=sha512 /a (reseal drops it)" un.img \
		"while checking '/a' (block $ublk: reference count 1, but inodes $ia and $ib name it)$" \
		"$E2VERITY" seal --force --hash-alg=sha512 un.img /a

	# ---- the same block with the right count: as before this check ----------------------------
	cp lie.img ok.img
	e2fsck -fy ok.img >/dev/null 2>&1
	check "$j: e2fsck -fy gave the block its count" fsck_clean ok.img
	if [ -z "$o" ]; then
		cp ok.img one.img
		"$E2VERITY" seal -q --ima-key=key.pem one.img /a
		check "$j, count 2: seal --ima-key /a" test $? -eq 0
		check "$j, count 2: e2fsck -fn clean" fsck_clean one.img
		same "$j, count 2: /b keeps the block" "$(acl_of one.img /b)" "$blk"
		check "$j, count 2: /a has a new one" test "$(acl_of one.img /a)" != "$blk"
		"$E2VERITY" seal -q --ima-key=key.pem ok.img /a /b
		check "$j, count 2: seal --ima-key /a /b (the count goes to 1, then the block)" \
			test $? -eq 0
		check "$j, count 2, both: e2fsck -fn clean" fsck_clean ok.img
		"$E2VERITY" check -q --ima-cert=cert.pem ok.img >/dev/null 2>&1
		check "$j, count 2, both: check --ima-cert" test $? -eq 0
	else
		refused "$j, count 2: refused as before (one write cannot change it)" ok.img \
			"shares its extended attribute block" \
			"$E2VERITY" seal --ima-key=key.pem ok.img /a
	fi
	# unseal of a file whose security.ima is in a block shared with the right count
	e2fsck -fy un.img >/dev/null 2>&1
	check "$j: e2fsck -fy gave the sealed file's block its count" fsck_clean un.img
	if [ -z "$o" ]; then
		"$E2VERITY" unseal -q un.img /a
		check "$j, count 2: unseal /a" test $? -eq 0
		check "$j, count 2: unseal: e2fsck -fn clean" fsck_clean un.img
		same "$j, count 2: unseal: /b keeps the block" "$(acl_of un.img /b)" "$ublk"
		check "$j, count 2: unseal: /a's security.ima gone" \
			sh -c "! debugfs -R 'ea_list /a' un.img 2>/dev/null | grep -q security.ima"
	else
		refused "$j, count 2: unseal refused as before" un.img \
			"shares its extended attribute block" "$E2VERITY" unseal un.img /a
	fi
done
finish
