#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-writer.sh - the metadata of many small files, written by the writer thread (a plain image
# file), is byte for byte what the same seal writes through an undo file (-z: every write in
# turn, on the sealing thread), with and without a journal; e2fsck -fn passes, and check prints
# `fsverity digest`'s digest for every file
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd fsverity python3
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src
python3 - <<'PY'
import os, random
random.seed(7)
for i in range(3000):
    d = 'src/d%02d' % (i % 30)
    os.makedirs(d, exist_ok=True)
    with open('%s/f%04d' % (d, i), 'wb') as f:
        f.write(os.urandom(random.randint(1, 4096)))
for i in range(4):
    with open('src/big%d' % i, 'wb') as f:
        f.write(os.urandom(random.randint(100000, 3000000)))
PY
(cd src && find . -type f -print0 | xargs -0 fsverity digest) | sed 's| \./| /|' | sort >want

for journal in has_journal ^has_journal; do
	mkimg plain.img src 96M -b 4096 -O "$journal"
	cp plain.img undo.img
	"$E2VERITY" seal -q -a plain.img
	check "$journal: sealed with the writer thread" test $? -eq 0
	"$E2VERITY" seal -q -a -z undo.file undo.img
	check "$journal: sealed through an undo file" test $? -eq 0
	check "$journal: the same image both ways" cmp plain.img undo.img
	check "$journal: e2fsck clean" fsck_clean plain.img
	"$E2VERITY" check -v plain.img >out 2>&1
	check "$journal: check passes" test $? -eq 0
	grep '^ok ' out | sed 's/^ok //' | sort >got
	check "$journal: every digest is fsverity's" cmp want got
	rm -f undo.file
done
finish
