#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# differential.sh - issue 24: check's verdict is the kernel's.  Files sealed by e2verity and by the
# kernel (SHA-256, SHA-512 with salt, unsigned, signed by a self-signed and by a CA-issued signer),
# in three sizes, get seeded random mutations of every class (differential-lib.sh: data, each tree
# level, each descriptor field, the size word, padding, i_size and flags, extent entries, metadata
# swapped between files, signature bytes and PKCS#7 fields), one per file, 48 files per image and
# one kernel boot per image.  For every file: the kernel refuses it (open, read or measure fails)
# => check exits 4 with an error; the kernel reads it unchanged => check reports no error.
#
#   E2V_DIFF_SEED   the generator's seed (default 24, which CI runs)
#   E2V_DIFF_COUNT  mutations (default 48: one boot after the sealing boot); see tests/kernel/README
#   E2V_DIFF_KEEP   a directory to keep the work in (the results, and the image, plan and kernel
#                   output of every batch where check and the kernel disagree)
# One kernel (the first that can run: the host's 6.1): E2V_KTARGET=NAME for another, KH_MATRIX=yes
# for all of the matrix's.
set -u
: "${KH_MATRIX:=no}"

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs debugfs dumpe2fs openssl fsverity sha256sum od dd awk timeout
[ -x "$E2VERITY" ] || skip "$E2VERITY is not built"
DL_P7EDIT=$top_builddir/tests/helpers/pkcs7-edit
[ -x "$DL_P7EDIT" ] || skip "$DL_P7EDIT not built (make check builds it)"
# shellcheck disable=SC2034 # read by differential-lib.sh
DL_CSUMFIX=$top_builddir/tests/helpers/csum-fix
[ -x "$DL_CSUMFIX" ] || skip "$DL_CSUMFIX not built (make check builds it)"
if [ -n "${E2V_DIFF_KEEP:-}" ]; then
	mkdir -p "$E2V_DIFF_KEEP" || exit 99
	T_TMP=$(cd "$E2V_DIFF_KEEP" && pwd)
else
	t_tmpdir
fi
cd "$T_TMP" || exit 99
# shellcheck source=tests/kernel/differential-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/differential-lib.sh"

SEED=${E2V_DIFF_SEED:-24}
COUNT=${E2V_DIFF_COUNT:-48}
# E2V_DIFF_PATH=1 (differential-path.sh): the files in directories, mutated on their read path
if [ "${E2V_DIFF_PATH:-0}" = 1 ]; then
	DL_DIRS=8
	classes=$DL_PATH_CLASSES
else
	classes=$DL_CLASSES
fi
# shellcheck disable=SC2034 # the state of dl_rand (differential-lib.sh)
DL_R=$SEED
start=$(date +%s)

dl_template || kh_fail "building the template image (sealing boot included)"
boots=1
names=$(cut -d' ' -f1 files.tsv)

# known_stricter WHAT ERRORS KERNEL: the refusals allowed where the kernel reads the file:
# verdicts the kernels differ on: Linux 6.1 reads MD5 signatures and not SHA-3 ones, 6.12 the
# reverse; check refuses both (SIG_DIGEST_ALG), as some kernel it must serve does. (Non-zero
# bytes after a descriptor's root hash or salt, which the kernel never reads but hashes into the
# digest, are warnings: DESC_ROOT_PADDING, DESC_SALT_PADDING.)
known_stricter()
{
	[ "$2" = "error SIG_DIGEST_ALG " ] || return 1
	case "$1" in
	*" -md md5 "* | *" -md sha3-256 "*) return 0 ;;
	esac
	return 1
}

: >results
cases=0 misses=0 stricter=0 known=0 broken=0 agree=0 batch=0
while [ "$cases" -lt "$COUNT" ]; do
	batch=$((batch + 1))
	cp template.img b.img
	: >plan
	unused=" $(echo $names) "
	while [ "$unused" != " " ] && [ "$cases" -lt "$COUNT" ]; do
		# a class, then a file it applies to (some do not: no signature, no tree), so that every
		# class is drawn as often, whatever it needs
		tries=0 rc=1
		while [ "$rc" -eq 1 ] && [ "$tries" -lt 80 ]; do
			if [ $((tries % 16)) -eq 0 ]; then
				# shellcheck disable=SC2086
				dl_pick $classes
				class=$DL_W
			fi
			tries=$((tries + 1))
			# shellcheck disable=SC2086
			dl_pick $unused
			name=$DL_W
			if [ "$class" = meta-swap ]; then
				other=${name%-*}-$((3 - ${name##*-}))
				case $unused in *" $other "*) ;; *) continue ;; esac
			fi
			# shellcheck disable=SC2034 # read by differential-lib.sh
			DL_ALSO='' DL_DESC='' DL_UNUSED=$unused
			dl_mutate b.img "$name" "$class"
			rc=$?
		done
		[ "$rc" -eq 2 ] && kh_fail "mutation $class of /$name: a tool failed"
		[ "$rc" -eq 0 ] || break
		cases=$((cases + 1))
		for x in $name $DL_ALSO; do
			unused=" ${unused%% $x *} ${unused#* $x } "
			unused=" $(echo $unused) "
		done
		[ "$unused" = "  " ] && unused=" "
		echo "$cases $name $class $DL_DESC" >>plan
		for x in $DL_ALSO; do
			echo "$cases $x $class (another file) $DL_DESC" >>plan
		done
	done
	[ -s plan ] || kh_fail "no mutation applies to the files left"

	# every file of the image is read: the mutated ones, and the others as controls
	echo "$names" >list
	cat >guest.sh <<'GUEST'
mount_image /dev/vda /mnt ro || exit 1
load_cert /files/signer.der
load_cert /files/ca.der
# one sha256sum and one fsverity for the whole list: under TCG a process costs more than the
# file it reads (hash_all and measure_all ask a file alone when the list's run has no line for it)
sed 's|^|/mnt/|' /files/list >/tmp/paths
hash_all </tmp/paths
measure_all </tmp/paths
true
GUEST
	rc=0
	kh_boot -f signer.der:/files/signer.der -f ca.der:/files/ca.der -f list:/files/list \
		-r b.img -o out guest.sh || rc=$?
	boots=$((boots + 1))
	if [ "$rc" -ne 0 ]; then
		cat plan >&2
		kh_fail "batch $batch: the guest exited $rc"
	fi
	bad=0

	for name in $names; do
		dl_info "$name" || kh_fail "dl_info $name"
		line=$(grep -E "^[0-9]+ $name " plan | head -n 1)
		read_=$(awk -v p="/mnt/$name" '$2 == p && $1 != "MEASURE" { print; exit }' out)
		meas=$(kh_get out MEASURE "/mnt/$name")
		case $read_ in
		"SHA256 /mnt/$name $I_SHA")
			case $meas in
			"$I_DIGEST") kernel=ok ;;
			ERR*) kernel=unsealed ;;
			*)
				# the data is the same, the descriptor not: measure must say what the kernel says
				kernel='other-digest'
				mine=$("$E2VERITY" measure b.img "/$name" 2>&1 | cut -d' ' -f1)
				[ "$mine" = "$meas" ] || kernel="other-digest:kernel=$meas,measure=$mine"
				;;
			esac
			;;
		SHA256*) kernel=changed ;;
		OPENERR* | READERR*) kernel="refused:$(echo "$read_" | cut -d' ' -f1,3)" ;;
		*) kernel="none:$read_" ;;
		esac
		st=0
		timeout 120 "$E2VERITY" check --ca=keyring.pem b.img "/$name" >chk.out 2>&1 || st=$?
		codes=$(grep -o '\(error\|warning\) [A-Z_]*' chk.out | sort -u | tr '\n' ' ')
		errors=$(grep -o 'error [A-Z_]*' chk.out | sort -u | tr '\n' ' ')
		if [ -z "$line" ]; then
			what="- $name control"
		else
			what=$line
		fi
		case $kernel/$st in
		refused*/4)
			if [ -n "$errors" ]; then verdict=agree; else verdict=MISS; fi
			;;
		refused*/0 | changed/0 | other-digest:*) verdict=MISS ;;
		changed/4) verdict=agree ;;
		# read unchanged, measured as e2verity measures it: no error to find
		other-digest/0) verdict=agree ;;
		other-digest/4)
			verdict=STRICTER
			known_stricter "$what " "$errors" "$kernel" && verdict='known-stricter'
			;;
		unsealed/4)
			case $errors in *NOT_SEALED*) verdict=agree ;; *) verdict=STRICTER ;; esac
			;;
		unsealed/0) verdict=MISS ;;
		# a name the mutation took away (a renamed entry): the kernel finds no file to open,
		# and check none to look at
		"refused:OPENERR ENOENT"/8)
			if grep -q "No such file or directory while looking up '/$name'" chk.out; then
				verdict=agree
			else
				verdict=BROKEN
			fi
			;;
		ok/0) verdict=agree ;;
		ok/4)
			verdict=STRICTER
			known_stricter "$what " "$errors" "$kernel" && verdict='known-stricter'
			;;
		*) verdict=BROKEN ;;
		esac
		case $verdict in
		agree) agree=$((agree + 1)) ;;
		MISS) misses=$((misses + 1)) ;;
		STRICTER) stricter=$((stricter + 1)) ;;
		known-stricter) known=$((known + 1)) ;;
		*) broken=$((broken + 1)) ;;
		esac
		echo "$verdict batch=$batch $what | kernel=$kernel | check=$st $codes" >>results
		case $verdict in
		agree | known-stricter) ;;
		*)
			bad=1
			echo "$verdict: batch $batch, $what: the kernel said $kernel ($read_)," \
				"check exited $st: $codes" >&2
			[ "${V:-}" = 1 ] && sed 's/^/    /' chk.out >&2
			;;
		esac
	done
	if [ -n "${E2V_DIFF_KEEP:-}" ] && [ "$bad" = 1 ]; then
		cp b.img "b$batch.img" && cp out "out$batch" && cp plan "plan$batch"
	fi
done

secs=$(($(date +%s) - start))
echo "differential: seed $SEED, $cases mutations in $batch images, $boots boots, ${secs} s;" \
	"$(grep -c . results) files judged: $agree agree, $misses misses," \
	"$stricter stricter than the kernel, $known known refusals (README), $broken broken"
awk '{ print $1 }' results | sort | uniq -c | sed 's/^/  /'
echo "  by class (agree/all):"
grep -v ' control |' results | awk '{ c[$5]++ }
	$1 == "agree" || $1 == "known-stricter" { a[$5]++ }
	END { for (k in c) printf "    %-14s %d/%d\n", k, a[k], c[k] }' | sort
same "no file the kernel refuses passes check" "$misses" 0
same "check refuses no file the kernel reads (but the known refusals)" "$stricter" 0
same "check neither failed nor crashed" "$broken" 0
finish
