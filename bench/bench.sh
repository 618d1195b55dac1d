#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh - e2verity against fsverity-utils in one run, reported as ratios (not a test)
#
# Usage: bench/bench.sh [WORKDIR]   (needs about 8 GiB free in WORKDIR; default a temp dir)
# BENCH_SIZE_MB (default 1024) sets the big and the sparse file, BENCH_FILES (default 20000)
# the small files (1-64 KiB), BENCH_RUNS (default 5) the runs of each command; BENCH_TREE
# (default: a debootstrap'd Debian root if debootstrap works, else a copy of /usr/bin, /usr/sbin,
# /etc, /usr/share/perl and /usr/lib/python3) the directories of the tree of real files.
#
# Every command of a group runs once per round, in turn, for BENCH_RUNS rounds; the table
# gives the median wall time, the data rate, the ratio to `fsverity digest` over the same
# files (higher is better), the largest peak RSS and the median CPU time (user + system, all
# threads; /usr/bin/time).  The page cache is warm.  On a machine shared with other work, wall
# times favour whatever runs more threads: read the CPU times too.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
E2VERITY=${E2VERITY:-$top/e2verity}
SIZE_MB=${BENCH_SIZE_MB:-1024}
NFILES=${BENCH_FILES:-20000}
RUNS=${BENCH_RUNS:-5}
SALT=0123456789abcdef0123456789abcdef
for c in fsverity mke2fs sha256sum bc /usr/bin/time; do
	command -v "$c" >/dev/null || { echo "bench: $c not installed" >&2; exit 1; }
done
[ -x "$E2VERITY" ] || { echo "bench: build e2verity first ($E2VERITY)" >&2; exit 1; }
E2VERITY=$(cd "$(dirname "$E2VERITY")" && pwd)/$(basename "$E2VERITY")
# the uninstalled build is a libtool wrapper script that costs half a second a run: bypass it
if head -n 5 "$E2VERITY" | grep -q libtool; then
	d=$(dirname "$E2VERITY")
	[ -x "$d/.libs/e2verity" ] || { echo "bench: no $d/.libs/e2verity" >&2; exit 1; }
	E2VERITY=$d/.libs/e2verity
	LD_LIBRARY_PATH=$top/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi

if [ -n "$1" ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
W=$(cd "$W" && pwd)
cd "$W"

# mkimg IMG DIR: an ext4 image of DIR with room for the metadata
mkimg()
{
	mb=$(du -sm "$2" | cut -f1)
	mke2fs -q -F -t ext4 -b 4096 -O verity -d "$2" "$1" $((mb + mb / 4 + 128))M >/dev/null
}

echo "== preparing the inputs in $W"
mkdir -p big sparse many
[ -f big/big ] || head -c "${SIZE_MB}M" /dev/urandom >big/big
# mostly holes: 1 MiB of data at each end
if [ ! -f sparse/sparse ]; then
	head -c 1M /dev/urandom >sparse/sparse
	truncate -s "${SIZE_MB}M" sparse/sparse
	head -c 1M /dev/urandom | dd of=sparse/sparse bs=1M seek=$((SIZE_MB - 1)) conv=notrunc \
		2>/dev/null
fi
if [ ! -f many/.done ]; then
	python3 - "$NFILES" <<'EOF'
import os, random, sys
random.seed(1)
for i in range(int(sys.argv[1])):
    d = 'many/d%03d' % (i % 100)
    os.makedirs(d, exist_ok=True)
    with open('%s/f%05d' % (d, i), 'wb') as f:
        f.write(os.urandom(random.randint(1024, 65536)))
EOF
	touch many/.done
fi
tree_note=
if [ -n "$BENCH_TREE" ]; then
	tree_src=$BENCH_TREE
	tree_name="$BENCH_TREE"
elif [ -f rootfs/.done ] ||
	{ command -v debootstrap >/dev/null && [ "$(id -u)" = 0 ] &&
		debootstrap --variant=minbase bookworm rootfs >debootstrap.log 2>&1 &&
		touch rootfs/.done; }; then
	tree_src=$W/rootfs
	tree_name="a debootstrap'd Debian 12 root"
else
	# about the size and file count of a minimal Debian root (5,300 files, 200-500 MB)
	tree_src="/usr/bin /usr/sbin /etc /usr/share/perl /usr/lib/python3"
	tree_name="/usr/bin, /usr/sbin, /etc, /usr/share/perl, /usr/lib/python3"
	tree_note="(debootstrap missing, failed or not root: no Debian root)"
fi
if [ ! -f tree.img ]; then
	rm -rf tree
	mkdir tree
	# regular files only: the comparison is over the files both tools can digest
	for d in $tree_src; do
		(cd / && find "${d#/}" -xdev -type f -size +0 -readable -print0 |
			cpio -0pdm --quiet "$W/tree") 2>/dev/null || true
	done
	mkimg tree.img tree
fi
(cd tree && find . -type f -print0) >tree.list
(cd many && find . -type f ! -name .done -print0) >many.list
[ -f big.img ] || mkimg big.img big
[ -f sparse.img ] || mkimg sparse.img sparse
[ -f many.img ] || mkimg many.img many
for s in big sparse many tree; do
	cp $s.img $s-sealed.img
	"$E2VERITY" seal -q -a $s-sealed.img
	cp $s.img $s-sealed512.img
	"$E2VERITY" seal -q -a --hash-alg=sha512 --salt=$SALT $s-sealed512.img
done
# warm the page cache for every contender; seal's fsync must not pay for earlier writeback
cat big/big sparse/sparse ./*.img >/dev/null
(cd many && xargs -0 cat <../many.list >/dev/null)
(cd tree && xargs -0 cat <../tree.list >/dev/null)
sync

# One group: the commands are given as "LABEL|PREP|COMMAND" lines on stdin (PREP is
# run before each timed run, untimed).  The first command is the reference.
# group TITLE BYTES
group()
{
	g_title=$1 g_bytes=$2
	rm -rf res && mkdir res
	cat >res/cmds
	n=$(wc -l <res/cmds)
	r=0
	while [ $r -lt "$RUNS" ]; do
		i=0
		while IFS='|' read -r label prep cmd; do
			i=$((i + 1))
			[ -z "$prep" ] || sh -c "$prep" </dev/null
			/usr/bin/time -f '%e %M %U %S' -o res/t sh -c "$cmd" </dev/null >/dev/null 2>res/err ||
				{ echo "bench: '$cmd' failed: $(cat res/err)" >&2; exit 1; }
			tail -n 1 res/t >>res/$i
		done <res/cmds
		r=$((r + 1))
	done
	echo
	echo "$g_title ($(echo "scale=1; $g_bytes / 1048576" | bc) MiB)"
	ref=
	i=0
	while IFS='|' read -r label prep cmd; do
		i=$((i + 1))
		med=$(cut -d' ' -f1 res/$i | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		rss=$(cut -d' ' -f2 res/$i | sort -n | tail -n 1)
		cpu=$(awk '{ print $3 + $4 }' res/$i | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		[ -n "$ref" ] || ref=$med
		# time(1) counts hundredths: below that, the bounds a hundredth gives
		lt= gt=
		if [ "$(echo "$med < 0.01" | bc)" = 1 ]; then
			med=0.01 lt='<' gt='>'
		fi
		gbs=$(echo "scale=2; $g_bytes / $med / 1000000000" | bc)
		ratio=$(echo "scale=2; $ref / $med" | bc)
		printf '  %-40s %7s s %7s GB/s %7sx %7d KB %7.2f s\n' "$label" "$lt$(printf %.2f "$med")" \
			"$gt$(printf %.2f "$gbs")" "$gt$(printf %.2f "$ratio")" "$rss" "$cpu"
	done <res/cmds
}

bytes() { du -sb --apparent-size "$1" | cut -f1; }
E=$E2VERITY
echo
echo "== $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $(fsverity --version | head -1); e2verity $("$E" --version | cut -d' ' -f2); median of $RUNS"
echo "   columns: median wall time, data rate, ratio to the first row (fsverity digest), peak RSS,"
echo "   median CPU time (user + system, all threads)"


group "one ${SIZE_MB} MiB file of random data" "$(bytes big/big)" <<EOF
fsverity digest||fsverity digest big/big
sha256sum (reference)||sha256sum big/big
e2verity digest||$E digest big/big
e2verity seal, in an image|cp big.img b.img && sync|$E seal -q b.img /big
e2verity check||$E check big-sealed.img
e2verity seal, E2VERITY_HASH=openssl|cp big.img b.img && sync|E2VERITY_HASH=openssl $E seal -q b.img /big
e2verity check, E2VERITY_HASH=openssl||E2VERITY_HASH=openssl $E check big-sealed.img
EOF
group "the same file, SHA-512 and a salt" "$(bytes big/big)" <<EOF
fsverity digest||fsverity digest --hash-alg=sha512 --salt=$SALT big/big
e2verity digest||$E digest --hash-alg=sha512 --salt=$SALT big/big
e2verity seal, in an image|cp big.img b.img && sync|$E seal -q --hash-alg=sha512 --salt=$SALT b.img /big
e2verity check||$E check big-sealed512.img
EOF
group "one ${SIZE_MB} MiB file, 2 MiB of data, the rest holes" "$(bytes sparse/sparse)" <<EOF
fsverity digest||fsverity digest sparse/sparse
e2verity digest||$E digest sparse/sparse
e2verity seal, in an image|cp sparse.img b.img && sync|$E seal -q b.img /sparse
e2verity check||$E check sparse-sealed.img
EOF
for s in many tree; do
	if [ $s = many ]; then
		title="$NFILES files of 1-64 KiB"
	else
		title="$(tr -cd '\0' <tree.list | wc -c) files of $tree_name $tree_note"
	fi
	group "$title, all names on one command line (xargs)" "$(cd $s && du -sb --apparent-size . | cut -f1)" <<EOF
fsverity digest||cd $s && xargs -0 fsverity digest <../$s.list
sha256sum (reference)||cd $s && xargs -0 sha256sum <../$s.list
e2verity digest||cd $s && xargs -0 $E digest <../$s.list
e2verity seal -a, in an image|cp $s.img b.img && sync|$E seal -q -a b.img
e2verity check||$E check $s-sealed.img
EOF
	group "$title, SHA-512 and a salt" "$(cd $s && du -sb --apparent-size . | cut -f1)" <<EOF
fsverity digest||cd $s && xargs -0 fsverity digest --hash-alg=sha512 --salt=$SALT <../$s.list
e2verity digest||cd $s && xargs -0 $E digest --hash-alg=sha512 --salt=$SALT <../$s.list
e2verity seal -a, in an image|cp $s.img b.img && sync|$E seal -q -a --hash-alg=sha512 --salt=$SALT b.img
e2verity check||$E check $s-sealed512.img
EOF
done
rm -f b.img
