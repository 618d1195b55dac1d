#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# digest-vs-fsverity.sh - e2verity digest must be byte-identical to fsverity-utils' fsverity digest
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd fsverity
t_tmpdir
cd "$T_TMP" || exit 1

B=4096
for n in 0 1 4095 4096 4097 65535 65536 65537 $((128 * B - 1)) $((128 * B)) $((128 * B + 1)) \
	$((8 * 1024 * 1024 + 1)); do
	make_data "f$n" "$n"
done
# three levels of 4K SHA-256 blocks need more than 64 MiB: a sparse file keeps it quick
make_sparse sparse $((64 * 1024 * 1024 + 4097))

SALT=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
for f in f* sparse; do
	for alg in sha256 sha512; do
		for bs in 1024 4096 65536; do
			for salt in "" "--salt=$SALT" "--salt=ab"; do
				# shellcheck disable=SC2086
				set -- --hash-alg=$alg --block-size=$bs $salt
				want=$(fsverity digest "$@" --out-merkle-tree=t1 --out-descriptor=d1 "$f")
				got=$("$E2VERITY" digest "$@" --out-merkle-tree=t2 --out-descriptor=d2 "$f")
				what="$f $*"
				[ "$want" = "$got" ] || { fail "$what: '$got' != '$want'"; continue; }
				cmp -s t1 t2 || { fail "$what: Merkle trees differ"; continue; }
				cmp -s d1 d2 || { fail "$what: descriptors differ"; continue; }
				pass "$what"
				# and on the OpenSSL hashing (CPUs without SHA-NI), against the same oracle
				got=$(E2VERITY_HASH=openssl "$E2VERITY" digest "$@" --out-merkle-tree=t2 \
					--out-descriptor=d2 "$f")
				what="$what (E2VERITY_HASH=openssl)"
				[ "$want" = "$got" ] || { fail "$what: '$got' != '$want'"; continue; }
				cmp -s t1 t2 || { fail "$what: Merkle trees differ"; continue; }
				cmp -s d1 d2 || { fail "$what: descriptors differ"; continue; }
				pass "$what"
			done
		done
	done
done

# each hashing path forced: the AVX-512 lanes, sixteen for SHA-256 and eight for SHA-512
# (where the CPU lacks AVX-512, E2VERITY_HASH=x16 falls back to the others), SHA-NI or OpenSSL
# without them, OpenSSL alone; whole batches and every remainder, as the default path may not
# choose the one tried
for path in x16 ni openssl; do
	for f in f65537 f$((128 * B + 1)) f$((8 * 1024 * 1024 + 1)); do
		for alg in sha256 sha512; do
			for bs in 1024 4096 65536; do
				for salt in "" "--salt=$SALT"; do
					# shellcheck disable=SC2086
					set -- --hash-alg=$alg --block-size=$bs $salt
					want=$(fsverity digest "$@" "$f")
					got=$(E2VERITY_HASH=$path "$E2VERITY" digest "$@" "$f")
					check "E2VERITY_HASH=$path $f $*" test "$want" = "$got"
				done
			done
		done
	done
done

# Every block size fsverity digest takes, not only the kernel's: powers of 2 from two hashes a
# block (64 for SHA-256, 128 for SHA-512) to 2^30. Files around the block boundaries, each size
# to its block size (all in one run of each: a run per file would cost seconds), with and
# without salt; the tiny blocks over a few MiB make trees of 16 and more levels. About 80 runs
# of e2verity: 10 s of CPU on the sanitizers' build, where one costs 0.1 s.
make_data mib3 $((3 * 1024 * 1024 + 5))
# the files of block size $1, cut from mib3 (a process each, not five), for both algorithms
bs_files()
{
	rm -f b_*
	: >b_0
	[ "$1" -gt $((1 << 20)) ] && return 0 # past 1 MiB, empty only: a 2^30-byte block is seconds
	head -c 1 mib3 >b_1
	[ "$1" -gt 65536 ] && return 0
	for n in $(($1 - 1)) "$1" $(($1 + 1)); do
		head -c "$n" mib3 >"b_$n"
	done
	# a block of hashes and one byte more: SHA-256's, and SHA-512's half as many
	[ "$1" -le 4096 ] && head -c $(($1 * $1 / 32 + 1)) mib3 >b_tall32 &&
		head -c $(($1 * $1 / 64 + 1)) mib3 >b_tall64
	[ "$1" -le 128 ] && cp mib3 b_mib3
	return 0
}
salted=0
bs=64
while [ "$bs" -le $((1 << 30)) ]; do
	[ "$bs" -eq 131072 ] || [ "$bs" -eq 2097152 ] || [ "$bs" -le 65536 ] && bs_files "$bs"
	for alg in sha256 sha512; do
		dsize=32
		[ $alg = sha512 ] && dsize=64
		[ "$bs" -ge $((2 * dsize)) ] || continue
		salts="nosalt --salt=$SALT"
		# past the tiny sizes, salted every other size, to spare runs (the loops above hash
		# the kernel's sizes both ways)
		[ "$bs" -gt 512 ] && { salts=nosalt && salted=$((!salted)) && [ $salted = 1 ] &&
			salts=--salt=$SALT; }
		for salt in $salts; do
			# shellcheck disable=SC2086
			set -- --hash-alg=$alg --block-size=$bs ${salt#nosalt}
			want=$(fsverity digest "$@" b_*)
			got=$("$E2VERITY" digest "$@" b_*)
			check "all sizes, $*" test "$want" = "$got"
			[ "$bs" -le 256 ] && [ "$salt" != nosalt ] || continue
			# the tiny blocks: every hashing path forced (on the salted hashing, which the
			# unsalted only simplifies), and the tree of the tallest file
			for path in x16 ni openssl; do
				got=$(E2VERITY_HASH=$path "$E2VERITY" digest "$@" b_*)
				check "E2VERITY_HASH=$path, all sizes, $*" test "$want" = "$got"
			done
			tall=b_tall$dsize
			[ -e b_mib3 ] && tall=b_mib3
			fsverity digest "$@" --out-merkle-tree=t1 --out-descriptor=d1 "$tall" >/dev/null
			"$E2VERITY" digest "$@" --out-merkle-tree=t2 --out-descriptor=d2 "$tall" >/dev/null
			check "tree of $tall, $*" cmp -s t1 t2
			check "descriptor of $tall, $*" cmp -s d1 d2
		done
	done
	bs=$((bs * 2))
done

# the output forms, several files at once
for opts in "" "--compact" "--for-builtin-sig" "--compact --for-builtin-sig" \
	"--hash-alg=sha512 --for-builtin-sig"; do
	# shellcheck disable=SC2086
	want=$(fsverity digest $opts f0 f4097 sparse)
	# shellcheck disable=SC2086
	got=$("$E2VERITY" digest $opts f0 f4097 sparse)
	check "output form '$opts'" test "$want" = "$got"
done

# bad input: one clear line, usage status 2 or failure status 1, no output files left
expect_fail "unknown hash" 2 "unknown hash algorithm 'md5'" "$E2VERITY" digest --hash-alg=md5 f1
expect_fail "block size not a power of 2" 2 "invalid block size '3000'" \
	"$E2VERITY" digest --block-size=3000 f1
expect_fail "block size too small for sha256" 2 \
	"invalid block size '32': too small for sha256, at least 64" "$E2VERITY" digest --block-size=32 f1
expect_fail "block size too small for sha512" 2 \
	"invalid block size '64': too small for sha512, at least 128" \
	"$E2VERITY" digest --hash-alg=sha512 --block-size=64 f1
expect_fail "block size 1" 2 "invalid block size '1': too small for sha256, at least 64" \
	"$E2VERITY" digest --block-size=1 f1
expect_fail "block size too small, --hash-alg after" 2 "too small for sha512, at least 128" \
	"$E2VERITY" digest --block-size=64 --hash-alg=sha512 f1
for bs in 0 96 1000 $((3 << 20)) $((1 << 31)) $((1 << 32)) -64 64k; do
	expect_fail "block size $bs" 2 "invalid block size '$bs': must be a power of 2 up to 1073741824" \
		"$E2VERITY" digest --block-size="$bs" f1
done
expect_fail "sign: block size too small" 2 "too small for sha256, at least 64" \
	"$E2VERITY" sign --block-size=32 --key=k f1 s1
expect_fail "salt not hex" 2 "invalid salt 'xyz1'" "$E2VERITY" digest --salt=xyz1 f1
expect_fail "salt too long" 2 "invalid salt" "$E2VERITY" digest --salt="${SALT}00" f1
expect_fail "no file" 2 "no FILE given" "$E2VERITY" digest
expect_fail "unknown option" 2 "Usage:" "$E2VERITY" digest --bogus f1
expect_fail "missing file" 1 "No such file or directory while opening 'missing'" \
	"$E2VERITY" digest missing
expect_fail "directory" 1 "Is a directory while opening '.'" "$E2VERITY" digest .
mkdir ro
expect_fail "tree file not creatable" 1 "while creating the Merkle tree file for 'f1'" \
	"$E2VERITY" digest --out-merkle-tree=nodir/t f1
expect_fail "directory, with output files" 1 "Is a directory while opening 'ro'" \
	"$E2VERITY" digest --out-merkle-tree=t3 --out-descriptor=d3 ro
check "no output files left behind" test ! -e t3 -a ! -e d3
check "no temporary files left behind" sh -c '! ls | grep -q e2verity-'
expect_fail "unknown command" 2 "unknown command 'frobnicate'" "$E2VERITY" frobnicate
check "--version" sh -c "'$E2VERITY' --version | grep -q '^e2verity [0-9]'"
check "--help lists digest" sh -c "'$E2VERITY' --help | grep -q digest"
check "digest --help" sh -c "'$E2VERITY' digest --help | grep -q 'out-merkle-tree'"
finish
