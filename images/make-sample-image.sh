#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make-sample-image.sh - build an unsealed ext4 image of images/sample/ (no root needed)
#   images/make-sample-image.sh IMAGE [SIZE]      then: e2verity seal -a IMAGE
set -e
[ $# -ge 1 ] || { echo "usage: $0 IMAGE [SIZE (default 16M)]" >&2; exit 2; }
here=$(dirname "$0")
# 4096-byte blocks: the only size every Linux with fs-verity mounts (doc/format.md, section 2)
mke2fs -q -F -t ext4 -b 4096 -L e2verity-sample -d "$here/sample" "$1" "${2:-16M}" >/dev/null
echo "$1: ext4 image of $here/sample (not sealed yet)"
