#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# block-sizes-kernel.sh - issue 23: every filesystem and Merkle tree block size, on each kernel of
# the matrix, in one boot
#
# Images of 1024, 2048 and 4096-byte blocks, one directory per parameter set: tree blocks from 1024
# up to the filesystem block, SHA-256 and SHA-512, with and without salt, signed and unsigned,
# sealed by `e2verity seal`. The kernel must read what e2verity_kernel_min() (what
# `seal --min-kernel` and `check` say) promises it reads, and refuse the rest: a file it reads
# measures as `fsverity digest` says and reads back the source's bytes, and a flipped data byte
# gives EIO. The other direction, on writable images of 1024 and 2048-byte blocks: the kernel
# seals files itself (`fsverity enable`) with tree blocks of 1024 and 2048 bytes; `e2verity check`
# passes them with no finding, and finds a flipped byte. Each kernel's verdicts are compared with
# tests/kernel/results/KERNEL.txt, from which scripts/kernel-table.sh writes README's table;
# E2V_KRESULTS_UPDATE=1 rewrites that file from this run.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
# every kernel of the matrix, the arm64 one included (the default, said here because the
# README's table is made of what this test finds on each)
KH_KERNELS=all
kh_setup mke2fs e2fsck debugfs openssl od dd sha256sum truncate sort
[ -x "$E2VERITY" ] || skip "$E2VERITY is not built"
t_tmpdir
tmp=$T_TMP
cd "$tmp" || exit 1

salt=a5a5a5a5d00dfeed
# ---- the host's side, the same for every kernel: made once, by the matrix's first run, and
# handed to the next ones (kh_prep_restore); the images are saved before a kernel writes to them
if ! kh_prep_restore; then
	self_signed key.pem cert.pem "e2verity block sizes"
	openssl_ok x509 -in cert.pem -outform der -out cert.der

	# The parameter sets: every tree block size with four combinations that cover both hashes, salt
	# and signature in pairs. NAME HASH SALT(-|hex) SIGNED(yes|no)
	cat >combos <<-EOF
	s256 sha256 - no
	s512-salt sha512 $salt no
	s256-salt-signed sha256 $salt yes
	s512-signed sha512 - yes
	EOF
	# what a file of each set holds: several tree levels with 1 KiB blocks, a partial last block, a
	# hole, and a small file of one block
	make_files()
	{
		make_data "$1/big" 100001
		truncate -s 200000 "$1/sparse"
		put_random "$1/sparse" 8192 4096
		put_random "$1/sparse" 196608 3392
		make_data "$1/small" 700
	}

	: >plan     # "FS TREE COMBO FILE" for every file sealed by e2verity
	: >corrupt  # "FS TREE FILE BLOCK" for the flipped ones
	for fs in 1024 2048 4096; do
		mkdir -p "src$fs"
		for tree in 1024 2048 4096; do
			[ "$tree" -le "$fs" ] || continue
			while read -r name alg s sig; do
				d=src$fs/t$tree-$name
				mkdir -p "$d"
				make_files "$d"
				for f in big sparse small; do
					echo "$fs $tree $name $f" >>plan
				done
			done <combos
			# a copy of big, sealed like the first set, then a data byte flipped
			make_data "src$fs/t$tree-corrupt" 100001
		done
		mke2fs -q -F -t ext4 -b "$fs" -O verity -d "src$fs" "e2v$fs.img" 16M >/dev/null ||
			kh_fail "mke2fs -b $fs"
	done

	# seal_set FS TREE NAME HASH SALT SIGNED PATH... - one seal run; its lines must be fsverity digest's
	seal_set()
	{
		ss_fs=$1 ss_tree=$2 ss_name=$3 ss_alg=$4 ss_salt=$5 ss_sig=$6
		shift 6
		set -- --block-size="$ss_tree" --hash-alg="$ss_alg" "$@"
		[ "$ss_salt" = - ] || set -- --salt="$ss_salt" "$@"
		[ "$ss_sig" = no ] || set -- --key=key.pem --cert=cert.pem "$@"
		# the kernel the test is about decides nothing here: seal for the newest
		if "$E2VERITY" seal -q --min-kernel=6.3 "$@" >/dev/null 2>seal.err; then
			pass "seal -b $ss_fs --block-size=$ss_tree $ss_name"
		else
			fail "seal of e2v$ss_fs.img, tree $ss_tree, $ss_name: $(cat seal.err)"
		fi
	}
	for fs in 1024 2048 4096; do
		for tree in 1024 2048 4096; do
			[ "$tree" -le "$fs" ] || continue
			while read -r name alg s sig; do
				seal_set "$fs" "$tree" "$name" "$alg" "$s" "$sig" "e2v$fs.img" \
					"/t$tree-$name/big" "/t$tree-$name/sparse" "/t$tree-$name/small"
			done <combos
			seal_set "$fs" "$tree" corrupt sha256 - no "e2v$fs.img" "/t$tree-corrupt"
			# data block 20 of the file's own (4 KiB) reads; the byte at its offset 1000
			flip "e2v$fs.img" "/t$tree-corrupt" $((20 * 4096 + 1000)) ||
				fail "flip a byte of e2v$fs.img:/t$tree-corrupt"
			echo "$fs $tree t$tree-corrupt 20" >>corrupt
		done
		check "e2v$fs.img: e2fsck -fn clean after sealing" fsck_clean "e2v$fs.img"
	done

	# The kernel-sealed images: files the kernel seals itself (writable disks), on 1 and 2 KiB blocks.
	# "FS TREE ALG SALT FILE"
	: >kplan
	for fs in 1024 2048; do
		mkdir -p "ksrc$fs"
		for tree in 1024 2048; do
			[ "$tree" -le "$fs" ] || continue
			make_data "ksrc$fs/t$tree-s256" 300001
			make_data "ksrc$fs/t$tree-s512-salt" 123457
			echo "$fs $tree sha256 - t$tree-s256" >>kplan
			echo "$fs $tree sha512 $salt t$tree-s512-salt" >>kplan
		done
		mke2fs -q -F -t ext4 -b "$fs" -O verity -d "ksrc$fs" "k$fs.img" 8M >/dev/null ||
			kh_fail "mke2fs -b $fs"
	done

	# what the verdicts compare with: "FS TREE NAME FILE DIGEST SHA256" for each file of plan,
	# "FS FILE DIGEST" for each of kplan (fsverity digest of the source, with its parameters)
	while read -r fs tree name f; do
		dopts="--block-size=$tree --hash-alg=$(awk -v n="$name" '$1 == n { print $2 }' combos)"
		s=$(awk -v n="$name" '$1 == n { print $3 }' combos)
		[ "$s" = - ] || dopts="$dopts --salt=$s"
		# shellcheck disable=SC2086 # options are separate words
		dig=$(fsverity digest $dopts "src$fs/t$tree-$name/$f" | cut -d' ' -f1)
		echo "$fs $tree $name $f $dig $(sha256sum <"src$fs/t$tree-$name/$f" | cut -d' ' -f1)"
	done <plan >digests
	while read -r fs tree alg s f; do
		dopts="--block-size=$tree --hash-alg=$alg"
		[ "$s" = - ] || dopts="$dopts --salt=$s"
		# shellcheck disable=SC2086 # options are separate words
		echo "$fs $f $(fsverity digest $dopts "ksrc$fs/$f" | cut -d' ' -f1)"
	done <kplan >kdigests
	kh_prep_save
fi

# ---- one boot ---------------------------------------------------------------------------------
# /dev/vda..vdc: e2v1024, e2v2048, e2v4096 read-only; vdd, vde: k1024, k2048 writable
{
	echo 'load_cert /files/cert.der'
	echo 'i=0'
	echo 'for d in a b c; do mount_image /dev/vd$d /mnt/$d ro; done'
	echo 'mount_image /dev/vdd /mnt/k1024 && k1024=yes'
	echo 'mount_image /dev/vde /mnt/k2048 && k2048=yes'
	echo 'measure_all </files/paths'
	echo 'hash_all </files/paths'
	echo 'expect_eio </files/corrupt'
	while read -r fs tree alg s f; do
		o="--block-size=$tree --hash-alg=$alg"
		[ "$s" = - ] || o="$o --salt=$s"
		echo "if [ -n \"\${k$fs:-}\" ]; then enable /mnt/k$fs/$f $o; measure_all /mnt/k$fs/$f; fi"
	done <kplan
	echo 'kmsg "verity|EXT4-fs \(vd"'
	echo true
} >guest.sh
disk_of()
{
	case $1 in
	1024) echo a ;;
	2048) echo b ;;
	4096) echo c ;;
	esac
}
while read -r fs tree name f; do
	echo "/mnt/$(disk_of "$fs")/t$tree-$name/$f"
done <plan >paths
while read -r fs tree f _; do
	echo "/mnt/$(disk_of "$fs")/$f"
done <corrupt >corrupt.paths
start=$(date +%s)
rc=0
kh_boot -f cert.der:/files/cert.der -f paths:/files/paths -f corrupt.paths:/files/corrupt \
	-r e2v1024.img -r e2v2048.img -r e2v4096.img -w k1024.img -w k2048.img -o out guest.sh ||
	rc=$?
[ $rc -eq 0 ] || { cat out 2>/dev/null; kh_fail "the guest exited $rc"; }
echo "boot: $(($(date +%s) - start)) s ($KH_TARGET)"

# ---- verdicts ---------------------------------------------------------------------------------
# this kernel as --min-kernel takes it: MAJOR.MINOR, and the page size when it is not 4 KiB
kv=$(kh_target_name "$KH_KVER" | cut -d- -f1)
case $KH_PAGE_SIZE in
4096) ;;
16384) kv=$kv:16k ;;
65536) kv=$kv:64k ;;
esac
# promised FS TREE: yes when `seal --min-kernel` says this kernel reads that pair (a dry run of
# a small file of that filesystem), no when it refuses
promised()
{
	if "$E2VERITY" seal -n -q --min-kernel="$kv" --block-size="$2" "e2v$1.img" \
		"/t$2-s256/small" >/dev/null 2>&1; then
		echo yes
	else
		echo no
	fi
}

# results: "FS TREE VERDICT" per pair, the same for every file of the pair or "mixed"; promises:
# "FS TREE yes|no", promised's answers
: >verdicts
: >promises
for fs in 1024 2048 4096; do
	d=$(disk_of "$fs")
	mounted=no
	grep -qx "MOUNT /dev/vd$d OK" out && mounted=yes
	for tree in 1024 2048 4096; do
		[ "$tree" -le "$fs" ] || continue
		want=$(promised "$fs" "$tree")
		echo "$fs $tree $want" >>promises
		verdict=
		while read -r pfs ptree name f dig sha; do
			[ "$pfs" = "$fs" ] && [ "$ptree" = "$tree" ] || continue
			p=/mnt/$d/t$tree-$name/$f
			m=$(kh_get out MEASURE "$p")
			h=$(kh_get out SHA256 "$p")
			if [ "$mounted" = no ]; then
				v="refused: mount $(grep "^MOUNT /dev/vd$d " out | cut -d' ' -f4)"
			elif [ "$m" = "$dig" ] && [ "$h" = "$sha" ]; then
				v=reads
			else
				v="refused: open $(kh_get out OPENERR "$p" | cut -d' ' -f1)"
				case $m in
				ERR*) ;;
				*) [ -n "$m" ] && v="wrong: measured $m, fsverity digest $dig" ;;
				esac
			fi
			if [ "$want" = yes ] && [ "$v" != reads ]; then
				fail "$KH_TARGET: $p (fs $fs, tree $tree) should read: $v ($(grep " $p " out | tr '\n' ' '))"
			elif [ "$want" = no ] && [ "$v" = reads ]; then
				fail "$KH_TARGET: $p (fs $fs, tree $tree) reads, but e2verity says $KH_TARGET refuses it"
			else
				pass "$KH_TARGET: $p: $v"
			fi
			[ -z "$verdict" ] && verdict=$v
			[ "$verdict" = "$v" ] || verdict=mixed
		done <digests
		# the flipped byte: EIO from the page that holds it
		p=/mnt/$d/t$tree-corrupt
		got=$(kh_get out EXPECT_EIO "$p")
		if [ "$want" = yes ]; then
			case $got in
			"OK $(kh_page_block 20)") pass "$KH_TARGET: $p: EIO at the flipped block's page" ;;
			*) fail "$KH_TARGET: $p with a flipped byte in 4 KiB block 20: '$got'" ;;
			esac
			[ "$verdict" = reads ] && case $got in OK*) ;; *) verdict="reads, corruption not refused" ;; esac
		fi
		echo "$fs $tree $verdict" >>verdicts
	done
done

# kernel-sealed: the kernel's measure is fsverity digest's; check passes them, finds a flipped byte
: >kverdicts
while read -r fs tree alg s f; do
	p=/mnt/k$fs/$f
	e=$(kh_get out ENABLE "$p")
	dopts="--block-size=$tree --hash-alg=$alg"
	[ "$s" = - ] || dopts="$dopts --salt=$s"
	dig=$(awk -v fs="$fs" -v f="$f" '$1 == fs && $2 == f { print $3 }' kdigests)
	want=$(awk -v fs="$fs" -v t="$tree" '$1 == fs && $2 == t { print $3 }' promises)
	if ! grep -qx "MOUNT /dev/vd$( [ "$fs" = 1024 ] && echo d || echo e) OK" out; then
		v="refused: mount"
	elif [ "$e" = OK ] && [ "$(kh_get out MEASURE "$p")" = "$dig" ]; then
		v=seals
	else
		v="refused: enable ${e#ERR }"
	fi
	if [ "$want" = yes ] && [ "$v" != seals ]; then
		fail "$KH_TARGET: fsverity enable $dopts $p: $v"
	elif [ "$want" = no ] && [ "$v" = seals ]; then
		fail "$KH_TARGET: fsverity enable $dopts $p sealed, but e2verity says $KH_TARGET refuses it"
	else
		pass "$KH_TARGET: fsverity enable $dopts $p: $v"
	fi
	echo "enable $fs $tree $alg $v" >>kverdicts
done <kplan
if [ -s kverdicts ] && grep -q ' seals$' kverdicts; then
	for fs in 1024 2048; do
		grep -q "^enable $fs .* seals$" kverdicts || continue
		check "k$fs.img: e2fsck -fn clean after the kernel sealed it" fsck_clean "k$fs.img"
		"$E2VERITY" check -v "k$fs.img" >chk.out 2>&1
		st=$?
		if [ $st -eq 0 ] && ! grep -q -E ' (error|warning) ' chk.out; then
			pass "k$fs.img: check passes the kernel-sealed files with no finding"
		else
			fail "k$fs.img: check exit $st: $(cat chk.out)"
		fi
		while read -r kfs f dig; do
			[ "$kfs" = "$fs" ] || continue
			same "k$fs.img:/$f: check's digest is fsverity digest's" \
				"$(awk -v p="/$f" '$1 == "ok" && $3 == p { print $2 }' chk.out)" "$dig"
		done <kdigests
		f=$(awk -v fs="$fs" '$1 == fs { print $5; exit }' kplan)
		cp "k$fs.img" kc.img
		flip kc.img "/$f" 5000 || fail "flip a byte of k$fs.img:/$f"
		"$E2VERITY" check kc.img >chk.out 2>&1
		st=$?
		if [ $st -eq 4 ] && grep -q "^/$f .*DATA_MISMATCH" chk.out; then
			pass "k$fs.img: check finds the byte flipped in /$f"
		else
			fail "k$fs.img with a flipped byte in /$f: check exit $st: $(cat chk.out)"
		fi
	done
fi

# ---- this kernel's line of the table ------------------------------------------------------------
{
	echo "# $KH_TARGET: $KH_ARCH, ${KH_PAGE_SIZE}-byte pages (tests/kernel/block-sizes-kernel.sh)"
	echo "# FS_BLOCK TREE_BLOCK VERDICT (e2verity seal: SHA-256/512, salt, signed, unsigned)"
	cat verdicts
	echo "# enable FS_BLOCK TREE_BLOCK HASH VERDICT (fsverity enable in the guest, then e2verity check)"
	cat kverdicts
} >results.txt
committed=$top_srcdir/tests/kernel/results/$KH_TARGET.txt
if [ -n "${E2V_KRESULTS_UPDATE:-}" ]; then
	mkdir -p "$(dirname "$committed")"
	cp results.txt "$committed"
	echo "wrote $committed"
elif [ ! -f "$committed" ]; then
	echo "note: no $committed: this kernel is not in README's table (E2V_KRESULTS_UPDATE=1 adds it)" >&2
	cat results.txt
elif cmp -s results.txt "$committed"; then
	pass "$KH_TARGET: the verdicts are README's (tests/kernel/results/$KH_TARGET.txt)"
else
	fail "$KH_TARGET: the verdicts differ from tests/kernel/results/$KH_TARGET.txt (README's table): $(diff "$committed" results.txt | tr '\n' ' ')"
fi
finish
