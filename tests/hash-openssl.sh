#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# hash-openssl.sh - run one test of the suite once more on the OpenSSL hashing (E2VERITY_HASH=openssl)
#
# The hashing CPUs without SHA-NI or AVX-512 take is the OpenSSL one; every test that hashes data runs
# a second time on it, in the same make check as everything else (so the two cores stay busy), under
# the name tests/REST-openssl.ossl (tests/Makemodule.am, OPENSSL_TESTS), which stands for the test
# tests/REST: a program of the build, REST.sh, or the crafted-image case REST.case.
# Usage (automake's OSSL_LOG_COMPILER): hash-openssl.sh tests/REST-openssl.ossl
name=${1:?usage: hash-openssl.sh tests/REST-openssl.ossl}
rest=${name#*tests/}
rest=${rest%-openssl.ossl}
: "${top_srcdir:=.}" "${top_builddir:=$top_srcdir}"
E2VERITY_HASH=openssl
export E2VERITY_HASH
if [ -f "$top_srcdir/tests/$rest.sh" ]; then
	exec /bin/sh "$top_srcdir/tests/$rest.sh"
elif [ -d "$top_srcdir/tests/$rest" ] && [ -f "$top_srcdir/tests/$rest/recipe" ]; then
	exec /bin/sh "$top_srcdir/tests/check/case.sh" "$(basename "$rest")"
elif [ -x "$top_builddir/tests/$rest" ]; then
	exec "$top_builddir/tests/$rest"
fi
echo "hash-openssl: no test tests/$rest (.sh, case or program)" >&2
exit 99
