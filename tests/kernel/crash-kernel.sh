#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# crash-kernel.sh - issue 7: a seal killed while its journal transaction is committed but not yet
# written in place; the real kernel's mount replays it (no e2fsck first), the files measure as
# `fsverity digest` says and read back, and e2fsck -fn is clean afterwards
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs e2fsck dumpe2fs fsverity sha256sum
FAULT=$top_builddir/tests/helpers/e2verity-fault
[ -x "$FAULT" ] || skip "tests/helpers/e2verity-fault is not built"
t_tmpdir
tmp=$T_TMP

FILES="/big /d/small /hello"

# The host's side, the same for every kernel: made once, by the matrix's first run, and handed to
# the next ones (kh_prep_restore); saved before the boot
if ! kh_prep_restore "$tmp"; then
	mkdir -p "$tmp/src/d"
	rand_bytes 3000000 >"$tmp/src/big"
	rand_bytes 5000 >"$tmp/src/d/small"
	printf 'hello\n' >"$tmp/src/hello"
	mke2fs -q -F -t ext4 -b 4096 -d "$tmp/src" "$tmp/base.img" 32M
	e2fsck -fy "$tmp/base.img" >/dev/null 2>&1 || true

	# find a cut where the transaction is live: the journal has a start and the superblock says so
	rm -f "$tmp/writes.log"
	cp "$tmp/base.img" "$tmp/count.img"
	E2VERITY_FAULT_LOG=$tmp/writes.log "$FAULT" seal -q "$tmp/count.img" $FILES
	total=$(tail -n 1 "$tmp/writes.log")
	n=$total found=
	while [ "$n" -gt 0 ]; do
		cp "$tmp/base.img" "$tmp/img"
		E2VERITY_FAULT_AT=$n "$FAULT" seal -q "$tmp/img" $FILES >/dev/null 2>&1 || true
		dumpe2fs -h "$tmp/img" 2>/dev/null >"$tmp/sb"
		if ! grep -q '^Journal start: *0$' "$tmp/sb" &&
			grep -q '^Filesystem features:.*needs_recovery' "$tmp/sb"; then
			found=$n
			break
		fi
		n=$((n - 1))
	done
	[ -n "$found" ] || { fail "no cut point leaves a committed transaction"; finish; }
	echo "killed at write $found of $total: journal live, needs_recovery set"
	# before the replay the files are not sealed on disk: only the journal holds their inodes
	cp "$tmp/img" "$tmp/img.killed"
	# e2fsck's own replay of the same killed image agrees with the kernel's (below)
	e2fsck -fy -E journal_only "$tmp/img.killed" >/dev/null 2>&1 || true
	check "e2fsck replay: clean" e2fsck -fn "$tmp/img.killed"
	for f in $FILES; do
		want=$(fsverity digest "$tmp/src$f" | cut -d' ' -f1)
		got=$("$E2VERITY" measure "$tmp/img.killed" "$f" | cut -d' ' -f1)
		[ "$got" = "$want" ] && pass "e2fsck replay: $f sealed" || fail "e2fsck replay: $f: '$got'"
	done
	kh_prep_save "$tmp"
fi

cat >"$tmp/guest.sh" <<'EOF'
mount_image /dev/vda /mnt || exit 1
measure_all /mnt/big /mnt/d/small /mnt/hello
hash_all /mnt/big /mnt/d/small /mnt/hello
umount_image /mnt
EOF
kh_boot -w "$tmp/img" -o "$tmp/out" "$tmp/guest.sh" || { fail "boot"; finish; }
grep -q '^MOUNT /dev/vda OK' "$tmp/out" || fail "the kernel did not mount the killed image"
for f in $FILES; do
	want=$(fsverity digest "$tmp/src$f" | cut -d' ' -f1)
	got=$(kh_get "$tmp/out" MEASURE "/mnt$f")
	[ "$got" = "$want" ] && pass "kernel replay: $f measures $want" ||
		fail "kernel replay: $f measures '$got', want $want"
	want=$(sha256sum <"$tmp/src$f" | cut -d' ' -f1)
	got=$(kh_get "$tmp/out" SHA256 "/mnt$f")
	[ "$got" = "$want" ] && pass "kernel replay: $f reads back" ||
		fail "kernel replay: $f reads '$got'"
done
if e2fsck -fn "$tmp/img" >"$tmp/fsck" 2>&1; then
	pass "e2fsck -fn clean after the kernel's replay"
else
	fail "e2fsck -fn after the kernel's replay: $(cat "$tmp/fsck")"
fi
finish
