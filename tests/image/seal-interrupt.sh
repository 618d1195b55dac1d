#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-interrupt.sh - signals, kill -9 at spread-out moments, journal-less images, refusals of
# unhealthy images and bad undo paths, unseal's quota, and a full host disk
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd openssl dumpe2fs e2undo
FAULT=${top_builddir:-.}/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
t_tmpdir
cd "$T_TMP" || exit 1


# one large file and hundreds of small ones
mkdir -p src/many
seeded src/large 40000000 7
i=0
while [ $i -lt 300 ]; do
	seeded "src/many/f$i" $((i * 97 + 1)) $((i + 100))
	i=$((i + 1))
done
(cd src && find . -type f | sed 's/^\.//' | sort) >files
(cd src && find . -type f -exec fsverity digest {} + | sed 's# \./# /#' | sort -k2) >want.all
mkimg base.img src 128M -b 4096 || exit 1
e2fsck -fy base.img >/dev/null 2>&1
fsck_clean base.img || exit 1

# shellcheck disable=SC2046
snapshot_cmds $(cat files) >snap.cmds
snapshot base.img snap.cmds >ref.snap

# whole NAME IMG: e2fsck -fn clean; every file sealed with fsverity-utils' digest, or untouched
whole()
{
	if ! e2fsck -fn "$2" >fsck.out 2>&1; then
		fail "$1: e2fsck -fn: $(grep -v '^Pass\|^e2fsck' fsck.out | head -5)"
		return 1
	fi
	snapshot "$2" snap.cmds >cut.snap
	"$E2VERITY" measure --all "$2" 2>/dev/null | sort -k2 >measure.out
	# the sealed ones: exactly fsverity-utils' digests
	if ! grep -F -x -f measure.out want.all | cmp -s - measure.out; then
		fail "$1: a sealed file has the wrong digest"
		return 1
	fi
	# the others: untouched
	awk '$2 == "flags" { print $1, $3 }' cut.snap | while read -r f flags; do
		[ $((flags & 0x100000)) -ne 0 ] && continue
		[ "$(grep "^$f " cut.snap)" = "$(grep "^$f " ref.snap)" ] || echo "$f"
	done >touched
	if [ -s touched ]; then
		fail "$1: neither sealed nor untouched: $(head -3 touched)"
		return 1
	fi
	pass "$1 ($(wc -l <measure.out) sealed)"
}

# no_replay IMG: nothing left in the journal, needs_recovery clear
no_replay()
{
	dumpe2fs -h "$1" 2>/dev/null >sb.out
	grep -q '^Journal start: *0$' sb.out && ! grep -q '^Filesystem features:.*needs_recovery' sb.out
}

# signals at chosen points (the fault build raises them just before a write): the run stops
# with 128 + the signal, leaves nothing to replay, and every file is sealed or untouched
cp base.img count.img
rm -f writes.log
E2VERITY_FAULT_LOG=writes.log "$FAULT" seal -q -a count.img || fail "uncut seal"
total=$(tail -n 1 writes.log)
for sig in term int hup; do
	case $sig in term) num=15 ;; int) num=2 ;; hup) num=1 ;; esac
	for n in 2 $((total / 3)) $((total / 2)) $((total - 5)); do
		cp base.img sig.img
		E2VERITY_FAULT_AT=$n E2VERITY_FAULT_MODE=$sig "$FAULT" seal -q -a sig.img \
			>/dev/null 2>sig.err
		rc=$?
		[ "$rc" -eq $((128 + num)) ] || [ "$rc" -eq 0 ] ||
			fail "SIG$sig at write $n: exit $rc: $(cat sig.err)"
		check "SIG$sig at write $n: nothing to replay" no_replay sig.img
		whole "SIG$sig at write $n of $total" sig.img
	done
done

# a real kill -TERM while it runs: stopped or done, never half
cp base.img term.img
"$E2VERITY" seal -q -a term.img 2>term.err &
pid=$!
sleep 0.3
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
[ "$rc" -eq 143 ] || [ "$rc" -eq 0 ] || fail "kill -TERM: exit $rc: $(cat term.err)"
check "kill -TERM: nothing to replay" no_replay term.img
whole "kill -TERM (exit $rc)" term.img

# kill -9 at spread-out moments; the journal replay (e2fsck) makes the image whole
for t in 0.05 0.15 0.3 0.5 0.8 1.2; do
	cp base.img kill.img
	"$E2VERITY" seal -q -a -j1 kill.img >/dev/null 2>&1 &
	pid=$!
	sleep "$t"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	e2fsck -fy -E journal_only kill.img >/dev/null 2>&1
	whole "kill -9 after ${t}s" kill.img
	# and the next run finishes the job
	"$E2VERITY" seal -q -a kill.img >/dev/null 2>&1 || fail "kill -9 after ${t}s: sealing again"
	whole "kill -9 after ${t}s, sealed again" kill.img
done

# check stops between files on SIGTERM, reports what it checked, and exits with fsck's 32
# (once it has the image open: its handler is in place by then, even on a slow sanitizer build)
"$E2VERITY" check -j1 kill.img >chk.out 2>chk.err &
pid=$!
for i in $(seq 100); do
	# shellcheck disable=SC2010 # the names are fd numbers: grep reads the links' targets
	ls -l /proc/$pid/fd 2>/dev/null | grep -q 'kill\.img$' && break
	sleep 0.05
done
sleep 0.1
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
if [ "$rc" -eq 32 ]; then
	check "check cancelled: says so" grep -q "cancelled" chk.err
	check "check cancelled: reports what it checked" grep -q "files\? checked" chk.out
else
	check "check not cancelled: finished clean (exit $rc)" test "$rc" -eq 0
fi

# without a journal: an interrupted run shows, and is refused until e2fsck has run
mkimg nj.img src 128M -b 4096 -O ^has_journal || exit 1
e2fsck -fy nj.img >/dev/null 2>&1
cp nj.img nj.orig
# killed half-way through its writes (counted first: a run of small files' data is one write)
cp nj.img nj.count
rm -f writes.log
E2VERITY_FAULT_LOG=writes.log "$FAULT" seal -q -a nj.count >/dev/null 2>&1 ||
	fail "no journal: uncut seal"
nj_total=$(tail -n 1 writes.log)
E2VERITY_FAULT_AT=$((nj_total / 2)) "$FAULT" seal -q -a nj.img >/dev/null 2>&1
check "no journal, killed: state not clean" sh -c \
	"dumpe2fs -h nj.img 2>/dev/null | grep -q '^Filesystem state: *not clean'"
e2fsck -n nj.img >nj.fsck 2>&1
check "no journal, killed: e2fsck -n does not call it clean" sh -c "! grep -q ': clean,' nj.fsck"
check "no journal, killed: e2fsck -n says why it checks" grep -q "not cleanly unmounted" nj.fsck
cp nj.img nj.killed
expect_fail "no journal, killed: seal refused" 1 "run e2fsck -f first" "$E2VERITY" seal -a nj.img
check "no journal, killed: refusal left the image unchanged" cmp -s nj.img nj.killed
e2fsck -fy nj.img >/dev/null 2>&1
"$E2VERITY" seal -q -a nj.img || fail "no journal: seal after e2fsck"
check "no journal, finished: state clean" sh -c \
	"dumpe2fs -h nj.img 2>/dev/null | grep -q '^Filesystem state: *clean$'"
check "no journal, finished: e2fsck -fn clean" fsck_clean nj.img
cp nj.orig nj2.img
"$E2VERITY" seal -q -a nj2.img || fail "no journal: seal"
whole "no journal, uninterrupted" nj2.img

# unhealthy images: refused with the reason, nothing written; --force where it is safe
mkimg small.img src/many 16M -b 4096 || exit 1
e2fsck -fy small.img >/dev/null 2>&1
unhealthy()
{
	u_name=$1 u_cmd=$2 u_force=$3
	cp small.img bad.img
	debugfs -w -R "$u_cmd" bad.img >/dev/null 2>&1
	cp bad.img bad.orig
	expect_fail "$u_name: seal refused" 1 "run e2fsck -f first" "$E2VERITY" seal -a bad.img
	check "$u_name: seal left the image unchanged" cmp -s bad.img bad.orig
	expect_fail "$u_name: unseal refused" 1 "run e2fsck -f first" "$E2VERITY" unseal bad.img /f1
	check "$u_name: unseal left the image unchanged" cmp -s bad.img bad.orig
	if [ "$u_force" = yes ]; then
		check "$u_name: --force seals" "$E2VERITY" seal -q --force bad.img /f1
	else
		expect_fail "$u_name: --force refused too" 1 "run e2fsck" \
			"$E2VERITY" seal --force bad.img /f1
		check "$u_name: --force left the image unchanged" cmp -s bad.img bad.orig
	fi
}
unhealthy "errors" "ssv state 3" yes
unhealthy "not cleanly unmounted" "ssv state 0" yes
# recovery would truncate an orphan, sealed or not: never forced
unhealthy "orphans" "ssv last_orphan 12" no
unhealthy "needs recovery" "feature needs_recovery" no
unhealthy "orphan file entries flagged" "feature orphan_file orphan_present" no

# patch IMG BLOCK OFFSET PRINTF-BYTES: bytes written into a block of the image
patch()
{
	printf "$4" | dd of="$1" bs=1 seek=$(($2 * 4096 + $3)) conv=notrunc status=none
}
# refused_all NAME IMG: seal and unseal refused, --force too, the image unchanged; e2fsck agrees
refused_all()
{
	cp "$2" bad.orig
	e2fsck -fn "$2" >/dev/null 2>&1 && fail "$1: e2fsck -fn finds nothing wrong (the test is void)"
	expect_fail "$1: seal refused" 1 "run e2fsck -f first" "$E2VERITY" seal -a "$2"
	expect_fail "$1: seal --force refused" 1 "run e2fsck -f first" "$E2VERITY" seal --force -a "$2"
	expect_fail "$1: unseal --force refused" 1 "run e2fsck -f first" \
		"$E2VERITY" unseal --force "$2" /f1
	check "$1: the image unchanged" cmp -s "$2" bad.orig
}
mkimg of.img src/many 16M -b 4096 -O orphan_file || exit 1
e2fsck -fy of.img >/dev/null 2>&1
# an inode number in the orphan file, without the feature flag the kernel sets with it
cp of.img ofe.img
patch ofe.img "$(debugfs -R 'bmap <12> 0' ofe.img 2>/dev/null)" 0 '\015\000\000\000'
refused_all "an entry in the orphan file" ofe.img
# journal superblocks the kernel's journal_get_superblock() refuses: checksum v3 with a wrong
# checksum, or with a checksum type other than crc32c
jsb=$(debugfs -R 'bmap <8> 0' small.img 2>/dev/null)
cp small.img jcs.img
patch jcs.img "$jsb" $((0x28)) '\000\000\000\020'
patch jcs.img "$jsb" $((0x50)) '\004'
patch jcs.img "$jsb" $((0xfc)) 'XXXX'
refused_all "journal superblock checksum wrong" jcs.img
cp small.img jct.img
patch jct.img "$jsb" $((0x28)) '\000\000\000\020'
patch jct.img "$jsb" $((0x50)) '\001'
refused_all "journal checksum type not crc32c" jct.img

# undo files: a path that cannot be made is named before anything opens for writing
cp small.img u.img
cp u.img u.orig
expect_fail "undo path that cannot be created" 1 "while creating the undo file '$T_TMP/no/such/dir/u.e2undo'" \
	"$E2VERITY" seal -a -z "$T_TMP/no/such/dir/u.e2undo" u.img
check "undo path refused: image unchanged" cmp -s u.img u.orig
mkdir undo
with_undo "$E2VERITY" seal -a -z undo u.img >/dev/null 2>u.err || fail "seal -z DIR: $(cat u.err)"
check "-z DIR names the undo file in it" grep -q "e2undo undo/e2verity-u.img.e2undo u.img" u.err
check "-z DIR: e2undo restores the image" sh -c \
	"e2undo undo/e2verity-u.img.e2undo u.img >/dev/null 2>&1 && cmp -s u.img u.orig"
"$E2VERITY" seal -q -a u.img || fail "seal for unseal -z"
cp u.img u.sealed
with_undo "$E2VERITY" unseal -z u.undo u.img /f1 /f2 2>/dev/null || fail "unseal -z"
check "unseal -z: e2undo restores the image" sh -c \
	"e2undo u.undo u.img >/dev/null 2>&1 && cmp -s u.img u.sealed"

# unseal keeps the quota files right
for q in quota quota,project; do
	mkimg q.img src/many 16M -b 4096 -I 256 -O "$q" || exit 1
	e2fsck -fy q.img >/dev/null 2>&1
	"$E2VERITY" seal -q -a q.img || fail "-O $q: seal"
	check "-O $q: e2fsck clean after seal" fsck_clean q.img
	"$E2VERITY" unseal -a q.img || fail "-O $q: unseal"
	check "-O $q: e2fsck clean after unseal (quota usage right)" fsck_clean q.img
done

# a full host disk: reported with the image's name, nothing half done
mkdir -p src2
cp -r src/many src2/
seeded src2/ten 10000000 9
if mkdir mnt && mount -t tmpfs -o size=24m tmpfs mnt 2>/dev/null; then
	trap 'umount "$T_TMP/mnt" 2>/dev/null; rm -rf "$T_TMP"' EXIT
	mkimg mnt/full.img src2 64M -b 4096 || exit 1
	e2fsck -fy mnt/full.img >/dev/null 2>&1
	# leave the host no room for the trees
	dd if=/dev/zero of=mnt/filler bs=4096 2>/dev/null
	"$E2VERITY" seal -q -a mnt/full.img >/dev/null 2>full.err
	rc=$?
	check "full host disk: seal fails" test "$rc" -eq 1
	check "full host disk: the message names the image" grep -q "mnt/full.img" full.err
	check "full host disk: the message says why" grep -q "No space left on device" full.err
	rm -f mnt/filler
	e2fsck -fy -E journal_only mnt/full.img >/dev/null 2>&1
	check "full host disk: e2fsck -fn clean" fsck_clean mnt/full.img
	check "full host disk: what is sealed passes check" sh -c "\"$E2VERITY\" check mnt/full.img >/dev/null"
	umount mnt
else
	echo "full host disk: cannot mount a tmpfs here; not tried" >&2
fi
finish
