#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# differential-path.sh - issue 35: check's verdict is the kernel's along the whole read path.  The
# sealed files of differential.sh, in eight directories (one of them indexed, a dx root over three
# leaves) and each with an extended attribute (in the inode, or in an xattr block), get one seeded
# mutation each of a structure the kernel reads on the way to them: a byte of a field of the file's
# inode or of its directory's inode, of a block of its directory, of its xattr block; with the
# stored checksum left stale (bit rot) or made to match (another tool's edit).  Same assertions and
# variables as differential.sh (E2V_DIFF_SEED, E2V_DIFF_COUNT, E2V_DIFF_KEEP, E2V_KTARGET).
E2V_DIFF_PATH=1
export E2V_DIFF_PATH
exec sh "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/kernel/differential.sh"
