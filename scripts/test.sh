#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test.sh - install what is missing, build, and run the whole test suite
set -e
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh
make -j"$(nproc)" check || { cat test-suite.log 2>/dev/null | tail -n 200; exit 1; }
