#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# composefs.sh - doc/examples/composefs-store.sh: a composefs object store sealed in an image
#
# Oracles: the objects' names must be what `fsverity digest --hash-alg=sha512` computes for the
# source files (one object for two files of one content), the stored digests what `fsverity
# measure` would print (e2verity measure against those names), e2fsck must find the image clean;
# and check --digest-names must fail the store once an object is renamed, replaced or added
# unsealed (so that its pass means something).
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck debugfs fsverity du
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p tree/usr/bin tree/etc "tree/dir with spaces"
make_data tree/usr/bin/tool 200000
make_data "tree/dir with spaces/a file" 5000
printf 'os-release\n' >tree/etc/os-release
cp tree/etc/os-release tree/etc/same-content
: >tree/etc/empty
E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/composefs-store.sh" tree os.img >log 2>&1
status=$?
same "the example runs" "$status" 0
check "its check passes: 4 objects, no finding" \
	grep -q '^os.img: 4 files checked, 4 passed, .*; 0 files not sealed; digest names: 4 files, 0 findings$' log

# each object's name: fsverity digest of the source files, one object per content
find tree -type f -exec fsverity digest --hash-alg=sha512 --compact {} + | sort -u |
	sed 's#^\(..\)\(.*\)#/objects/\1/\2#' >want
"$E2VERITY" measure os.img --all | sed 's/^sha512:[0-9a-f]* //' | LC_ALL=C sort >got
check "the objects are named by fsverity digest's SHA-512 digests" cmp want got
"$E2VERITY" measure os.img --all | awk '{ sub(/^sha512:/, "", $1); if ("/objects/" substr($1, 1, 2) "/" substr($1, 3) != $2) bad = 1 }
	END { exit bad }'
check "each stored digest is its name" test $? -eq 0
e2fsck -fn os.img >fsck 2>&1
check "e2fsck -fn is clean" test $? -eq 0

# the check fails what no store reader would accept
first=$(head -n 1 got)
second=$(sed -n 2p got)
cp os.img renamed.img
debugfs -w -R "ln $first ${first%/*}/$(echo "${first##*/}" | tr 0-9a-f 1-9a-f0)" renamed.img >/dev/null 2>&1
"$E2VERITY" check --digest-names=/objects renamed.img >out 2>&1
same "an object under another digest's name: exit 4" "$?" 4
check "... DIGEST_NAME_MISMATCH" grep -q 'error DIGEST_NAME_MISMATCH' out
cp os.img added.img
printf 'write tree/etc/os-release /objects/00/unsealed\n' | sed 's#^#mkdir /objects/00\n#' |
	debugfs -w -f - added.img >/dev/null 2>&1
"$E2VERITY" check --digest-names=/objects added.img >out 2>&1
same "an unsealed file in the store: exit 4" "$?" 4
check "... NOT_SEALED" grep -q '^/objects/00/unsealed (inode [0-9]*): error NOT_SEALED' out
cp os.img swapped.img
# the second object's data put under the first's name, sealed again there
debugfs -R "dump $second second.data" os.img >/dev/null 2>&1
printf 'rm %s\nwrite second.data %s\n' "$first" "$first" | debugfs -w -f - swapped.img >/dev/null 2>&1
"$E2VERITY" seal -q --hash-alg=sha512 swapped.img "$first"
"$E2VERITY" check --digest-names=/objects swapped.img >out 2>&1
same "another object's content under a name, sealed: exit 4" "$?" 4
check "... DIGEST_NAME_MISMATCH" grep -q "^$first (inode [0-9]*): error DIGEST_NAME_MISMATCH" out
"$E2VERITY" check --digest-names=/objects os.img tree >out 2>&1
same "--digest-names with a PATH: usage error" "$?" 16
finish
