#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# measure-batch.sh - measure of many files reads their descriptors together
# (e2verity_measure_inodes()): each line and each error is what measuring the file alone says
# (e2verity_measure_inode()), and the digests are fsverity digest's; files whose descriptor or
# size word is damaged, an unsealed file and a hard link among them
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd fsverity debugfs
t_tmpdir
cd "$T_TMP" || exit 1

# small files (a descriptor block each, next to each other), a bigger one, one left unsealed
mkdir -p src/d
i=0
while [ $i -lt 150 ]; do
	seeded "src/d/f$i" $((100 + i * 37)) $((i + 1))
	i=$((i + 1))
done
seeded src/big 300000 900
seeded src/plain 5000 901
mkimg base.img src 32M -b 4096 || exit 1
"$E2VERITY" seal -q -a base.img || fail "seal -a"
# the unsealed one: sealed with the rest, then unsealed
"$E2VERITY" unseal -q base.img /plain || fail "unseal /plain"
debugfs -w -R "ln /d/f7 /d/link" base.img >/dev/null 2>&1
debugfs -w -R "sif /d/f7 links_count 2" base.img >/dev/null 2>&1
fsck_clean base.img || fail "e2fsck -fn of the sealed image"

# damage, in files of one data block (no tree): a descriptor's hash algorithm, a size word that
# puts the descriptor before the metadata, a descriptor's data_size
bs=4096
damage()
{
	d_p=$1 d_what=$2
	d_size=$(inode_field base.img "$d_p" Size)
	read -r _m d_dpos d_end <<EOF
$(verity_layout "$d_size" 0 0 "$bs")
EOF
	case $d_what in
	alg) flip base.img "$d_p" $((d_dpos + 1)) 7 ;;
	word) flip base.img "$d_p" $((d_end - 3)) 16 ;;
	size) flip base.img "$d_p" $((d_dpos + 8)) 1 ;;
	esac || fail "damage $d_what of $d_p"
}
damage /d/f3 alg
damage /d/f40 word
damage /d/f41 size
damage /d/f100 alg

"$E2VERITY" measure --all base.img >all.out 2>all.err
st=$?
same "measure --all exits 1 (some files cannot be measured)" "$st" 1
# the paths measure --all names, each measured alone
sed -n "s/^[a-z0-9]*:[0-9a-f]* //p" all.out >paths
sed -n "s/.*while measuring '\\([^']*\\)'.*/\\1/p" all.err >>paths
sort -o paths paths
check "measure --all names every sealed file: 152 names, a link among them" \
	test "$(wc -l <paths)" -eq 152
: >one.out
: >one.err
while read -r p; do
	"$E2VERITY" measure base.img "$p" >>one.out 2>>one.err
done <paths
sort all.out >all.sorted
sort one.out >one.sorted
check "each digest line is the one measuring the file alone prints" cmp -s all.sorted one.sorted
sort all.err >all.esorted
sort one.err >one.esorted
check "each error is the one measuring the file alone says" cmp -s all.esorted one.esorted
check "the four damaged files are errors" test "$(wc -l <all.err)" -eq 4
for p in /d/f3 /d/f40 /d/f41 /d/f100; do
	check "$p is named in an error" grep -q "'$p'" all.err
done
# the others: fsverity digest's
(cd src && for f in d/* big; do
	case $f in d/f3 | d/f40 | d/f41 | d/f100) continue ;; esac
	echo "$(fsverity digest "$f" | cut -d' ' -f1) /$f"
done
echo "$(fsverity digest d/f7 | cut -d' ' -f1) /d/link") | sort >want
check "the digests are fsverity digest's" cmp -s want all.sorted
# named on the command line, many at once: the same
# shellcheck disable=SC2046 # paths without blanks
"$E2VERITY" measure base.img $(cat paths) >many.out 2>many.err
sort many.out | cmp -s - all.sorted
check "measure of the 152 paths named prints the same lines" test $? -eq 0
finish
