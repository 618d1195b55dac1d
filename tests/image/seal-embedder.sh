#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-embedder.sh - a program that links libe2verity alone (tests/helpers/seal-all.c: ext2fs_open,
# e2verity_seal_files(), ext2fs_close) seals every regular file of an image: each file's data,
# placement and metadata bytes are fsverity-utils', the digests it reports are `fsverity digest`'s,
# e2fsck is clean; with one hashing thread and with four (files hashed ahead, from the image source);
# e2verity_check_image() then passes every file, and stops before the first with its cancel flag set;
# e2verity_unseal_files() gives every file back as it was
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
. "${top_srcdir:-.}/tests/image/make-sample.sh"
SEAL_ALL=${top_builddir:-.}/tests/helpers/seal-all
case $SEAL_ALL in /*) ;; *) SEAL_ALL=$PWD/$SEAL_ALL ;; esac
[ -x "$SEAL_ALL" ] || skip "no $SEAL_ALL"
t_tmpdir
cd "$T_TMP" || exit 1

make_fileset files big
(cd files && find . -type f | LC_ALL=C sort) >files.list
fsverity_lines files . >want

for threads in 1 4; do
	img=$T_TMP/t$threads.img
	mkimg "$img" files 256M -b 4096 || { fail "mke2fs"; continue; }
	"$SEAL_ALL" "$img" $threads >got.raw 2>err ||
		{ fail "$threads threads: seal-all exit $?: $(cat err)"; continue; }
	LC_ALL=C sort got.raw >got
	# the digests reported after each commit are fsverity-utils' of the host files
	if cmp -s got want; then
		pass "$threads threads: $(wc -l <want) digests are fsverity digest's"
	else
		fail "$threads threads: digests differ: $(diff want got | head -5)"
	fi
	check "$threads threads: e2fsck -fn clean" fsck_clean "$img"
	check "$threads threads: the library's check passes every file" \
		grep -qx "checked: $(wc -l <want) passed, 0 failed" err
	check "$threads threads: verity feature set" has_feature "$img" verity
	# every file's stored tree, descriptor and placement, byte for byte
	bad=0
	while IFS= read -r f; do
		check_sealed "$img" "${f#.}" "files/$f" >/dev/null || bad=$((bad + 1))
	done <files.list
	same "$threads threads: files sealed as fsverity-utils would" "$bad" 0
	# a second run finds every file sealed and writes nothing
	cp "$img" before.img
	"$SEAL_ALL" "$img" $threads >again 2>err || fail "$threads threads: second run exit $?"
	check "$threads threads: second run skips all" grep -q "^0 files done, $(wc -l <want) skipped" err
	check "$threads threads: second run changes no byte" cmp -s "$img" before.img
done

# e2verity_unseal_files(): every file back as mke2fs made it, the verity feature gone, e2fsck clean
img=$T_TMP/t4.img
if "$SEAL_ALL" "$img" unseal >unsealed 2>err; then
	same "unseal: one line per file" "$(wc -l <unsealed)" "$(wc -l <want)"
	check "unseal: e2fsck -fn clean" fsck_clean "$img"
	if has_feature "$img" verity; then fail "unseal: the verity feature is still set"; else pass "unseal: the verity feature is cleared"; fi
	bad=0
	while IFS= read -r f; do
		p=${f#.}
		fl=$(inode_flags "$img" "$p")
		[ $((fl & 0x100000)) -eq 0 ] || { echo "$p: VERITY_FL still set" >&2; bad=$((bad + 1)); }
		[ "$(inode_field "$img" "$p" Size)" = "$(wc -c <"files/$f")" ] || { echo "$p: size" >&2; bad=$((bad + 1)); }
		debugfs -R "dump \"$p\" $T_TMP/back" "$img" 2>/dev/null
		cmp -s "$T_TMP/back" "files/$f" || { echo "$p: data differs" >&2; bad=$((bad + 1)); }
	done <files.list
	same "unseal: every file's data and size kept, its verity flag cleared" "$bad" 0
	"$SEAL_ALL" "$img" unseal >/dev/null 2>err || fail "unseal again: exit $?"
	check "unseal again: every file skipped (not sealed)" grep -q "^0 files done, $(wc -l <want) skipped" err
else
	fail "unseal: seal-all exit $?: $(cat err)"
fi
finish
