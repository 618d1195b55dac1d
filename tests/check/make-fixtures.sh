#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make-fixtures.sh - the images many tests start from, made once per make check and copied by each
#
# Usage: make-fixtures.sh DIR   (make check: tests/fixtures; the tests find it as $E2V_FIXTURES)
#   DIR/sample  cases-lib.sh's sample_image (check-lib.sh's make_sample with fixed bytes): files
#               sealed by fsverity-utils and debugfs, not by e2verity
#   DIR/base    cases-lib.sh's base_image with no BASE_MKE2FS: /a sealed by $E2VERITY
# each as img and src/ (the host copies). A test run without make check builds its own.
out=${1:?usage: make-fixtures.sh DIR}
: "${top_srcdir:=.}"
# shellcheck disable=SC2034 # read by check-lib.sh: the fixtures are being made, none to copy
E2V_FIXTURES=
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/check/check-lib.sh"
. "$top_srcdir/tests/check/cases-lib.sh"
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp/sample" "$out.tmp/base" "$out.tmp/work" || exit 1
# check-lib.sh's scratch files
# shellcheck disable=SC2034 # read by check-lib.sh
T_TMP=$(cd "$out.tmp/work" && pwd)
(cd "$out.tmp/sample" && sample_image) || { echo "make-fixtures: the sample image failed" >&2; exit 1; }
(cd "$out.tmp/base" && base_image) || { echo "make-fixtures: the base image failed" >&2; exit 1; }
rm -rf "$out.tmp/work"
mv "$out.tmp" "$out"
