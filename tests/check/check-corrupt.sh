#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-corrupt.sh - each kind of damage to a sealed file is reported with its own problem code,
# naming the right file, with exit status 4, and no other file is flagged
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
cd "$T_TMP" || exit 1

make_sample base src || { fail "building the sample image"; finish; }
check "e2fsck -fn passes the sample image" fsck_clean base
"$E2VERITY" check base >/dev/null || fail "the intact sample image does not pass"

# expect_finding WHAT IMG ID PATH [STATUS [PATTERN]]: check IMG finds exactly one problem, ID in
# PATH, exits STATUS (default 4), and the message matches PATTERN
expect_finding()
{
	what=$1 img=$2 id=$3 path=$4 want=${5:-4} pattern=${6:-}
	"$E2VERITY" check "$img" >out 2>err
	got=$?
	grep -v ' files checked, ' out >findings
	if [ "$got" -ne "$want" ]; then
		fail "$what: exit $got, want $want: $(cat out err)"
	elif [ "$(wc -l <findings)" -ne 1 ]; then
		fail "$what: want exactly one finding: $(cat out err)"
	elif ! grep -q "^$path (inode [0-9]*): [a-z]* $id: " findings; then
		fail "$what: want $id in $path: $(cat findings)"
	elif [ -n "$pattern" ] && ! grep -q -- "$pattern" findings; then
		fail "$what: message lacks '$pattern': $(cat findings)"
	else
		pass "$what"
	fi
}

# Geometry of the files (doc/format.md sections 2 and 3), B = 4096:
# /a: 600000 B, SHA-256, M 4096: 147 data blocks; levels 2 (top) + 1; tree at 655360:
#     stored block 0 = top, 1-2 = level 0; descriptor at 667648, size word at 671740.
# /big3: 1048577 B, SHA-512, M 1024, salted: 1025 data blocks, levels 65, 5, 1; tree at 1114112:
#     stored block 0 = level 2 (top), 1-5 = level 1, 6-70 = level 0; descriptor at 1187840.
A_TREE=655360
A_DESC=667648
A_SIZEW=671740
B_TREE=1114112
B_DESC=1187840

t()
{
	cp base img
}

t && flip img /a 12345 && expect_finding "flipped data byte" img DATA_MISMATCH /a 4 "data block 3 "
t && flip img /big3 777777 && expect_finding "flipped data byte, 1K tree blocks" img DATA_MISMATCH \
	/big3 4 "data block 759 "
t && flip img /a $((A_TREE + 4096 + 40)) &&
	expect_finding "level 0 tree byte" img TREE_MISMATCH /a 4 "level 0 block 0 "
t && flip img /a $((A_TREE + 2 * 4096 + 7)) &&
	expect_finding "level 0, second block" img TREE_MISMATCH /a 4 "level 0 block 1 "
t && flip img /a $((A_TREE + 10)) && expect_finding "top tree block" img ROOT_MISMATCH /a
# a file of one block has no tree: its data block's hash is the root hash, and a changed byte
# of it is the data's mismatch
t && flip img /hello 2 && expect_finding "one-block file: data byte" img DATA_MISMATCH /hello 4 \
	"data block 0 (offset 0) does not match its hash in the Merkle tree"
t && flip img /big3 $((B_TREE + 6 * 1024 + 3 * 1024 + 100)) &&
	expect_finding "3 levels: level 0" img TREE_MISMATCH /big3 4 "level 0 block 3 "
t && flip img /big3 $((B_TREE + 2 * 1024 + 5)) &&
	expect_finding "3 levels: level 1" img TREE_MISMATCH /big3 4 "level 1 block 1 "
t && flip img /big3 $((B_TREE + 1000)) &&
	expect_finding "3 levels: level 2, padding of the top block" img ROOT_MISMATCH /big3

# the descriptor, field by field (include/uapi/linux/fsverity.h offsets)
t && flip img /a $((A_DESC + 0)) && expect_finding "version" img DESC_BAD_VERSION /a
t && flip img /a $((A_DESC + 1)) && expect_finding "hash algorithm" img DESC_BAD_HASH_ALG /a
t && flip img /a $((A_DESC + 2)) && expect_finding "log_blocksize" img DESC_BAD_LOG_BLOCKSIZE /a
t && flip img /a $((A_DESC + 2)) 1 &&
	expect_finding "log_blocksize above the fs block size" img DESC_BLOCK_TOO_LARGE /a 4 \
		"8192 exceeds the filesystem block size 4096"
t && flip img /a $((A_DESC + 3)) && expect_finding "salt_size" img DESC_BAD_SALT_SIZE /a
t && flip img /a $((A_DESC + 4)) && expect_finding "sig_size" img DESC_BAD_SIG_SIZE /a
t && flip img /a $((A_DESC + 9)) && expect_finding "data_size" img DESC_BAD_DATA_SIZE /a
t && flip img /a $((A_DESC + 16)) && expect_finding "root hash" img ROOT_MISMATCH /a
t && flip img /a $((A_DESC + 60)) && expect_finding "root hash padding" img DESC_ROOT_PADDING /a
t && flip img /big3 $((B_DESC + 83)) && expect_finding "salt" img TREE_PARAMS_MISMATCH /big3
t && flip img /a $((A_DESC + 90)) && expect_finding "salt padding" img DESC_SALT_PADDING /a
t && flip img /a $((A_DESC + 200)) && expect_finding "reserved bytes" img DESC_RESERVED_SET /a

# the size word
t && flip img /a $((A_SIZEW + 1)) &&
	expect_finding "size word" img SIZE_WORD_BAD /a 4 "reads 65024, should be 256"
t && flip img /a $((A_SIZEW + 3)) && expect_finding "size word, high byte" img SIZE_WORD_BAD /a
t && flip img /a $A_SIZEW &&
	expect_finding "size word the kernel tolerates (511)" img SIZE_WORD_UNUSUAL /a 0

# extents and blocks
t && debugfs -w -R "punch /a 163 163" img >/dev/null 2>&1 &&
	expect_finding "last extent truncated" img METADATA_TRUNCATED /a
t && debugfs -w -R "punch /big3 290 290" img >/dev/null 2>&1 &&
	expect_finding "descriptor block punched" img METADATA_TRUNCATED /big3
t && debugfs -w -R "fallocate /a 164 170" img >/dev/null 2>&1 &&
	expect_finding "unwritten blocks after the metadata" img LAST_EXTENT_UNWRITTEN /a
t && make_data extra 20000 && seal_oracle img extra extra --extra-block &&
	expect_finding "a written block after the metadata" img BLOCKS_PAST_METADATA /extra 4 \
		"1 blocks are allocated after the verity metadata"
t && flip img /a 600005 && expect_finding "garbage after EOF in the last block" img TAIL_NOT_ZERO /a
t && debugfs -w -R 'sif /hello flags 0x100000' img >/dev/null 2>&1 &&
	expect_finding "no extents flag" img NO_EXTENTS_FLAG /hello
t && debugfs -w -R 'mkdir vdir' img >/dev/null 2>&1 &&
	debugfs -w -R 'sif /vdir flags 0x180000' img >/dev/null 2>&1 &&
	expect_finding "verity flag on a directory" img NOT_REGULAR /vdir

# the verity flag without the feature
mke2fs -q -F -t ext4 -b 4096 nofeat 8M >/dev/null
seal_oracle nofeat src/hello hello
expect_finding "verity flag without the feature" nofeat NO_VERITY_FEATURE /hello

# inline data: the kernel needs extents
mke2fs -q -F -t ext4 -b 4096 -O verity,inline_data inl 8M >/dev/null
write_plain inl src/hello tiny
debugfs -w -R 'sif /tiny flags 0x10100000' inl >/dev/null 2>&1
expect_finding "inline data" inl INLINE_DATA /tiny

# --require-signatures: every sealed file is unsigned
"$E2VERITY" check --require-signatures base >out
st=$?
check "--require-signatures exits 4" test $st -eq 4
check "--require-signatures flags each file" test "$(grep -c ' UNSIGNED: ' out)" -eq 7

# JSON of a finding: its id, code and the values of its template
if command -v python3 >/dev/null 2>&1; then
	t && flip img /big3 $((B_TREE + 2 * 1024 + 5))
	"$E2VERITY" check --json img >j.json
	check "check --json exits 4 on damage" test $? -eq 4
	python3 - j.json <<'EOF' || fail "check --json finding content"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["exit_status"] == 4 and doc["summary"]["failed"] == 1
# every checked file is listed, the intact ones as ok with no findings
assert len(doc["files"]) == doc["summary"]["files"]
assert all(g["status"] == "ok" and not g["findings"] for g in doc["files"] if g["path"] != "/big3")
(f,) = [g for g in doc["files"] if g["status"] != "ok"]
assert f["path"] == "/big3" and f["status"] == "failed"
(p,) = f["findings"]
assert p["id"] == "TREE_MISMATCH" and p["code"] == 0x0402 and p["severity"] == "error"
assert p["level"] == 1 and p["block"] == 1 and p["count"] == 1
assert len(p["stored_hash"]) == 128 and p["stored_hash"] != p["computed_hash"]
EOF
fi

# several damaged files at once: each named, the intact ones not
t
flip img /a 5
flip img /hello 0
flip img "/dir/sub/nested file" 3
"$E2VERITY" check img >out
st=$?
check "three damaged files: exit 4" test $st -eq 4
check "three damaged files: three findings" test "$(grep -c ' DATA_MISMATCH' out)" -eq 3
check "three damaged files: the nested one named" grep -q '^/dir/sub/nested file (inode' out
check "three damaged files: summary" grep -q ': 7 files checked, 4 passed, 3 failed' out
finish
