#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sign-batch.sh - sign --digests-from writes, for each line of a seal manifest, fsverity sign's bytes
#
# Oracles: fsverity sign of each host file (byte for byte, RSA), then seal --signatures-from with
# --cert or --ca (which verifies every signature before writing), check --require-signatures on
# the sealed image, and e2fsck -fn.  The images are made by mke2fs -d from the same tree.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd fsverity openssl mke2fs e2fsck python3
t_tmpdir
cd "$T_TMP" || exit 1
SALT=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

# 200 files of 0 to 200 KiB in nested directories, a space, a tab and a backslash in three names;
# written by one process (one openssl or make_data a file would be most of the test's time)
python3 - "$E2V_TEST_SEED" <<'EOF'
import os, random, sys
random.seed(int(sys.argv[1]))
dirs = ['usr/lib', 'etc/deep/er', 'opt', 'usr']
for d in dirs:
    os.makedirs('tree/' + d, exist_ok=True)
names = ['%s/f%d' % (dirs[i % 4], i) for i in range(200)]
names += ['opt/with space', 'opt/tab\there', 'opt/back\\slash']
for i, n in enumerate(names):
    size = 0 if i % 25 == 0 else random.choice([1, 4095, 4096, 4097, random.randint(1, 204800)])
    with open('tree/' + n, 'wb') as f:
        f.write(random.randbytes(size))
EOF
nfiles=203
mke2fs -q -F -t ext4 -b 4096 -d tree img 64M >/dev/null 2>&1 || fail "mke2fs -d"

openssl_ok genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.key
self_signed rsa.key rsa.crt "e2verity batch"

# expected DIR MANIFEST FSVERITY-OPTION...: DIR/<path as printed>.sig by fsverity sign of each
# manifest line's host file (the printed path read back with printf %b)
expected()
{
	e_dir=$1 e_list=$2
	shift 2
	while read -r e_dg e_path; do
		mkdir -p "$e_dir$(dirname "$e_path")"
		fsverity sign "tree$(printf '%b' "$e_path")" "$e_dir$e_path.sig" "$@" >/dev/null ||
			fail "fsverity sign $e_path"
		: "$e_dg"
	done <"$e_list"
}

# --- SHA-256, the default: byte for byte fsverity sign's, then sealed and checked --------------
"$E2VERITY" seal -n -a --manifest=m.txt img >/dev/null || fail "seal -n --manifest"
check "the manifest lists every file" test "$(wc -l <m.txt)" -eq $nfiles
expected want m.txt --key=rsa.key --cert=rsa.crt
"$E2VERITY" sign --digests-from=m.txt sigs --key=rsa.key --cert=rsa.crt >out 2>err
check "sign --digests-from exits 0 ($(cat err))" test $? -eq 0
check "it says what it signed" grep -q "^Signed $nfiles digests of 'm.txt' into 'sigs'\$" out
check "every signature is fsverity sign's, byte for byte" diff -r want sigs
check "no temporary file left" test -z "$(find sigs -name '*.e2verity-*')"

cp img sealed.img
"$E2VERITY" seal -q -a --signatures-from=sigs --cert=rsa.crt sealed.img 2>err
check "seal --signatures-from --cert takes them ($(cat err))" test $? -eq 0
"$E2VERITY" check --cert=rsa.crt --require-signatures sealed.img >out 2>&1
check "check --cert --require-signatures passes ($(cat out))" \
	grep -q "^sealed.img: $nfiles files checked, $nfiles passed, 0 failed" out
check "e2fsck -fn after seal" fsck_clean sealed.img

# the same bytes whatever the form of the manifest, the source and the thread count
"$E2VERITY" seal -n -a --for-builtin-sig --manifest=m-fmt.txt img >/dev/null
"$E2VERITY" seal -n -a --json --manifest=m.json img >/dev/null
for how in "--digests-from=m-fmt.txt --key=rsa.key" "--digests-from=m.json --key=rsa.key" \
	"-j 1 --digests-from=m.txt --key=rsa.key" "-j 3 --digests-from=m.txt --key=rsa.key" \
	"--key=file:$T_TMP/rsa.key --digests-from=m.txt"; do
	rm -rf s2
	# shellcheck disable=SC2086 # options, word-split
	"$E2VERITY" sign $how s2 --cert=rsa.crt >/dev/null 2>err ||
		fail "sign $how: $(cat err)"
	check "sign $how: the same signatures" diff -r want s2
done
rm -rf s2
"$E2VERITY" sign --digests-from=- s2 --key=rsa.key --cert=rsa.crt <m.txt >out 2>err
check "--digests-from=- reads standard input" diff -r want s2
check "--digests-from=- is named so" grep -q "of '(standard input)'" out
openssl_ok pkey -in rsa.key -aes256 -passout pass:s3cret -out enc.key
rm -rf s2
S3=s3cret "$E2VERITY" sign --digests-from=m.txt s2 --key=enc.key --cert=rsa.crt \
	--key-pass=env:S3 >/dev/null 2>err
check "an encrypted key, --key-pass=env: ($(cat err))" diff -r want s2
# a second run over the same directory replaces the signatures
"$E2VERITY" sign --digests-from=m.txt sigs --key=rsa.key --cert=rsa.crt >/dev/null
check "a second run into the same directory" diff -r want sigs

# --- SHA-512 and a salt: the manifest carries the algorithm; the salt is in the digest --------
"$E2VERITY" seal -n -a --hash-alg=sha512 --salt=$SALT --manifest=m512.txt img >/dev/null
check "the SHA-512 manifest" grep -q '^sha512:' m512.txt
# a tenth of the files is enough for the oracle
sed -n '1~10p' m512.txt >m512-some.txt
expected want512 m512-some.txt --key=rsa.key --cert=rsa.crt --hash-alg=sha512 --salt=$SALT
"$E2VERITY" sign --digests-from=m512.txt sigs512 --key=rsa.key --cert=rsa.crt >/dev/null 2>err
check "SHA-512 with a salt: signed ($(cat err))" test $? -eq 0
bad=0
while read -r dg path; do
	cmp -s "want512$path.sig" "sigs512$path.sig" || bad=$((bad + 1))
	: "$dg"
done <m512-some.txt
check "SHA-512 with a salt: fsverity sign's bytes" test $bad -eq 0
cp img sealed512.img
"$E2VERITY" seal -q -a --hash-alg=sha512 --salt=$SALT --signatures-from=sigs512 --cert=rsa.crt \
	sealed512.img 2>err
check "SHA-512 with a salt: sealed ($(cat err))" test $? -eq 0
"$E2VERITY" check --cert=rsa.crt --require-signatures sealed512.img >out 2>&1
check "SHA-512 with a salt: check passes ($(cat out))" \
	grep -q "^sealed512.img: $nfiles files checked, $nfiles passed, 0 failed" out
check "SHA-512 with a salt: e2fsck -fn" fsck_clean sealed512.img

# --- a certificate a CA issued: the signatures carry it, seal --ca chains them ----------------
test_ca ca
test_signer signer ca
"$E2VERITY" sign --digests-from=m.txt sigs-ca --key=signer.key --cert=signer.crt >/dev/null 2>err
check "CA-issued signer: signed ($(cat err))" test $? -eq 0
cp img sealed-ca.img
"$E2VERITY" seal -q -a --signatures-from=sigs-ca --ca=ca.crt sealed-ca.img 2>err
check "CA-issued signer: seal --ca takes them ($(cat err))" test $? -eq 0
"$E2VERITY" check --ca=ca.crt --require-signatures sealed-ca.img >out 2>&1
check "CA-issued signer: check --ca passes ($(cat out))" \
	grep -q "^sealed-ca.img: $nfiles files checked, $nfiles passed, 0 failed" out
check "CA-issued signer: e2fsck -fn" fsck_clean sealed-ca.img
# without the certificates, fsverity sign's bytes again
head -n 20 m.txt >m-some.txt
expected want-ca m-some.txt --key=signer.key --cert=signer.crt
"$E2VERITY" sign --digests-from=m-some.txt s-noembed --key=signer.key --cert=signer.crt \
	--no-embed-cert >/dev/null
check "--no-embed-cert: fsverity sign's bytes" diff -r want-ca s-noembed

# ECDSA signatures differ on each run: seal --cert verifies every one of them
openssl_ok genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.key
self_signed ec.key ec.crt "e2verity batch ec"
"$E2VERITY" sign --digests-from=m.txt sigs-ec --key=ec.key --cert=ec.crt >/dev/null
cp img sealed-ec.img
"$E2VERITY" seal -q -a --signatures-from=sigs-ec --cert=ec.crt sealed-ec.img 2>err
check "ECDSA: seal --cert verifies every signature ($(cat err))" test $? -eq 0

# --- refusals: nothing is written -----------------------------------------------------------
sed '5s/^sha256:\(.\{10\}\)/sha256:zz/' m.txt >bad.txt
expect_fail "a bad line: the file and the line named" 1 "bad.txt: error MANIFEST_MALFORMED: manifest line 5 is malformed" \
	"$E2VERITY" sign --digests-from=bad.txt none --key=rsa.key --cert=rsa.crt
check "a bad line: nothing signed" grep -q "cannot be trusted (1 problem): nothing was signed" "$T_TMP/err"
check "a bad line: no directory made" test ! -e none
{ cat m.txt; sed -n 7p m.txt; } >dup.txt
expect_fail "a path listed twice" 1 "dup.txt: error MANIFEST_DUPLICATE" \
	"$E2VERITY" sign --digests-from=dup.txt none --key=rsa.key --cert=rsa.crt
expect_fail "a bad line on standard input" 1 "(standard input): error MANIFEST_MALFORMED: manifest line 5" \
	sh -c "'$E2VERITY' sign --digests-from=- none --key=rsa.key --cert=rsa.crt <bad.txt"
expect_fail "a missing key" 1 "No such file or directory while loading 'nokey.pem'" \
	"$E2VERITY" sign --digests-from=m.txt none --key=nokey.pem --cert=rsa.crt
expect_fail "a key that is not the certificate's" 1 "does not match the certificate" \
	"$E2VERITY" sign --digests-from=m.txt none --key=ec.key --cert=rsa.crt
expect_fail "a missing manifest" 1 "while reading the manifest 'nomanifest'" \
	"$E2VERITY" sign --digests-from=nomanifest none --key=rsa.key --cert=rsa.crt
check "refused runs made no directory" test ! -e none
expect_fail "no SIGDIR" 2 "SIGDIR is needed" \
	"$E2VERITY" sign --digests-from=m.txt --key=rsa.key --cert=rsa.crt
expect_fail "no --key" 2 "no --key given" "$E2VERITY" sign --digests-from=m.txt none
expect_fail "tree options have nothing to act on" 2 "belong to the run that wrote it" \
	"$E2VERITY" sign --digests-from=m.txt none --key=rsa.key --cert=rsa.crt --hash-alg=sha512
expect_fail "standard input for two things" 2 "both read standard input" \
	"$E2VERITY" sign --digests-from=- none --key=rsa.key --cert=rsa.crt --key-pass=stdin
expect_fail "-j 0" 2 "invalid thread count '0'" \
	"$E2VERITY" sign -j 0 --digests-from=m.txt none --key=rsa.key --cert=rsa.crt
d1=$(sed -n 1p m.txt | cut -d' ' -f1)
printf '%s /a\n%s /a.sig/b\n' "$d1" "$d1" >clash.txt
expect_fail "one name for a signature and a directory" 1 "a directory is in its place" \
	"$E2VERITY" sign --digests-from=clash.txt none --key=rsa.key --cert=rsa.crt
check "the clash left nothing behind" test ! -e none
mkdir inputs
cp rsa.key inputs/a.sig
head -n 1 clash.txt >one.txt
expect_fail "a signature over an input" 1 "it is an input of this run" \
	"$E2VERITY" sign --digests-from=one.txt inputs --key=inputs/a.sig --cert=rsa.crt
check "the input is kept" cmp -s rsa.key inputs/a.sig
check "nothing else written" test "$(find inputs | wc -l)" -eq 2
finish
