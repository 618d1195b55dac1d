#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-crash-nojournal.sh - on images without a journal, seal (plain and signed), unseal and
# signing sealed files cut at every write: killed, the write failing, or SIGTERM
# (tests/image/crash-nojournal-lib.sh says what each cut must leave)
# shellcheck source=tests/image/crash-nojournal-lib.sh disable=SC1091
. "${top_srcdir:-.}/tests/image/crash-nojournal-lib.sh"

cut_writes "seal" base.img seal -q
cut_writes "signed seal" base.img seal -q --key=key.pem --cert=cert.pem
make_sealed
cut_writes "unseal" sealed.img unseal
# issue 38: the sealed files signed, each switched to its new descriptor by its inode's one write;
# killed at every write, failing at every third
# shellcheck disable=SC2086
sign_sources sigs key.pem cert.pem $FILES
J_SIGNED=1
CUT_MODES="kill fail"
# shellcheck disable=SC2034 # read by cut_writes (image-lib.sh), through eval
CUT_STEP_fail=3
cut_writes "signing sealed files" sealed.img seal -q --key=key.pem --cert=cert.pem
finish
