#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# build.sh - configure and build e2verity in the source tree
#   E2V_CONFIGURE_FLAGS  more ./configure options for a first configure (CI: --enable-werror)
set -e
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
# shellcheck disable=SC2086 # E2V_CONFIGURE_FLAGS: options, word-split
[ -f Makefile ] || ./configure ${E2V_CONFIGURE_FLAGS:-}
make -j"$(nproc)"
