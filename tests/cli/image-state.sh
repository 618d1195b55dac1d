#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# image-state.sh - images in a state nothing should read or write silently: a file shorter than its
# filesystem is refused by every command, image unchanged; check on a journal that needs recovery
# says so, as e2fsck -n does, and exits 4 (what the journal holds is not what is checked)
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd truncate dumpe2fs
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
printf 'hello\n' >src/a
make_data src/b 10000
mkimg base.img src 8M -b 4096
"$E2VERITY" seal -q base.img /a || fail "sealing /a"

# a truncated image: the filesystem is 8 MiB, the file 4 MiB
cp base.img short.img
truncate -s 4M short.img
cp short.img short.orig
why="^e2verity: 'short.img' is truncated: its filesystem is 8388608 bytes, but the file only 4194304$"
expect_fail "seal of a truncated image" 1 "$why" "$E2VERITY" seal short.img /b
expect_fail "seal -n of a truncated image" 1 "$why" "$E2VERITY" seal -n short.img /b
expect_fail "unseal of a truncated image" 1 "$why" "$E2VERITY" unseal short.img /a
expect_fail "check of a truncated image" 8 "$why" "$E2VERITY" check short.img
expect_fail "measure of a truncated image" 1 "$why" "$E2VERITY" measure short.img /a
check "a truncated image is left as it was" cmp -s short.img short.orig
# one block short is short too; a longer file is fine (the filesystem need not fill it)
cp base.img short1.img
truncate -s $((8 * 1048576 - 4096)) short1.img
expect_fail "a block short" 1 "'short1.img' is truncated" "$E2VERITY" seal short1.img /b
cp base.img long.img
truncate -s 9M long.img
check "a file longer than its filesystem is sealed" "$E2VERITY" seal -q long.img /b
check "the longer one: e2fsck clean" fsck_clean long.img

# a journal that needs recovery: seal cut (kill -9) once its transaction is committed, before the
# checkpoint, so that the journal holds the sealed /b; e2fsck -n is the oracle for "needs recovery"
if [ -x "$FAULT" ]; then
	n=0 found=
	while [ $n -lt 40 ] && [ -z "$found" ]; do
		n=$((n + 1))
		cp base.img rec.img
		(E2VERITY_FAULT_AT=$n "$FAULT" seal -q rec.img /b >/dev/null 2>&1)
		has_feature rec.img needs_recovery || continue
		cp rec.img replayed.img
		e2fsck -fy -E journal_only replayed.img >/dev/null 2>&1
		[ $(($(inode_flags replayed.img /b) >> 20 & 1)) -eq 1 ] && found=$n
	done
	if [ -z "$found" ]; then
		fail "no cut left the journal needing recovery"
	else
		e2fsck -n rec.img >fsck.out 2>&1
		check "e2fsck -n skips the journal recovery" grep -q 'skipping journal recovery' fsck.out
		cp rec.img rec.orig
		"$E2VERITY" check rec.img >out 2>err
		same "check of an unreplayed journal: exit 4" $? 4
		check "check says the journal is not replayed" grep -q \
			"^e2verity: warning: 'rec.img' needs journal recovery; skipping it, as e2fsck -n does" err
		check "check's summary says so" grep -q '; journal not replayed$' out
		"$E2VERITY" check --json rec.img >json.out 2>/dev/null
		check "--json: needs_recovery" grep -q '"needs_recovery": true' json.out
		check "check left the journal as it was" cmp -s rec.img rec.orig
		# what the journal holds is the sealed /b: after the replay it is there, and clean
		e2fsck -fy -E journal_only rec.img >/dev/null 2>&1
		"$E2VERITY" check -v rec.img >out 2>err
		same "after e2fsck's replay: exit 0" $? 0
		check "after the replay: /b is sealed" grep -q '^ok sha256:[0-9a-f]* /b$' out
		check "after the replay: no warning" test ! -s err
	fi
else
	echo "note: tests/helpers/e2verity-fault is not built; the journal case is not exercised" >&2
fi
finish
