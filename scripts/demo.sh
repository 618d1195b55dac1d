#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - install what is missing, build, and run e2verity's main job on the bundled sample
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh >/dev/null
echo "== e2verity digest of the bundled sample files (compare: fsverity digest)"
find images/sample -type f -print0 | LC_ALL=C sort -z | xargs -0 ./e2verity digest
img=$(mktemp "${TMPDIR:-/tmp}/e2verity-demo.XXXXXX")
trap 'rm -f "$img"' EXIT
echo "== an ext4 image of images/sample, every file sealed with fs-verity, offline"
sh images/make-sample-image.sh "$img" >/dev/null
./e2verity seal -a "$img"
echo "== e2verity check: every sealed file re-verified from the image"
./e2verity check -v "$img"
echo "== e2fsck -fn on the sealed image"
e2fsck -fn "$img"
