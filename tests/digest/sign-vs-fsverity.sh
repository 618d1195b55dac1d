#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sign-vs-fsverity.sh - e2verity sign must write the bytes and print the line of fsverity-utils' fsverity sign
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd fsverity openssl
VERIFY_SIG=${top_builddir:-.}/tests/helpers/verify-sig
[ -x "$VERIFY_SIG" ] || skip "$VERIFY_SIG not built (make check builds it)"
t_tmpdir
cd "$T_TMP" || exit 1

# Keys are made now, never committed.  RSA PKCS#1 v1.5 signatures are
# deterministic, so RSA blobs must be equal byte for byte; ECDSA ones are not.
openssl_ok genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa2048.key
openssl_ok genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:4096 -out rsa4096.key
openssl_ok genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.key
for k in rsa2048 rsa4096 ec; do
	self_signed $k.key $k.crt "e2verity test $k"
done

# the ASN.1 outline of a DER file without offsets, lengths and the signature value
asn1_outline()
{
	openssl asn1parse -inform DER -in "$1" |
		sed -e 's/^ *[0-9]*:d=\([0-9]*\) *hl= *[0-9]* l= *[0-9]*/d=\1/' -e 's/\[HEX DUMP\].*//'
}

for n in 0 1 4096 4097 $((1024 * 1024 + 1)); do
	make_data "f$n" "$n"
done
SALT=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

for f in f*; do
	for alg in sha256 sha512; do
		for bs in 1024 4096; do
			for salt in "" "--salt=$SALT"; do
				# shellcheck disable=SC2086
				set -- --hash-alg=$alg --block-size=$bs $salt
				what="$f $*"
				for k in rsa2048 rsa4096; do
					want=$(fsverity sign "$f" want.sig --key=$k.key --cert=$k.crt "$@")
					got=$("$E2VERITY" sign "$f" got.sig --key=$k.key --cert=$k.crt "$@")
					[ "$want" = "$got" ] || { fail "$k $what: '$got' != '$want'"; continue; }
					cmp -s want.sig got.sig || { fail "$k $what: signatures differ"; continue; }
					pass "$k $what"
				done

				# ECDSA: check each signature with the other side's verifier
				fsverity sign "$f" want.sig --key=ec.key --cert=ec.crt "$@" >want.out
				"$E2VERITY" sign "$f" got.sig --key=ec.key --cert=ec.crt "$@" >got.out
				cmp -s want.out got.out || { fail "ec $what: printed lines differ"; continue; }
				digest=$(fsverity digest --compact "$@" "$f")
				hex2bin "$(fsverity digest --compact --for-builtin-sig "$@" "$f")" >signed.bin
				openssl smime -verify -binary -inform DER -in got.sig -content signed.bin \
					-certfile ec.crt -nointern -noverify -out /dev/null 2>smime.err ||
					{ fail "ec $what: openssl rejects e2verity's signature: $(cat smime.err)"; continue; }
				"$VERIFY_SIG" $alg "$digest" want.sig ec.crt ||
					{ fail "ec $what: e2verity rejects fsverity's signature"; continue; }
				"$VERIFY_SIG" $alg "$digest" got.sig ec.crt ||
					{ fail "ec $what: e2verity rejects its own signature"; continue; }
				[ "$(asn1_outline want.sig)" = "$(asn1_outline got.sig)" ] ||
					{ fail "ec $what: the PKCS#7 structures differ"; continue; }
				pass "ec $what"
			done
		done
	done
done

# the block sizes of fsverity digest that no kernel reads, as fsverity sign takes them (RSA
# signatures are deterministic: byte for byte)
for set in "sha256 64" "sha512 128" "sha256 512 --salt=$SALT" "sha256 2097152"; do
	# shellcheck disable=SC2086
	set -- $set
	alg=$1 bs=$2
	shift 2
	set -- --hash-alg="$alg" --block-size="$bs" "$@"
	want=$(fsverity sign f1048577 want.sig --key=rsa2048.key --cert=rsa2048.crt "$@")
	got=$("$E2VERITY" sign f1048577 got.sig --key=rsa2048.key --cert=rsa2048.crt "$@")
	check "block size $bs, $alg, $3: printed line" test "$want" = "$got"
	check "block size $bs, $alg, $3: signature" cmp -s want.sig got.sig
done

# the checks above can fail: a signature over another file is rejected by both verifiers
d1=$(fsverity digest --compact f1)
hex2bin "$(fsverity digest --compact --for-builtin-sig f1)" >signed.bin
"$E2VERITY" sign f4096 other.sig --key=ec.key --cert=ec.crt >/dev/null
check "openssl rejects a signature of another file" sh -c "! openssl smime -verify -binary \
	-inform DER -in other.sig -content signed.bin -certfile ec.crt -nointern -noverify \
	-out /dev/null 2>/dev/null"
expect_fail "e2verity rejects a signature of another file" 1 "does not match" \
	"$VERIFY_SIG" sha256 "$d1" other.sig ec.crt
# with another certificate in its keyring, the kernel finds no key for the signer (ENOKEY)
expect_fail "e2verity rejects a signature by another key" 1 "does not chain" \
	"$VERIFY_SIG" sha256 "$(fsverity digest --compact f4096)" other.sig rsa2048.crt

# tree and descriptor files, as fsverity sign writes them
fsverity sign f4097 want.sig --key=rsa2048.key --cert=rsa2048.crt \
	--out-merkle-tree=t1 --out-descriptor=d1 >/dev/null
"$E2VERITY" sign f4097 got.sig --key=rsa2048.key --cert=rsa2048.crt \
	--out-merkle-tree=t2 --out-descriptor=d2 >/dev/null
check "--out-merkle-tree" cmp -s t1 t2
check "--out-descriptor" cmp -s d1 d2

# other key forms: traditional PEM, key and certificate in one file (either order), no --cert
openssl_ok pkey -in rsa2048.key -traditional -out rsa2048-trad.key
openssl_ok ecparam -name prime256v1 -genkey -out ec-trad.key
openssl_ok req -x509 -new -key ec-trad.key -subj /CN=trad -days 2 -out ec-trad.crt
cat rsa2048.key rsa2048.crt >key-cert.pem
cat rsa2048.crt rsa2048.key >cert-key.pem
fsverity sign f1 want.sig --key=rsa2048.key --cert=rsa2048.crt >want.out
for opts in "--key=rsa2048-trad.key --cert=rsa2048.crt" "--key=key-cert.pem" \
	"--key=cert-key.pem" "--key=cert-key.pem --cert=rsa2048.crt"; do
	rm -f got.sig
	# shellcheck disable=SC2086
	"$E2VERITY" sign f1 got.sig $opts >got.out
	check "key form $opts" cmp -s want.sig got.sig
	check "key form $opts: printed line" cmp -s want.out got.out
done
"$E2VERITY" sign f1 got.sig --key=ec-trad.key --cert=ec-trad.crt >/dev/null &&
	"$VERIFY_SIG" sha256 "$d1" got.sig ec-trad.crt
check "traditional EC key with EC PARAMETERS" test $? -eq 0

# encrypted keys: the same bytes once the pass phrase is given
openssl_ok pkey -in rsa2048.key -aes256 -passout pass:s3cret -out enc.key
openssl_ok pkey -in rsa2048.key -traditional -aes128 -passout pass:s3cret -out enc-trad.key
for k in enc enc-trad; do
	rm -f got.sig
	"$E2VERITY" sign f1 got.sig --key=$k.key --cert=rsa2048.crt --key-pass=s3cret >got.out </dev/null
	check "$k key with --key-pass" cmp -s want.sig got.sig
	expect_fail "$k key, no pass phrase, no terminal" 1 \
		"a pass phrase is needed while loading '$k.key'" \
		"$E2VERITY" sign f1 bad.sig --key=$k.key --cert=rsa2048.crt </dev/null
	expect_fail "$k key, wrong pass phrase" 1 \
		"Wrong pass phrase for the private key while loading '$k.key'" \
		"$E2VERITY" sign f1 bad.sig --key=$k.key --cert=rsa2048.crt --key-pass=wrong
done
# on a terminal the pass phrase is asked for (script(1) gives the command one)
if command -v script >/dev/null 2>&1; then
	rm -f got.sig
	printf 's3cret\n' | script -qec "'$E2VERITY' sign f1 got.sig --key=enc.key \
		--cert=rsa2048.crt" /dev/null >tty.out 2>&1
	check "pass phrase prompt on a terminal" grep -q "Enter pass phrase for enc.key" tty.out
	check "prompted pass phrase works" cmp -s want.sig got.sig
	printf 'wrong\n' | script -qec "'$E2VERITY' sign f1 bad.sig --key=enc.key \
		--cert=rsa2048.crt" /dev/null >tty.out 2>&1
	check "wrong prompted pass phrase" grep -q "Wrong pass phrase" tty.out
else
	echo "note: script(1) not found, terminal prompt not tested" >&2
fi

# bad input: one line naming the file, status 1 (2 for usage), no signature file
printf 'not a certificate\n' >garbage.pem
mkdir adir
expect_fail "missing key" 1 "No such file or directory while loading 'nokey.pem'" \
	"$E2VERITY" sign f1 bad.sig --key=nokey.pem --cert=rsa2048.crt
expect_fail "missing certificate" 1 "No such file or directory while loading 'nocert.pem'" \
	"$E2VERITY" sign f1 bad.sig --key=rsa2048.key --cert=nocert.pem
expect_fail "certificate is a directory" 1 "Is a directory while loading 'adir'" \
	"$E2VERITY" sign f1 bad.sig --key=rsa2048.key --cert=adir
expect_fail "certificate is not PEM" 1 "Cannot load the certificate while loading 'garbage.pem'" \
	"$E2VERITY" sign f1 bad.sig --key=rsa2048.key --cert=garbage.pem
expect_fail "key is not PEM" 1 "Cannot load the private key while loading 'garbage.pem'" \
	"$E2VERITY" sign f1 bad.sig --key=garbage.pem --cert=rsa2048.crt
expect_fail "key file without a certificate" 1 "Cannot load the certificate while loading 'ec.key'" \
	"$E2VERITY" sign f1 bad.sig --key=ec.key
if [ "$(id -u)" -ne 0 ]; then
	cp rsa2048.crt unreadable.crt
	chmod 000 unreadable.crt
	expect_fail "unreadable certificate" 1 "Permission denied while loading 'unreadable.crt'" \
		"$E2VERITY" sign f1 bad.sig --key=rsa2048.key --cert=unreadable.crt
fi
expect_fail "key and certificate do not match" 1 \
	"The private key does not match the certificate while loading 'ec.key'" \
	"$E2VERITY" sign f1 bad.sig --key=ec.key --cert=rsa2048.crt
expect_fail "missing file" 1 "No such file or directory while opening 'nofile'" \
	"$E2VERITY" sign nofile bad.sig --key=rsa2048.key --cert=rsa2048.crt
expect_fail "signature file not creatable" 1 "while writing the signature file 'nodir/x.sig'" \
	"$E2VERITY" sign f1 nodir/x.sig --key=rsa2048.key --cert=rsa2048.crt
expect_fail "no --key" 2 "no --key given" "$E2VERITY" sign f1 bad.sig
expect_fail "no OUT_SIGFILE" 2 "FILE and OUT_SIGFILE" "$E2VERITY" sign f1 --key=rsa2048.key
expect_fail "bad hash" 2 "unknown hash algorithm 'md5'" \
	"$E2VERITY" sign f1 bad.sig --key=rsa2048.key --hash-alg=md5
check "no signature file left behind" test ! -e bad.sig
check "no temporary files left behind" sh -c '! ls | grep -q e2verity-'
cp want.sig keep.sig
expect_fail "failure keeps an existing signature file" 1 "while opening 'nofile'" \
	"$E2VERITY" sign nofile keep.sig --key=rsa2048.key --cert=rsa2048.crt
check "existing signature file unchanged" cmp -s want.sig keep.sig
check "sign --help" sh -c "'$E2VERITY' sign --help | grep -q 'key-pass'"
finish
