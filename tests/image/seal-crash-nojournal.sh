#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-crash-nojournal.sh - on images without a journal, seal (plain and signed) and unseal
# cut at every write: killed, the write failing, or SIGTERM
# (tests/image/crash-nojournal-lib.sh says what each cut must leave)
# shellcheck source=tests/image/crash-nojournal-lib.sh disable=SC1091
. "${top_srcdir:-.}/tests/image/crash-nojournal-lib.sh"

cut_writes "seal" base.img seal -q
cut_writes "signed seal" base.img seal -q --key=key.pem --cert=cert.pem
make_sealed
cut_writes "unseal" sealed.img unseal
finish
