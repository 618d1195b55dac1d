#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-signature.sh - built-in signatures after the descriptor with sig_size set: through both
# library interfaces (bytes from `fsverity sign`, a signer callback) and seal --key/--cert, whose
# RSA signatures are the bytes `fsverity sign` makes; the digest stays the unsigned one
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
rand_bytes 300000 >src/small
rand_bytes 5000000 >src/big
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

# options from a program built for a later version (a reserved word set): refused, nothing written
cp base.img reserved.img
expect_fail "seal_opts with a reserved word set" 1 "reserved field" \
	"$HELPER" reserved.img /small small.sig reserved
check "reserved word: image unchanged" cmp -s base.img reserved.img

# seal --key/--cert: RSA signatures are deterministic, so they are fsverity sign's bytes
cp base.img cli.img
"$E2VERITY" seal --key=key.pem --cert=cert.pem cli.img /small /big /empty >cli.out 2>cli.err ||
	fail "seal --key: exit $?: $(cat cli.err)"
for f in small big empty; do
	[ -s "$f.sig" ] || continue
	want=$(CS_SIG=$f.sig check_sealed cli.img "/$f" "src/$f") || { fail "seal --key $f: metadata"; continue; }
	check "seal --key $f: digest printed" grep -qxF "$want" cli.out
done
check "seal --key: e2fsck clean" fsck_clean cli.img
"$E2VERITY" check --cert=cert.pem --require-signatures cli.img /small /big /empty >chk.out 2>&1
check "seal --key: e2verity check verifies the signatures" test $? -eq 0
# a key in one file, certificate included (as fsverity sign allows)
cat key.pem cert.pem >both.pem
cp base.img both.img
"$E2VERITY" seal -q --key=both.pem both.img /small || fail "--key with the certificate: exit $?"
CS_SIG=small.sig check_sealed both.img /small src/small >/dev/null || fail "--key both.pem: metadata"
# signed already: skipped with a key, refused without
cp cli.img again.img
"$E2VERITY" seal --key=key.pem --cert=cert.pem again.img /small >again.out 2>again.err ||
	fail "signed again: exit $?"
check "signed again: skipped, image unchanged" sh -c \
	"grep -q 'already sealed with these parameters' again.err && cmp -s again.img cli.img"
# an ECDSA key: signatures differ each time; the library and check verify them
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec.pem \
	-out ec-cert.pem -subj /CN=e2verity-ec -days 2 >/dev/null 2>&1; then
	cp base.img ec.img
	"$E2VERITY" seal -q --key=ec.pem --cert=ec-cert.pem ec.img /small /big || fail "ECDSA: exit $?"
	check "ECDSA: e2fsck clean" fsck_clean ec.img
	"$E2VERITY" check --cert=ec-cert.pem --require-signatures ec.img /small /big >/dev/null 2>&1
	check "ECDSA: e2verity check verifies the signatures" test $? -eq 0
fi
# bad keys: nothing written
cp base.img bad.img
expect_fail "missing key" 1 "No such file or directory while loading 'nokey.pem'" \
	"$E2VERITY" seal --key=nokey.pem bad.img /small
[ ! -e ec-cert.pem ] || expect_fail "key and certificate do not match" 1 \
	"The private key does not match the certificate while loading 'key.pem'" \
	"$E2VERITY" seal --key=key.pem --cert=ec-cert.pem bad.img /small
expect_fail "--cert without --key" 2 "needs --key" "$E2VERITY" seal --cert=cert.pem bad.img /small
check "bad keys: image unchanged" cmp -s bad.img base.img

# a signed file is refused by an unsigned seal, which names the way out (tests/image/seal-sign-sealed.sh)
cp bytes-small.img again.img
expect_fail "signed file, unsigned seal" 1 "File is already sealed and signed, and no signature was given (--force removes it)" \
	"$E2VERITY" seal again.img /small
check "refusal leaves it alone" cmp -s again.img bytes-small.img
finish
