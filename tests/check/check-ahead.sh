#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-ahead.sh - many small files, checked on two threads (hashed ahead, each inode read once)
# and on one: the digests check prints are `fsverity digest`'s, and a damaged data block, root
# hash, reserved descriptor byte and stored tree block are each found in their file, the same
# on both
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd fsverity debugfs python3
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
python3 - <<'PY'
import os, random
random.seed(5)
# the sizes are fixed (the flips below depend on them); the bytes come from the suite's seed
bytes_rng = random.Random(os.environ.get('E2V_TEST_SEED', '34'))
for i in range(300):
    with open('src/f%03d' % i, 'wb') as f:
        f.write(bytes_rng.randbytes(random.randint(1, 4096)))
for i in range(3):
    with open('src/big%d' % i, 'wb') as f:
        f.write(bytes_rng.randbytes(random.randint(70000, 900000)))
PY
mkimg img src 64M -b 4096
"$E2VERITY" seal -q -a img
check "sealed" test $? -eq 0

(cd src && fsverity digest ./*) | sed 's| \./| /|' | sort >want
for j in 2 1; do
	"$E2VERITY" check -v -j $j img >out.$j 2>&1
	check "-j $j: intact image passes" test $? -eq 0
	grep '^ok ' out.$j | sed 's/^ok //' | sort >got.$j
	check "-j $j: every digest is fsverity's" cmp want got.$j
done

flip img /f050 100
flip img /f100 $((65536 + 16))
flip img /f150 $((65536 + 200))
m=$(metadata_pos "$(stat -c %s src/big1)")
flip img /big1 $((m + 4096 + 100))
for j in 2 1; do
	"$E2VERITY" check -j $j img >out.$j 2>&1
	check "-j $j: damage fails the check (exit 4)" test $? -eq 4
	check "-j $j: data block of /f050" grep -q '^/f050 .*DATA_MISMATCH: data block 0 ' out.$j
	check "-j $j: root hash of /f100" grep -q '^/f100 .*DATA_MISMATCH: data block 0 ' out.$j
	check "-j $j: reserved byte of /f150" grep -q '^/f150 .*DESC_RESERVED_SET: .*offset 200 ' out.$j
	check "-j $j: tree block of /big1" grep -q '^/big1 .*TREE_MISMATCH: .*level 0 block 0 ' out.$j
	check "-j $j: 4 failed" grep -q ', 299 passed, 4 failed,' out.$j
done
check "the same findings on one thread and two" cmp out.1 out.2
finish
