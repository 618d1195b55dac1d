#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# autogen.sh - generate the configure script from a git checkout
set -e
cd "$(dirname "$0")"
mkdir -p m4
exec autoreconf -fi
