#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh - e2verity against fsverity-utils in one run, reported as ratios (not a test)
#
# Usage: bench/bench.sh [WORKDIR]   (needs about 8 GiB free in WORKDIR; default a temp dir)
# BENCH_SIZE_MB (default 1024) sets the big and the sparse file, BENCH_FILES (default 20000)
# the small files (1-64 KiB), BENCH_TINY (default "10000 40000 160000") the counts of the groups
# of tiny files (1-4 KiB), BENCH_SIGNED (default 5000) the 2 KB files sealed with a key,
# BENCH_SCALE (default none; "10000 100000 1000000" for issue 20's table) the counts of the
# scaling rows (seconds and peak RSS per file, 1 KiB files), BENCH_BATCH (default 7600) the digests
# of the detached-signing row, BENCH_ONLY (default all) the groups to run (big many tree tiny signed
# batch scale), BENCH_RUNS (default 5) the runs of each command; BENCH_TREE
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

# mkimg IMG DIR: an ext4 image of DIR with room for the metadata (a block or more per file)
mkimg()
{
	mb=$(du -sm "$2" | cut -f1)
	nf=$(find "$2" | wc -l)
	mke2fs -q -F -t ext4 -b 4096 -O verity -N $((nf + nf / 4 + 1024)) -d "$2" "$1" \
		$((mb + mb / 4 + nf * 5 / 1024 + 128))M >/dev/null
}

# wants GROUP: BENCH_ONLY is empty or names it (the sparse file goes with big)
wants()
{
	g=$1
	[ "$g" != sparse ] || g=big
	[ -z "${BENCH_ONLY:-}" ] || case " $BENCH_ONLY " in *" $g "*) ;; *) return 1 ;; esac
}

echo "== preparing the inputs in $W"
mkdir -p big sparse many
wants big && [ ! -f big/big ] && head -c "${SIZE_MB}M" /dev/urandom >big/big
# mostly holes: 1 MiB of data at each end
if wants big && [ ! -f sparse/sparse ]; then
	head -c 1M /dev/urandom >sparse/sparse
	truncate -s "${SIZE_MB}M" sparse/sparse
	head -c 1M /dev/urandom | dd of=sparse/sparse bs=1M seek=$((SIZE_MB - 1)) conv=notrunc \
		2>/dev/null
fi
if wants many && [ ! -f many/.done ]; then
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
if wants tree && [ ! -f tree.img ]; then
	rm -rf tree
	mkdir tree
	# regular files only: the comparison is over the files both tools can digest
	for d in $tree_src; do
		(cd / && find "${d#/}" -xdev -type f -size +0 -readable -print0 |
			cpio -0pdm --quiet "$W/tree") 2>/dev/null || true
	done
	mkimg tree.img tree
fi
for s in big sparse many tree; do
	wants $s || continue
	[ -f $s.img ] || mkimg $s.img $s
	[ $s = big ] || [ $s = sparse ] || (cd $s && find . -type f ! -name .done -print0) >$s.list
	[ $s = big ] || [ $s = sparse ] || (cd $s && xargs -0 cat <../$s.list >/dev/null)
	cat $s.img >/dev/null
	cp $s.img $s-sealed.img
	"$E2VERITY" seal -q -a $s-sealed.img
	cp $s.img $s-sealed512.img
	"$E2VERITY" seal -q -a --hash-alg=sha512 --salt=$SALT $s-sealed512.img
done
# warm the page cache for every contender; seal's fsync must not pay for earlier writeback
wants big && cat big/big sparse/sparse >/dev/null
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
			# time(1)'s wall clock counts hundredths, too coarse for the rows near 0.1 s
			t0=$(date +%s%N)
			/usr/bin/time -f '%M %U %S' -o res/t sh -c "$cmd" </dev/null >/dev/null 2>res/err ||
				{ echo "bench: '$cmd' failed: $(cat res/err)" >&2; exit 1; }
			t1=$(date +%s%N)
			echo "$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc) $(tail -n 1 res/t)" >>res/$i
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
		# the clock counts thousandths: below that, the bounds a thousandth gives
		lt='' gt=''
		if [ "$(echo "$med < 0.001" | bc)" = 1 ]; then
			med=0.001 lt='<' gt='>'
		fi
		gbs=$(echo "scale=2; $g_bytes / $med / 1000000000" | bc)
		ratio=$(echo "scale=2; $ref / $med" | bc)
		printf '  %-40s %7s s %7s GB/s %7sx %7d KB %7.2f s\n' "$label" "$lt$(printf %.3f "$med")" \
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


if wants big; then
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
fi
for s in many tree; do
	wants $s || continue
	if [ $s = many ]; then
		title="$NFILES files of 1-64 KiB"
	else
		title="$(tr -cd '\0' <tree.list | wc -c) files of $tree_name${tree_note:+ $tree_note}"
	fi
	group "$title, all names on one command line (xargs)" "$(cd $s && du -sb --apparent-size . | cut -f1)" <<EOF
fsverity digest||cd $s && xargs -0 fsverity digest <../$s.list
sha256sum (reference)||cd $s && xargs -0 sha256sum <../$s.list
e2verity digest||cd $s && xargs -0 $E digest <../$s.list
e2verity seal -a, in an image|cp $s.img b.img && sync|$E seal -q -a b.img
e2verity check||$E check $s-sealed.img
e2verity measure --all||$E measure --all $s-sealed.img
EOF
	group "$title, SHA-512 and a salt" "$(cd $s && du -sb --apparent-size . | cut -f1)" <<EOF
fsverity digest||cd $s && xargs -0 fsverity digest --hash-alg=sha512 --salt=$SALT <../$s.list
e2verity digest||cd $s && xargs -0 $E digest --hash-alg=sha512 --salt=$SALT <../$s.list
e2verity seal -a, in an image|cp $s.img b.img && sync|$E seal -q -a --hash-alg=sha512 --salt=$SALT b.img
e2verity check||$E check $s-sealed512.img
EOF
done

# make_files DIR N MIN MAX: N files of MIN to MAX random bytes in 100 directories (seeded)
make_files()
{
	[ -f "$1/.done" ] && return 0
	python3 - "$@" <<'PY'
import os, random, sys
d, n, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(n)
for i in range(n):
    sub = '%s/d%03d' % (d, i % 100)
    os.makedirs(sub, exist_ok=True)
    with open('%s/f%07d' % (sub, i), 'wb') as f:
        f.write(random.randbytes(random.randint(lo, hi)))
PY
	touch "$1/.done"
}
# prep_set NAME: NAME.img of the directory NAME, NAME.list of its files, both warm
prep_set()
{
	[ -f "$1.img" ] || mkimg "$1.img" "$1"
	(cd "$1" && find . -type f ! -name .done -print0) >"$1.list"
	cat "$1.img" >/dev/null
	(cd "$1" && xargs -0 cat <"../$1.list" >/dev/null)
	sync
}

if wants tiny; then
	for n in ${BENCH_TINY:-10000 40000 160000}; do
		make_files "tiny$n" "$n" 1024 4096
		prep_set "tiny$n"
		cp "tiny$n.img" "tiny$n-sealed.img"
		"$E" seal -q -a "tiny$n-sealed.img"
		group "$n files of 1-4 KiB, all names on one command line (xargs)" \
			"$(cd "tiny$n" && du -sb --apparent-size . | cut -f1)" <<EOF
fsverity digest||cd tiny$n && xargs -0 fsverity digest <../tiny$n.list
e2verity seal -a, in an image|cp tiny$n.img b.img && sync|$E seal -q -a b.img
e2verity check||$E check tiny$n-sealed.img
e2verity measure --all||$E measure --all tiny$n-sealed.img
EOF
	done
fi

if wants signed; then
	ns=${BENCH_SIGNED:-5000}
	[ -f sign.key ] || openssl req -x509 -newkey rsa:2048 -nodes -keyout sign.key -out sign.crt \
		-days 3650 -subj /CN=e2verity-bench >/dev/null 2>&1
	make_files "signed$ns" "$ns" 2000 2000
	prep_set "signed$ns"
	cp "signed$ns.img" "signed$ns-plain.img"
	"$E" seal -q -a "signed$ns-plain.img"
	cp "signed$ns.img" "signed$ns-signed.img"
	"$E" seal -q -a --key=sign.key --cert=sign.crt "signed$ns-signed.img"
	group "$ns files of 2 KB, signed with RSA-2048" \
		"$(cd "signed$ns" && du -sb --apparent-size . | cut -f1)" <<EOF
fsverity digest||cd signed$ns && xargs -0 fsverity digest <../signed$ns.list
e2verity seal -a, unsigned|cp signed$ns.img b.img && sync|$E seal -q -a b.img
e2verity seal -a --key, 1 thread|cp signed$ns.img b.img && sync|$E seal -q -a -j 1 --key=sign.key --cert=sign.crt b.img
e2verity seal -a --key, 2 threads|cp signed$ns.img b.img && sync|$E seal -q -a -j 2 --key=sign.key --cert=sign.crt b.img
e2verity check, unsigned||$E check signed$ns-plain.img
e2verity check --cert||$E check --cert=sign.crt signed$ns-signed.img
e2verity check --ca||$E check --ca=sign.crt signed$ns-signed.img
EOF
fi

# Detached signing on the signer: a manifest's digests signed by one `sign --digests-from` against
# a loop of one `fsverity sign` a file (each loads the key; the README's old loop ran one
# `openssl smime` a file, BENCH_SMIME=1 adds it, minutes a run)
if wants batch; then
	nb=${BENCH_BATCH:-7600}
	[ -f sign.key ] || openssl req -x509 -newkey rsa:2048 -nodes -keyout sign.key -out sign.crt \
		-days 3650 -subj /CN=e2verity-bench >/dev/null 2>&1
	make_files "batch$nb" "$nb" 2000 2000
	prep_set "batch$nb"
	[ -f "batch$nb.manifest" ] || "$E" seal -n -a --manifest="batch$nb.manifest" "batch$nb.img" >/dev/null
	[ -f "batch$nb.fmt" ] ||
		"$E" seal -n -a --for-builtin-sig --manifest="batch$nb.fmt" "batch$nb.img" >/dev/null
	# the output directories exist before each loop, as they would for a signing service
	mkdirs="rm -rf sigs && mkdir sigs && (cd batch$nb && find . -type d -exec mkdir -p ../sigs/{} \\;)"
	{
		echo "fsverity sign, one process a file|$mkdirs|cd batch$nb && find . -type f ! -name .done | while read -r f; do fsverity sign \$f ../sigs/\$f.sig --key=../sign.key --cert=../sign.crt; done"
		if [ -n "${BENCH_SMIME:-}" ]; then
			echo "openssl smime, one process a file|$mkdirs|while read -r hex path; do printf %s \$hex | xxd -r -p | openssl smime -sign -binary -noattr -nocerts -outform der -signer sign.crt -inkey sign.key -out sigs\$path.sig; done <batch$nb.fmt"
		fi
		echo "e2verity sign --digests-from, 1 thread|rm -rf sigs|$E sign -j 1 --digests-from=batch$nb.manifest sigs --key=sign.key --cert=sign.crt"
		echo "e2verity sign --digests-from, 2 threads|rm -rf sigs|$E sign -j 2 --digests-from=batch$nb.manifest sigs --key=sign.key --cert=sign.crt"
	} | group "$nb digests signed with RSA-2048 (files of 2 KB)" \
		"$(cd "batch$nb" && du -sb --apparent-size . | cut -f1)"
	rm -rf sigs
fi

# Scaling: seconds and peak RSS per file of seal -a and check, as the file count grows
if wants scale && [ -n "${BENCH_SCALE:-}" ]; then
	echo
	echo "files of 1 KiB: wall time and peak RSS of one run, per file"
	printf '  %10s %14s %14s %14s %14s\n' files "seal us/file" "seal B/file" "check us/file" \
		"check B/file"
	for n in $BENCH_SCALE; do
		make_files "scale$n" "$n" 1024 1024
		prep_set "scale$n"
		cp "scale$n.img" b.img
		sync
		/usr/bin/time -f '%e %M' -o res.seal "$E" seal -q -a b.img
		/usr/bin/time -f '%e %M' -o res.check "$E" check b.img >/dev/null
		read -r st sm <res.seal
		read -r ct cm <res.check
		printf '  %10d %14.1f %14d %14.1f %14d\n' "$n" "$(echo "$st * 1000000 / $n" | bc -l)" \
			$((sm * 1024 / n)) "$(echo "$ct * 1000000 / $n" | bc -l)" $((cm * 1024 / n))
	done
fi
rm -f b.img

