#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-signature.sh - a built-in signature made by `fsverity sign` lands after the descriptor with
# sig_size set, through both library interfaces (bytes and signer callback); digest stays unsigned
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd openssl
HELPER=${top_builddir:-.}/tests/image/seal-lib-helper
[ -x "$HELPER" ] || skip "$HELPER not built"
t_tmpdir
cd "$T_TMP" || exit 1

openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -subj /CN=e2verity-test \
	-days 2 >/dev/null 2>&1 || skip "openssl cannot make a test key"
mkdir src
head -c 300000 /dev/urandom >src/small
head -c 5000000 /dev/urandom >src/big
: >src/empty
mkimg base.img src 32M -b 4096

for f in small big empty; do
	fsverity sign "src/$f" "$f.sig" --key=key.pem --cert=cert.pem >/dev/null ||
		{ fail "fsverity sign $f"; continue; }
	for how in bytes callback; do
		cp base.img "$how-$f.img"
		"$HELPER" "$how-$f.img" "/$f" "$f.sig" "$how" >out 2>err ||
			{ fail "$how $f: exit $?: $(cat err)"; continue; }
		want=$(CS_SIG=$f.sig check_sealed "$how-$f.img" "/$f" "src/$f") ||
			{ fail "$how $f: metadata"; continue; }
		grep -q "^$want sig_size=$(wc -c <"$f.sig") calls=$([ $how = callback ] && echo 1 || echo 0)\$" out ||
			{ fail "$how $f: '$(cat out)' is not '$want ...'"; continue; }
		fsck_clean "$how-$f.img" || { fail "$how $f: e2fsck"; continue; }
		pass "$how $f"
	done
done

# a signed file counts as sealed with other parameters for an unsigned seal
cp bytes-small.img again.img
expect_fail "signed file, unsigned seal" 1 "already sealed with other parameters" \
	"$E2VERITY" seal again.img /small
check "refusal leaves it alone" cmp -s again.img bytes-small.img
finish
