#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-chain.sh - issue 8 without the kernel: certificate chains in signatures (openssl verifies
# them against the CA alone), check --ca and its problem codes, detached signing with signatures
# made by `openssl smime`, pass phrase sources and file: store URIs; a self-signed certificate still
# gives fsverity sign's bytes; every bad input: a message, the exit status, the image unchanged
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd fsverity openssl mke2fs
HELPER=${top_builddir:-.}/tests/image/seal-lib-helper
[ -x "$HELPER" ] || skip "$HELPER not built"
t_tmpdir
cd "$T_TMP" || exit 1

test_ca ca
test_ca otherca
test_ca inter ca
test_signer signer ca
test_signer othersigner otherca
test_signer deep inter
self_signed self.key self.crt "self"
# a certificate whose name alone is ~20 KiB: no signature carrying it fits
openssl_ok req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout big.key -out big.crt \
	-days 2 -subj "/CN=big$(i=0; while [ $i -lt 400 ]; do printf '/OU=%040d' $i; i=$((i + 1)); done)"
cat signer.crt big.crt >bigchain.pem
cat deep.crt inter.crt >deep-bundle.pem

# ncerts SIG: the certificates a DER signature carries
ncerts()
{
	openssl pkcs7 -inform DER -in "$1" -print_certs 2>/dev/null | grep -c '^subject='
}
# smime_ok SIG FILE [openssl options]: openssl accepts SIG as the built-in signature of FILE
smime_ok()
{
	s_sig=$1 s_file=$2
	shift 2
	hex2bin "$(fsverity digest --compact --for-builtin-sig "$s_file")" >signed.bin
	openssl smime -verify -binary -inform DER -in "$s_sig" -content signed.bin -purpose any \
		-out /dev/null "$@" 2>smime.err
}

mkdir -p src/d
rand_bytes 300000 >src/a
rand_bytes 5000 >src/b
rand_bytes 7000 >src/c
rand_bytes 1 >src/d/e
rand_bytes 65537 >src/f
rand_bytes 100 >src/g
mkimg base.img src 32M -b 4096

# ---- sign: what goes into the signature ---------------------------------------------------------
"$E2VERITY" sign src/a issued.sig --key=signer.key --cert=signer.crt >/dev/null
check "sign, CA-issued signer: the certificate is embedded" test "$(ncerts issued.sig)" = 1
smime_ok issued.sig src/a -CAfile ca.crt
check "openssl verifies it with the CA alone" test $? -eq 0
smime_ok issued.sig src/a -CAfile otherca.crt
check "openssl refuses it with another CA" test $? -ne 0
fsverity sign src/a fsv.sig --key=signer.key --cert=signer.crt >/dev/null
"$E2VERITY" sign src/a noembed.sig --key=signer.key --cert=signer.crt --no-embed-cert >/dev/null
check "--no-embed-cert: fsverity sign's bytes" cmp -s fsv.sig noembed.sig
fsverity sign src/a self-fsv.sig --key=self.key --cert=self.crt >/dev/null
"$E2VERITY" sign src/a self.sig --key=self.key --cert=self.crt >/dev/null
check "self-signed: fsverity sign's bytes" cmp -s self-fsv.sig self.sig
"$E2VERITY" sign src/a self-embed.sig --key=self.key --cert=self.crt --embed-cert >/dev/null
check "--embed-cert with a self-signed certificate embeds it" test "$(ncerts self-embed.sig)" = 1
smime_ok self-embed.sig src/a -CAfile self.crt
check "openssl verifies the self-signed embedded one" test $? -eq 0
"$E2VERITY" sign src/a deep.sig --key=deep.key --cert=deep-bundle.pem >/dev/null
check "a bundle: signer and intermediate embedded" test "$(ncerts deep.sig)" = 2
smime_ok deep.sig src/a -CAfile ca.crt
check "openssl chains the bundle's signature to the root" test $? -eq 0

# ---- seal, and check --ca ----------------------------------------------------------------------
cp base.img img
"$E2VERITY" seal -q --key=signer.key --cert=signer.crt img /a /d/e || fail "seal, issued signer: exit $?"
"$E2VERITY" seal -q --key=deep.key --cert=deep-bundle.pem img /f || fail "seal, bundle: exit $?"
"$E2VERITY" seal -q --key=othersigner.key --cert=othersigner.crt img /b || fail "seal, other CA: exit $?"
"$E2VERITY" seal -q --key=signer.key --cert=signer.crt --no-embed-cert img /c ||
	fail "seal --no-embed-cert: exit $?"
"$E2VERITY" dump img /a signature >a.sig 2>/dev/null
smime_ok a.sig src/a -CAfile ca.crt
check "the stored signature of /a: openssl verifies it with the CA alone" test $? -eq 0
check "e2fsck clean" fsck_clean img
"$E2VERITY" check --ca=ca.crt img /a /d/e /f >chk.out 2>&1
check "check --ca accepts the CA's signers, through an intermediate too" test $? -eq 0

"$E2VERITY" check -v --ca=ca.crt img /a /d/e /f >chk.out 2>&1
check "check -v --ca: 3 verified" test "$(grep -c '(signed, verified)' chk.out)" = 3

# a truncated signature and a wrong one (another file's), stored through the library as given
head -c 300 a.sig >trunc.sig
"$HELPER" img /g trunc.sig bytes >/dev/null 2>&1 || fail "seal-lib-helper, truncated: exit $?"
"$E2VERITY" check --ca=ca.crt img >chk.out 2>&1
st=$?
check "check --ca with bad signatures: exit 4" test $st -eq 4
for want in "/b (inode [0-9]*): error SIG_UNTRUSTED" "/c (inode [0-9]*): error SIG_NO_SIGNER" \
	"/g (inode [0-9]*): error SIG_MALFORMED"; do
	check "finding: $want" grep -q "^$want" chk.out
done
check "check --ca: the good files pass" sh -c "! grep -q '^/a \|^/d/e \|^/f ' chk.out"
cp base.img wrong.img
"$HELPER" wrong.img /g a.sig bytes >/dev/null 2>&1 || fail "seal-lib-helper, wrong: exit $?"
"$E2VERITY" check --ca=ca.crt wrong.img /g >chk.out 2>&1
check "another file's signature: exit 4, SIG_MISMATCH" sh -c "[ $? -eq 4 ] && grep -q 'error SIG_MISMATCH' chk.out"
"$E2VERITY" check --json --ca=ca.crt img /c >chk.json 2>&1
check "--json: SIG_NO_SIGNER has code 1285" grep -q '"code": 1285' chk.json

# ---- detached signing ----------------------------------------------------------------------
cp base.img det.img
"$E2VERITY" seal -n -q --for-builtin-sig --manifest=digests.txt det.img /a /b /d/e ||
	fail "seal -n --manifest: exit $?"
check "seal -n --manifest: image unchanged" cmp -s det.img base.img
smime_sign_digests digests.txt sigs signer.crt signer.key
"$E2VERITY" seal -q --signatures-from=sigs --ca=ca.crt det.img /a /b /d/e
check "seal --signatures-from --ca: exit 0" test $? -eq 0
for f in a b d/e; do
	"$E2VERITY" dump det.img "/$f" signature >got.sig 2>/dev/null
	check "/$f: the stored signature is openssl's file" cmp -s got.sig "sigs/$f.sig"
done
"$E2VERITY" check --ca=ca.crt --require-signatures det.img /a /b /d/e >/dev/null 2>&1
check "check --ca passes the detached signatures" test $? -eq 0
check "e2fsck clean after detached sealing" fsck_clean det.img
cp base.img one.img
"$E2VERITY" seal -q --signature=sigs/b.sig --cert=signer.crt one.img /b
check "--signature for one PATH, verified with --cert" test $? -eq 0
# fsverity digest's own lines (not --for-builtin-sig) sign the same bytes once formatted
"$E2VERITY" seal -n -q --manifest=plain.txt base.img /a >/dev/null 2>&1
check "plain manifest = fsverity digest" test "$(cut -d' ' -f1 plain.txt)" = "$(fsverity digest src/a | cut -d' ' -f1)"

# ---- bad input: a message naming the culprit, exit status, image unchanged -----------------
cp base.img bad.img
unchanged()
{
	check "$1: image unchanged" cmp -s bad.img base.img
}
mkdir sigs2
cp sigs/a.sig sigs2/a.sig
expect_fail "missing .sig" 1 "No such file or directory while reading the signature 'sigs2/b.sig' of '/b'" \
	"$E2VERITY" seal --signatures-from=sigs2 bad.img /a /b
unchanged "missing .sig"
cp sigs/a.sig sigs2/b.sig
expect_fail "wrong signature (another file's)" 1 \
	"does not match the file digest and certificate while verifying the signature 'sigs2/b.sig' of '/b'" \
	"$E2VERITY" seal --signatures-from=sigs2 --cert=signer.crt bad.img /a /b
unchanged "wrong signature"
cp sigs/b.sig sigs2/b.sig
"$E2VERITY" sign src/b sigs2/b.sig --key=othersigner.key --cert=othersigner.crt >/dev/null
expect_fail "a signature of another CA's signer" 1 "does not chain to the CA while verifying the signature 'sigs2/b.sig' of '/b'" \
	"$E2VERITY" seal --signatures-from=sigs2 --ca=ca.crt bad.img /a /b
unchanged "another CA"
head -c 100 sigs/b.sig >sigs2/b.sig
expect_fail "truncated .sig, nothing to verify with" 1 "not a valid PKCS#7 message while reading the signature 'sigs2/b.sig' of '/b'" \
	"$E2VERITY" seal --signatures-from=sigs2 bad.img /a /b
unchanged "truncated .sig"
expect_fail "chain too large (seal)" 1 "larger than the kernel's 16128 bytes" \
	"$E2VERITY" seal --key=signer.key --cert=bigchain.pem bad.img /a
unchanged "chain too large"
expect_fail "chain too large (sign)" 1 "larger than the kernel's 16128 bytes" \
	"$E2VERITY" sign src/a toolarge.sig --key=signer.key --cert=bigchain.pem
check "chain too large: no signature file" test ! -e toolarge.sig
openssl_ok pkey -in signer.key -aes256 -passout pass:s3cret -out enc.key
unset E2V_NO_SUCH_VAR
expect_fail "pass phrase from an unset variable" 1 "while reading the pass phrase from 'env:E2V_NO_SUCH_VAR'" \
	"$E2VERITY" seal --key=enc.key --cert=signer.crt --key-pass=env:E2V_NO_SUCH_VAR bad.img /a
expect_fail "pass phrase from a missing file" 1 "No such file or directory while reading the pass phrase from 'file:nopass'" \
	"$E2VERITY" seal --key=enc.key --cert=signer.crt --key-pass=file:nopass bad.img /a
expect_fail "pass phrase from a closed descriptor" 1 "Bad file descriptor while reading the pass phrase from 'fd:9'" \
	"$E2VERITY" seal --key=enc.key --cert=signer.crt --key-pass=fd:9 bad.img /a
expect_fail "wrong pass phrase from the environment" 1 "Wrong pass phrase" \
	env PW=nope "$E2VERITY" seal --key=enc.key --cert=signer.crt --key-pass=env:PW bad.img /a
unchanged "bad pass phrase sources"
expect_fail "--signature with two PATHs" 2 "exactly one PATH" \
	"$E2VERITY" seal --signature=sigs/a.sig bad.img /a /b
expect_fail "--signatures-from with --key" 2 "made elsewhere" \
	"$E2VERITY" seal --signatures-from=sigs --key=signer.key bad.img /a
expect_fail "--ca without signatures to verify" 2 "--ca needs" "$E2VERITY" seal --ca=ca.crt bad.img /a
unchanged "usage errors"

# a signer certificate without an Authority Key Identifier (openssl x509 -req adds none unasked)
openssl_ok req -newkey rsa:2048 -nodes -keyout noakid.key -out noakid.csr -subj /CN=noakid
openssl_ok x509 -req -in noakid.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out noakid.crt
"$E2VERITY" sign src/a noakid.sig --key=noakid.key --cert=noakid.crt >/dev/null 2>err
check "no Authority Key Identifier: sign warns" grep -q "warning: 'noakid.crt' has no Authority Key Identifier" err
cp base.img noakid.img
"$E2VERITY" seal -q --key=noakid.key --cert=noakid.crt noakid.img /a 2>err
check "seal -q: no warning" test ! -s err
"$E2VERITY" check --ca=ca.crt noakid.img /a >chk.out 2>&1
check "check --ca refuses it as the kernel does (SIG_UNTRUSTED)" sh -c "[ $? -eq 4 ] && grep -q SIG_UNTRUSTED chk.out"

# ---- pass phrase sources and store URIs: the bytes of the plain key ------------------------
"$E2VERITY" sign src/a want.sig --key=signer.key --cert=signer.crt >/dev/null
echo s3cret >passfile
for how in pass:s3cret env:PW file:passfile fd:3 stdin s3cret; do
	rm -f got.sig
	PW=s3cret "$E2VERITY" sign src/a got.sig --key=enc.key --cert=signer.crt --key-pass=$how \
		3<passfile <passfile >/dev/null 2>err
	check "--key-pass=$how" cmp -s want.sig got.sig
done
rm -f got.sig
"$E2VERITY" sign src/a got.sig --key="file:$PWD/signer.key" --cert="file:$PWD/signer.crt" >/dev/null
check "--key=file: URI" cmp -s want.sig got.sig
rm -f got.sig
"$E2VERITY" sign src/a got.sig --key="file:$PWD/enc.key" --cert=signer.crt --key-pass=pass:s3cret >/dev/null
check "--key=file: URI, encrypted" cmp -s want.sig got.sig
expect_fail "a URI that names nothing" 1 "Cannot load the private key while loading 'file:/nonexistent/k.pem'" \
	"$E2VERITY" sign src/a got2.sig --key=file:/nonexistent/k.pem --cert=signer.crt
cp base.img uri.img
"$E2VERITY" seal -q --key="file:$PWD/self.key" --cert=self.crt uri.img /a
"$E2VERITY" dump uri.img /a signature >got.sig 2>/dev/null
check "seal --key=file: URI, self-signed: fsverity sign's bytes" cmp -s self-fsv.sig got.sig
finish
