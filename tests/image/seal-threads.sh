#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-threads.sh - seal and check give the same bytes with 1, 2 and 8 threads and on both hash
# paths (SHA-NI and E2VERITY_HASH=openssl); the digests are those of `fsverity digest`
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
. "${top_srcdir:-.}/tests/image/make-sample.sh"
t_tmpdir
cd "$T_TMP" || exit 1

# every shape of make_fileset, many small files (hashed ahead on other threads) and one file
# too large for that (hashed by all threads in turn)
make_fileset files
mkdir files/many
i=0
while [ $i -lt 300 ]; do
	rand_bytes $(( (i * 7919) % 65536 + 1 )) >"files/many/f$i"
	i=$((i + 1))
done
rand_bytes 9437185 >files/big
(cd files && find . -type f | LC_ALL=C sort) >list
nfiles=$(wc -l <list)
mkimg base.img files 64M -b 4096 || { fail "mke2fs"; finish; }

SALT=00112233445566778899aabbccddeeff
for opts in "" "--hash-alg=sha512 --salt=$SALT" "--block-size=1024 --salt=ab"; do
	# the oracle: fsverity-utils over the same files, one line per file as seal prints them
	# shellcheck disable=SC2086
	(cd files && while IFS= read -r f; do
		fsverity digest $opts "$f"
	done <../list) | awk '{ print $1 }' | LC_ALL=C sort >want
	first=
	for mode in "-j 1" "-j 2" "-j 8" "openssl -j 1" "openssl -j 8"; do
		set -- $mode
		hash=
		[ "$1" = openssl ] && { hash=openssl; shift; }
		img="sealed-$hash$2.img"
		cp base.img "$img"
		what="seal $* $opts${hash:+ (E2VERITY_HASH=openssl)}"
		# shellcheck disable=SC2086
		E2VERITY_HASH=$hash "$E2VERITY" seal -a "$@" $opts "$img" >out 2>err ||
			{ fail "$what: exit $?: $(cat err)"; continue; }
		awk '{ print $1 }' out | LC_ALL=C sort >got
		check "$what: digests of fsverity digest" cmp -s want got
		if [ -z "$first" ]; then
			first=$img
			check "$what: e2fsck -fn clean" fsck_clean "$img"
		else
			check "$what: image identical to $first" cmp -s "$first" "$img"
		fi
	done
	for mode in "-j 1" "-j 2" "-j 8" "openssl -j 8"; do
		set -- $mode
		hash=
		[ "$1" = openssl ] && { hash=openssl; shift; }
		E2VERITY_HASH=$hash "$E2VERITY" check "$@" "$first" >out 2>&1
		check "check $* ${hash:+(E2VERITY_HASH=openssl) }$opts: all $nfiles pass" \
			grep -q ": $nfiles files checked, $nfiles passed, 0 failed" out
	done
	# sealing again skips every file, the image unchanged
	cp "$first" again.img
	"$E2VERITY" seal -a -q -j 2 $opts again.img >/dev/null 2>&1
	check "seal -a again $opts: nothing changed" cmp -s "$first" again.img
	rm -f sealed-*.img again.img
done

# a filesystem 1 MiB into its file (IMAGE?offset=): the hashing threads pread() the data at that
# offset; reading it from the start of the file would give other digests
(cd files && while IFS= read -r f; do fsverity digest "$f"; done <../list) |
	awk '{ print $1 }' | LC_ALL=C sort >want
mke2fs -q -F -t ext4 -b 4096 -O verity -d files -E offset=1048576 off.img 64M >/dev/null 2>&1 ||
	fail "mke2fs -E offset="
for mode in "-j 1" "-j 2" "-j 8" "openssl -j 8"; do
	set -- $mode
	hash=
	[ "$1" = openssl ] && { hash=openssl; shift; }
	cp off.img "off$hash$2.img"
	E2VERITY_HASH=$hash "$E2VERITY" seal -a "$@" "off$hash$2.img?offset=1048576" >out 2>err ||
		{ fail "seal $* ?offset= ${hash:+(E2VERITY_HASH=openssl)}: $(cat err)"; continue; }
	awk '{ print $1 }' out | LC_ALL=C sort >got
	check "seal $* IMAGE?offset= ${hash:+(E2VERITY_HASH=openssl) }: digests of fsverity digest" \
		cmp -s want got
	E2VERITY_HASH=$hash "$E2VERITY" check "$@" "off$hash$2.img?offset=1048576" >out 2>&1
	check "check $* IMAGE?offset= ${hash:+(E2VERITY_HASH=openssl) }: all $nfiles pass" \
		grep -q ": $nfiles files checked, $nfiles passed, 0 failed" out
	[ "$2" = 1 ] || check "IMAGE?offset= with $*: the same bytes as with -j 1" \
		cmp -s off1.img "off$hash$2.img"
done
dd if=off1.img of=cut.img bs=1M skip=1 status=none
check "IMAGE?offset=: the filesystem cut out is e2fsck -fn clean" fsck_clean cut.img
rm -f off*.img cut.img
finish
