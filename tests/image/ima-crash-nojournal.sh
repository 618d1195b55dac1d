#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ima-crash-nojournal.sh - on images without a journal, seal --ima-key, its unseal and
# --ima-only cut at every write: a file is sealed exactly when it has its security.ima, in the
# inode or in an attribute block allocated in the transaction (issue 21)
# (tests/image/crash-nojournal-lib.sh says what each cut must leave)
# shellcheck source=tests/image/crash-nojournal-lib.sh disable=SC1091
. "${top_srcdir:-.}/tests/image/crash-nojournal-lib.sh"

make_sealed
# shellcheck disable=SC2086
snapshot_cmds $FILES >snap.cmds
cp cert.pem ima.crt
J_IMA=seal
cut_writes "seal --ima-key" base.img seal -q --ima-key=key.pem --ima-cert=cert.pem
cp base.img imasealed.img
# shellcheck disable=SC2086
"$E2VERITY" seal -q --ima-key=key.pem imasealed.img $FILES || fail "seal --ima-key for the unseal cuts"
J_IMA=unseal
cut_writes "unseal of signed files" imasealed.img unseal
J_IMA=only
cut_writes "seal --ima-only" sealed.img seal -q --ima-only --ima-key=key.pem
finish
