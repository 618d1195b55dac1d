#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - install what is missing, build, and run e2verity's main job on the bundled sample
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh >/dev/null
echo "== e2verity digest of the bundled sample files (compare: fsverity digest)"
./e2verity digest images/sample/*
