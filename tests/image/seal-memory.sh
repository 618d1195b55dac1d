#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-memory.sh - seal keeps a small record of each file, not its whole pre-flight plan: its peak RSS
# grows by less than 200 bytes a file (issue 20; 20,000 files against 1,000), sealing and resealing
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd python3 e2fsck
plain_build
t_tmpdir
cd "$T_TMP" || exit 1

# files DIR N: N files of 1 KiB in 100 directories
files()
{
	python3 - "$1" "$2" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    sub = '%s/d%d' % (d, i % 100)
    os.makedirs(sub, exist_ok=True)
    with open('%s/f%d' % (sub, i), 'wb') as f:
        f.write(('file %d\n' % i).encode().ljust(1024, b'.'))
PY
}

for n in 1000 20000; do
	files src$n $n
	mkimg img$n src$n 256M -b 4096 -N $((n + 1000)) || fail "making the image of $n files"
done
small=$(peak_rss "$E2VERITY" seal -a img1000)
check "1,000 files: seal -a lists every file" test "$(wc -l <out)" -eq 1000
large=$(peak_rss "$E2VERITY" seal -a img20000)
check "20,000 files: seal -a lists every file" test "$(wc -l <out)" -eq 20000
e2fsck -fn img20000 >fsck.out 2>&1
check "20,000 files: e2fsck -fn finds nothing" test $? -eq 0
if command -v fsverity >/dev/null 2>&1; then
	(cd src20000 && fsverity digest d7/f12307) >want
	check "a digest is fsverity's" grep -q "^$(cut -d' ' -f1 want) /d7/f12307\$" out
fi
# a second run skips every file: each digest printed is read again from the image
small2=$(peak_rss "$E2VERITY" seal -a img1000)
large2=$(peak_rss "$E2VERITY" seal -a img20000)
check "resealing 20,000 files: the same digests" test "$(wc -l <out)" -eq 20000
# the sanitizers' allocator keeps what is freed for a while (quarantine): RSS says nothing there
if [ -n "${ASAN_OPTIONS:-}" ]; then
	echo "# sanitizer build: the peak RSS is not compared"
else
	echo "# peak RSS: $small KiB for 1,000 files, $large KiB for 20,000 ($small2, $large2 all skipped)"
	# a plan of each file (424 bytes) took about 480 bytes a file; 200 is issue 20's bound
	check "sealing: peak RSS grows by less than 200 bytes a file (19,000 files: 3,710 KiB)" \
		test "$small" -gt 0 -a "$large" -gt 0 -a $((large - small)) -lt 3710
	check "all skipped: peak RSS grows by less than 200 bytes a file" \
		test "$small2" -gt 0 -a "$large2" -gt 0 -a $((large2 - small2)) -lt 3710
fi
finish
