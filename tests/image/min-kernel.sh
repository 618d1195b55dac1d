#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# min-kernel.sh - issue 23: `seal --min-kernel` refuses what that kernel cannot read and is quiet
# about what it reads; `check` says the oldest kernel that reads each file and the image, and
# `check --min-kernel` makes what that kernel refuses an error. The rules are FORMAT.md §2.1's
# (before 6.3: filesystem and tree blocks of the page size; from 6.3: tree blocks from 1024 up to
# the page and the filesystem block), which tests/kernel/block-sizes-kernel.sh holds against the
# real kernels.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs cmp
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
make_data src/a 300000
make_data src/b 5000
mke2fs -q -F -t ext4 -b 1024 -d src k1.img 8M >/dev/null || { fail "mke2fs -b 1024"; finish; }
mke2fs -q -F -t ext4 -b 4096 -d src k4.img 8M >/dev/null || { fail "mke2fs -b 4096"; finish; }

# seal: refusals leave the image as it was, with the reason
for c in "k1.img 6.1 --block-size=1024 1024-byte blocks" \
	"k4.img 6.1 --block-size=1024 1024-byte Merkle tree blocks" \
	"k4.img 6.2 --block-size=2048 2048-byte Merkle tree blocks" \
	"k4.img 6.1:16k --block-size=4096 16384-byte pages" \
	"k4.img 6.12:4k --block-size=8192 Merkle tree block size exceeds"; do
	set -- $c
	img=$1 k=$2 bs=$3
	shift 3
	cp "$img" try.img
	expect_fail "seal --min-kernel=$k $bs on $img refused" 1 "$*" \
		"$E2VERITY" seal --min-kernel="$k" "$bs" try.img /a
	check "seal --min-kernel=$k $bs: image unchanged" cmp -s "$img" try.img
done
# accepted, and quiet: nothing on stderr
for c in "k1.img 6.3 --block-size=1024" "k1.img 6.12 --block-size=1024" \
	"k4.img 6.3 --block-size=2048" "k4.img 6.1 --block-size=4096" \
	"k4.img 5.4.0 --block-size=4096" "k4.img 6.12:16k --block-size=1024" \
	"k4.img 6.12.117 --block-size=4096"; do
	set -- $c
	cp "$1" try.img
	"$E2VERITY" seal --min-kernel="$2" "$3" try.img /a >out 2>err
	st=$?
	check "seal --min-kernel=$2 $3 on $1: exit 0" test $st -eq 0
	check "seal --min-kernel=$2 $3 on $1: nothing on stderr" test ! -s err
	same "seal --min-kernel=$2 $3 on $1: fsverity digest's" "$(cat out)" \
		"$(fsverity digest "$3" src/a | sed 's| src/a$| /a|')"
done
# without it: the warning that Linux before 6.3 cannot read it
cp k1.img try.img
"$E2VERITY" seal --block-size=1024 try.img /a >out 2>err
check "seal without --min-kernel on a 1 KiB filesystem: warns about Linux before 6.3" \
	grep -q 'warning:.*Linux before 6.3' err
for v in x 6 6.x 5.3 4.19 6.1:8k 6.1: -6.1 6.1.2.3; do
	expect_fail "seal --min-kernel=$v is a usage error" 2 "invalid kernel version" \
		"$E2VERITY" seal --min-kernel="$v" k4.img /a
	expect_fail "check --min-kernel=$v is a usage error" 16 "invalid kernel version" \
		"$E2VERITY" check --min-kernel="$v" k4.img
done

# check: one image with a file every kernel reads and one only 6.3 and later read
cp k4.img mixed.img
"$E2VERITY" seal -q mixed.img /b || fail "seal /b"
"$E2VERITY" seal -q --block-size=2048 mixed.img /a || fail "seal --block-size=2048 /a"
"$E2VERITY" check mixed.img >out 2>&1
same "check mixed.img: exit 0" "$?" 0
check "check: the summary says 6.3 (news: not every kernel reads them)" \
	grep -q '^mixed.img: 2 files checked, 2 passed.*; Linux 6.3 or later with 4096-byte pages reads them all$' out
"$E2VERITY" check -v mixed.img >out 2>&1
check "check -v: /a only 6.3 and later read" grep -q '^ok sha256:[0-9a-f]* /a (Linux 6.3 or later)$' out
check "check -v: /b every kernel reads" grep -q '^ok sha256:[0-9a-f]* /b$' out
"$E2VERITY" check --json mixed.img >out.json 2>&1
check "check --json: /a min_kernel 6.3" \
	sh -c "tr -d ' \n' <out.json | grep -q '\"path\":\"/a\",[^}]*\"min_kernel\":\"6.3\"'"
check "check --json: /b min_kernel 5.4" \
	sh -c "tr -d ' \n' <out.json | grep -q '\"path\":\"/b\",[^}]*\"min_kernel\":\"5.4\"'"
check "check --json: summary min_kernel 6.3, 4096-byte pages" \
	sh -c "tr -d ' \n' <out.json | grep -q '\"min_kernel\":\"6.3\",\"kernel_page_size\":4096}'"
"$E2VERITY" check --min-kernel=6.1 mixed.img >out 2>&1
same "check --min-kernel=6.1: exit 4" "$?" 4
check "check --min-kernel=6.1: KERNEL_TREE_BLOCK for /a" \
	grep -q '^/a (inode [0-9]*): error KERNEL_TREE_BLOCK: has 2048-byte Merkle tree blocks' out
check "check --min-kernel=6.1: /b passes" grep -q ': 2 files checked, 1 passed, 1 failed' out
"$E2VERITY" check --min-kernel=6.3 mixed.img >out 2>&1
same "check --min-kernel=6.3: exit 0" "$?" 0
"$E2VERITY" check --min-kernel=6.1:16k mixed.img >out 2>&1
same "check --min-kernel=6.1:16k: both refused (4 KiB blocks on 16 KiB pages)" \
	"$? $(grep -c 'error KERNEL_FS_BLOCK' out)" "4 2"
"$E2VERITY" check --min-kernel=6.12:16k mixed.img >out 2>&1
same "check --min-kernel=6.12:16k: exit 0" "$?" 0
check "check --min-kernel=6.12:16k: the summary counts 16 KiB pages" grep -q 'with 16384-byte pages reads them all' out
"$E2VERITY" check --json --min-kernel=6.1 mixed.img >out.json 2>&1
check "check --json --min-kernel=6.1: the finding's code" \
	sh -c "tr -d ' \n' <out.json | grep -q '\"id\":\"KERNEL_TREE_BLOCK\",\"severity\":\"error\"'"

# a 1 KiB filesystem: KERNEL_FS_BLOCK for 6.1, nothing for 6.3
cp k1.img one.img
"$E2VERITY" seal -q --min-kernel=6.3 --block-size=1024 one.img /a /b || fail "seal one.img"
"$E2VERITY" check --min-kernel=6.1 one.img >out 2>&1
same "check --min-kernel=6.1 of a 1 KiB filesystem" "$? $(grep -c 'error KERNEL_FS_BLOCK: is on a filesystem of 1024-byte blocks' out)" "4 2"
"$E2VERITY" check --min-kernel=6.3 one.img >out 2>&1
same "check --min-kernel=6.3 of a 1 KiB filesystem" "$?" 0
finish
