#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh - e2verity against fsverity-utils in one run, reported as ratios (not a test)
#
# Usage: bench/bench.sh [WORKDIR]   (needs about 3.5 GiB free in WORKDIR; default a temp dir)
# BENCH_SIZE_MB (default 1024) sets the big file, BENCH_FILES (default 2000) the many-files set.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
E2VERITY=${E2VERITY:-$top/e2verity}
SIZE_MB=${BENCH_SIZE_MB:-1024}
NFILES=${BENCH_FILES:-2000}
RUNS=${BENCH_RUNS:-3}
command -v fsverity >/dev/null || { echo "bench: fsverity (fsverity-utils) not installed" >&2; exit 1; }
[ -x "$E2VERITY" ] || { echo "bench: build e2verity first ($E2VERITY)" >&2; exit 1; }

if [ -n "$1" ]; then W=$1; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
cd "$W"

# best wall time and peak RSS of RUNS runs: prints "SECONDS KB"
best()
{
	b=; m=
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M' -o t.out "$@" >/dev/null
		read -r s k <t.out
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" = 1 ]; then b=$s; m=$k; fi
	done
	echo "$b $m"
}

ratio() { echo "scale=2; $1 / $2" | bc; }

row()
{
	printf '%-44s %8.2f s %8d KB   %sx\n' "$1" "$2" "$3" "$4"
}

echo "== preparing: one ${SIZE_MB} MiB file, ${NFILES} files of 4 KiB..1 MiB"
mkdir -p big many
head -c "${SIZE_MB}M" /dev/urandom >big/big
i=0
while [ $i -lt "$NFILES" ]; do
	head -c $(( (i * 7919) % (1024 * 1024) + 4096 )) /dev/urandom >"many/f$i"
	i=$((i + 1))
done
many_mb=$(du -sm many | cut -f1)
mke2fs -q -F -t ext4 -b 4096 -O verity -d big big.img $((SIZE_MB + SIZE_MB / 8 + 64))M >/dev/null
mke2fs -q -F -t ext4 -b 4096 -O verity -d many many.img $((many_mb + many_mb / 4 + 64))M >/dev/null
cat big/big many/* big.img many.img >/dev/null # warm the page cache for every contender
# seal's final fsync must not pay for writeback that mke2fs and cp left behind
sync

echo "== nproc=$(nproc); $(fsverity --version | head -1); e2verity $("$E2VERITY" --version | cut -d' ' -f2)"
echo "ratio = fsverity digest time / e2verity time (higher is better)"
set -- $(best fsverity digest big/big); fb=$1
row "fsverity digest, ${SIZE_MB} MiB file" "$1" "$2" 1.00
set -- $(best "$E2VERITY" digest big/big)
row "e2verity digest, same file" "$1" "$2" "$(ratio "$fb" "$1")"
if "$E2VERITY" seal --help >/dev/null 2>&1; then
	cp big.img b.img && sync
	/usr/bin/time -f '%e %M' -o t.out "$E2VERITY" seal -q b.img /big; read -r s k <t.out
	row "e2verity seal, same file in an image" "$s" "$k" "$(ratio "$fb" "$s")"
fi
if "$E2VERITY" check --help >/dev/null 2>&1 && [ -f b.img ]; then
	set -- $(best "$E2VERITY" check b.img)
	row "e2verity check, that image" "$1" "$2" "$(ratio "$fb" "$1")"
fi

set -- $(best sh -c 'fsverity digest many/* >/dev/null'); fm=$1
row "fsverity digest, ${NFILES} files (${many_mb} MiB)" "$1" "$2" 1.00
set -- $(best sh -c "'$E2VERITY' digest many/* >/dev/null")
row "e2verity digest, same files" "$1" "$2" "$(ratio "$fm" "$1")"
if "$E2VERITY" seal --help >/dev/null 2>&1; then
	cp many.img m.img && sync
	/usr/bin/time -f '%e %M' -o t.out "$E2VERITY" seal -q -r m.img /; read -r s k <t.out
	row "e2verity seal -r, same files in an image" "$s" "$k" "$(ratio "$fm" "$s")"
fi
if "$E2VERITY" check --help >/dev/null 2>&1 && [ -f m.img ]; then
	set -- $(best "$E2VERITY" check m.img)
	row "e2verity check, that image" "$1" "$2" "$(ratio "$fm" "$1")"
fi
