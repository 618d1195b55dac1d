#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# diff.sh - e2verity diff of two builds that differ by an added, a removed and a changed file
# equals the diff of the `fsverity digest` listings of their source trees, image against image,
# image against manifest, in text and JSON; only descriptors are read unless --verify
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p old/d new/d
seeded old/same 200000 1
seeded old/d/same2 5000 2
seeded old/changed 70000 3
seeded old/removed 9000 4
make_data old/empty 0
cp old/same old/d/same2 new/
mv new/same2 new/d/same2
: >new/empty
seeded new/changed 70001 5
seeded new/d/added 12345 6
mkimg old.img old 32M -b 4096 || exit 1
mkimg new.img new 32M -b 4096 || exit 1
"$E2VERITY" seal -q -a old.img && "$E2VERITY" seal -q -a new.img || fail "seal -a"

# the oracle: what fsverity digest says of the two source trees, joined by path
fsverity_lines old . >old.txt
fsverity_lines new . >new.txt
awk 'NR == FNR { old[$2] = $1; next }
     !($2 in old) { print "added", $1, $2; next }
     old[$2] != $1 { print "changed", old[$2], $1, $2 }
     old[$2] == $1 { print "unchanged", $1, $2 }
     { delete old[$2] }
     END { for (p in old) print "removed", old[p], p }' old.txt new.txt | LC_ALL=C sort >want
check "the oracle has one added, one removed, one changed file" \
	test "$(cut -d' ' -f1 want | grep -v unchanged | LC_ALL=C sort | tr '\n' ' ')" = \
	"added changed removed "

# diffed OLD NEW [options]: diff's lines, spaces squeezed and sorted, in got; its status in st
diffed()
{
	"$E2VERITY" diff -v "$@" >out 2>err
	st=$?
	grep -v ' -> ' out | tr -s ' ' | LC_ALL=C sort >got
}
diffed old.img new.img
same "image against image, different: exit 1 (as diff(1))" "$st" 1
check "image against image: the oracle's diff" cmp want got
check "the summary" grep -q '^old.img -> new.img: 1 added, 1 removed, 1 changed, 3 unchanged$' out
diffed old.img new.txt
same "image against a manifest, different: exit 1" "$st" 1
check "image against the new tree's fsverity listing: the oracle's diff" cmp want got
diffed old.txt new.img
check "the old tree's fsverity listing against an image: the oracle's diff" cmp want got
diffed - new.img <old.txt
check "a manifest on standard input: the oracle's diff" cmp want got
# no difference: exit 0, image against itself, against its own listing, manifest against manifest
diffed new.img new.img
same "an image against itself: exit 0" "$st" 0
check "an image against itself: nothing added, removed or changed" \
	grep -q '^new.img -> new.img: 0 added, 0 removed, 0 changed, 5 unchanged$' out
diffed new.img new.txt
same "an image against the listing of its tree: exit 0" "$st" 0
diffed old.txt old.txt
same "a manifest against itself: exit 0" "$st" 0
"$E2VERITY" measure --all --json new.img >new.json
diffed old.img new.json
check "against measure --json: the oracle's diff" cmp want got
"$E2VERITY" diff old.img new.img >plain
check "without -v: only what differs" \
	test "$(grep -c '^unchanged' plain)" -eq 0 -a "$(grep -c '^changed\|^added\|^removed' plain)" -eq 3

"$E2VERITY" diff --json old.img new.img >out.json
same "--json, different: exit 1" $? 1
check "--json: the exit status" grep -q '"exit_status": 1$' out.json
"$E2VERITY" diff --json new.img new.img >same.json
same "--json, the same: exit 0" $? 0
check "--json, the same: the exit status" grep -q '"exit_status": 0$' same.json
check "--json: the summary" grep -q '"changed": 1,' out.json
chg_old=$(awk '$1 == "changed" { print $2 }' want)
chg_new=$(awk '$1 == "changed" { print $3 }' want)
check "--json: the changed file's digests" sh -c "grep -q '\"old_digest\": \"$chg_old\"' out.json &&
	grep -q '\"new_digest\": \"$chg_new\"' out.json"
check "--json: the added file" grep -q '"path": "/d/added"' out.json

# a data byte flipped in NEW: the descriptors alone do not see it; --verify does
cp new.img flip.img
flip flip.img /same 100 || fail "flip"
diffed old.img flip.img
check "descriptors only: a flipped data byte is not read" cmp want got
"$E2VERITY" diff --verify old.img flip.img >out 2>err
same "--verify: a file whose data fails: trouble, exit 2" $? 2
check "--verify: it is named" grep -q "'/same' in 'flip.img' fails verification: DATA_MISMATCH" err
check "--verify: the rest is still compared" grep -q '^changed .* /changed$' out
"$E2VERITY" diff --verify old.img new.img >out 2>err
same "--verify of intact, different images: exit 1" $? 1
"$E2VERITY" diff --verify new.img new.img >out 2>err
same "--verify of an intact image against itself: exit 0" $? 0
"$E2VERITY" diff --verify new.img flip.img >out 2>err
same "--verify, no difference in the descriptors but data that fails: exit 2" $? 2

expect_fail "one operand" 2 "OLD and NEW are needed" "$E2VERITY" diff old.img
expect_fail "three operands" 2 "too many operands" "$E2VERITY" diff old.img new.img x
expect_fail "stdin twice" 2 "only one of OLD and NEW" "$E2VERITY" diff - -
printf 'sha256:00 /x\n' >bad.txt
expect_fail "a malformed manifest: trouble" 2 "MANIFEST_MALFORMED" "$E2VERITY" diff bad.txt new.img
expect_fail "no such image: trouble" 2 "nosuch" "$E2VERITY" diff nosuch.img new.img
mkdir adir
dd if=/dev/zero of=junk.img bs=1k count=64 2>/dev/null
expect_fail "an operand that is not an image: trouble" 2 "junk.img" "$E2VERITY" diff junk.img new.img
expect_fail "a directory operand: trouble" 2 "adir" "$E2VERITY" diff new.img adir
finish
