#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh - configure and build e2verity in the source tree
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"
