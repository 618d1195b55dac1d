#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# image-source.sh - the fast path is taken through a named image source, whatever the io manager
#
# tests/helpers/source-reads.c opens an image through an io manager of its own, named
# "count:IMAGE" (no file: the library cannot find the image from fs->device_name), counts the
# bytes libext2fs reads through it, and runs e2verity_check_image() with two threads.  With the
# image named by e2verity_set_image_source(), the 24 MiB of file data are read from it directly
# (with pread(), hashed ahead or not), so only metadata goes through the io manager; without it,
# all the data does.  Either way every file passes (sealed by `fsverity`-checked e2verity seal).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
SOURCE_READS=${top_builddir:-.}/tests/helpers/source-reads
case $SOURCE_READS in /*) ;; *) SOURCE_READS=$PWD/$SOURCE_READS ;; esac
[ -x "$SOURCE_READS" ] || skip "no $SOURCE_READS"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir d
rand_bytes 16777216 >d/big
rand_bytes 8388608 >d/mid
for i in 1 2 3 4 5 6 7 8; do rand_bytes $((i * 3000)) >d/small$i; done
mkimg img d 64M -b 4096 || fail "mke2fs"
"$E2VERITY" seal -a img >/dev/null 2>err || fail "seal -a: $(cat err)"
# what the kernel would compute, so that "passed" means the right digests are stored
(cd d && fsverity digest big mid small* | sort) >want
"$E2VERITY" measure --all img | sed 's# /# #' | sort >got
check "stored digests are fsverity digest's" cmp -s want got

data=$((16777216 + 8388608))
for how in source none; do
	"$SOURCE_READS" img $how >$how.out 2>$how.err || fail "$how: exit $?: $(cat $how.err)"
	# shellcheck disable=SC2034 # bytes is read by the eval below
	read -r _ files _ failed _ bytes <$how.out
	check "$how: 10 files, none failed" test "$files" = 10 -a "$failed" = 0
	eval "bytes_$how=\${bytes:-0}"
done
# shellcheck disable=SC2154
if [ "$bytes_source" -lt $((data / 8)) ]; then
	pass "with a source: $bytes_source bytes through the io manager, the data read directly"
else
	fail "with a source, $bytes_source bytes went through the io manager (data: $data)"
fi
# shellcheck disable=SC2154
if [ "$bytes_none" -ge "$data" ]; then
	pass "without one: $bytes_none bytes through the io manager (the slow path, still right)"
else
	fail "without a source only $bytes_none bytes went through the io manager: not the slow path"
fi
finish
