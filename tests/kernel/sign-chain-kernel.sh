#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sign-chain-kernel.sh - issue 8 against the real kernel, in one boot with require_signatures=1:
# (a) only a CA's certificate in .fs-verity: files `e2verity seal` signed with a signer that CA
#     issued open and read back; a file signed under another CA, and one whose signature leaves
#     the CA-issued certificate out, are refused;
# (b) detached signing: digests from `seal -n --manifest --for-builtin-sig`, signatures made by
#     `openssl smime` from those lines alone, put back with `seal --signatures-from`: the files open
#     once the signer's certificate is loaded, and the kernel's signature is openssl's bytes;
# (c) issue 38, signing later: files sealed without a signature, then signed in place by seal
#     --key (the CA-issued signer) and by seal --signatures-from (openssl's), open and read back.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs e2fsck openssl sha256sum awk cmp
[ -x "$E2VERITY" ] || skip "$E2VERITY is not built"
t_tmpdir
tmp=$T_TMP
cd "$tmp" || exit 1

ossl()
{
	openssl "$@" >/dev/null 2>"$tmp/openssl.err" || { cat "$tmp/openssl.err" >&2; kh_fail "openssl $*"; }
}
# ca NAME - a self-signed CA; issue NAME CA - a signer certificate NAME.crt issued by CA
ca()
{
	ossl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.crt" -days 2 \
		-subj "/CN=e2verity test $1" -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,digitalSignature
}
issue()
{
	ossl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=e2verity test $1"
	# the kernel finds the CA through the Authority Key Identifier, which x509 -req only adds when told
	printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature \
		subjectKeyIdentifier=hash authorityKeyIdentifier=keyid >signer.ext
	ossl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -days 2 \
		-extfile signer.ext -out "$1.crt"
}
# The host's side, the same for every kernel: made once, by the matrix's first run, and handed to
# the next ones (kh_prep_restore); saved before the boot
if ! kh_prep_restore; then
	ca ca
	ca otherca
	issue signer ca
	issue othersigner otherca
	ossl req -x509 -newkey rsa:2048 -nodes -keyout dsigner.key -out dsigner.crt -days 2 \
		-subj "/CN=e2verity test detached signer"
	ossl x509 -in ca.crt -outform der -out ca.der
	ossl x509 -in dsigner.crt -outform der -out dsigner.der

	mkdir -p src/a src/b/sub
	rand_bytes 300000 >src/a/one
	rand_bytes 4097 >src/a/two
	rand_bytes 70000 >src/a/other
	rand_bytes 5000 >src/a/nocert
	rand_bytes 1000000 >src/b/x
	rand_bytes 1 >src/b/sub/y
	rand_bytes 100 >src/unsigned
	mkdir -p src/c
	rand_bytes 200000 >src/c/late
	rand_bytes 3000 >src/c/dlate
	mke2fs -q -F -t ext4 -b 4096 -d src img 32M >/dev/null

	# (a) the CA-issued signer's certificate goes into each signature by default
	"$E2VERITY" seal -q --key=signer.key --cert=signer.crt img /a/one /a/two ||
		fail "seal with the CA-issued signer: exit $?"
	"$E2VERITY" seal -q --key=othersigner.key --cert=othersigner.crt img /a/other ||
		fail "seal with the other CA's signer: exit $?"
	"$E2VERITY" seal -q --no-embed-cert --key=signer.key --cert=signer.crt img /a/nocert ||
		fail "seal --no-embed-cert: exit $?"

	# (b) detached: the manifest is all the signer sees
	cp img before.img
	"$E2VERITY" seal -n -q --for-builtin-sig --manifest=digests.txt img /b/x /b/sub/y ||
		fail "seal -n --manifest: exit $?"
	check "seal -n --manifest left the image alone" cmp -s before.img img
	smime_sign_digests digests.txt sigs dsigner.crt dsigner.key
	same "manifest lines" "$(wc -l <digests.txt | tr -d ' ')" 2
	"$E2VERITY" seal -q --signatures-from=sigs --cert=dsigner.crt img /b/x /b/sub/y ||
		fail "seal --signatures-from: exit $?"
	"$E2VERITY" seal -q img /unsigned || fail "seal /unsigned: exit $?"

	# (c) sealed at build time without a signature, signed in a later step: the descriptor alone
	"$E2VERITY" seal -q img /c/late /c/dlate || fail "seal /c without signatures: exit $?"
	"$E2VERITY" seal -q --key=signer.key --cert=signer.crt img /c/late ||
		fail "seal --key on the sealed /c/late: exit $?"
	"$E2VERITY" seal -n -q --for-builtin-sig --manifest=late.txt img /c/dlate ||
		fail "seal -n --manifest of the sealed /c/dlate: exit $?"
	smime_sign_digests late.txt lsigs dsigner.crt dsigner.key
	"$E2VERITY" seal -q --signatures-from=lsigs --cert=dsigner.crt img /c/dlate ||
		fail "seal --signatures-from on the sealed /c/dlate: exit $?"
	if e2fsck -fn img >fsck.out 2>&1; then pass "e2fsck -fn clean"; else fail "e2fsck: $(cat fsck.out)"; fi

	# e2verity check agrees with what the kernel is about to say
	"$E2VERITY" check --ca=ca.crt img /a/one /a/two /c/late >chk.out 2>&1
	same "check --ca=ca.crt accepts /a/one /a/two /c/late" "$?" 0
	"$E2VERITY" check --ca=ca.crt img /a/other >chk.out 2>&1
	same "check --ca=ca.crt flags /a/other" "$? $(grep -o 'SIG_UNTRUSTED' chk.out)" "4 SIG_UNTRUSTED"
	"$E2VERITY" check --cert=dsigner.crt img /b/x /b/sub/y >chk.out 2>&1
	same "check --cert=dsigner.crt accepts the detached signatures" "$?" 0
	kh_prep_save
fi

cat >guest.sh <<'GUEST'
mount_image /dev/vda /mnt ro
require_signatures 1
load_cert /files/ca.der
hash_all /mnt/a/one /mnt/a/two /mnt/a/other /mnt/a/nocert /mnt/unsigned /mnt/c/late
measure_all /mnt/a/one /mnt/a/two /mnt/c/late
echo "BEFORE-DSIGNER $(hash_one /mnt/b/x)"
load_cert /files/dsigner.der
hash_all /mnt/b/x /mnt/b/sub/y /mnt/c/dlate
measure_all /mnt/b/x /mnt/b/sub/y /mnt/c/dlate
metadata_all signature /mnt/b/x /mnt/b/sub/y /mnt/c/dlate
true
GUEST
start=$(date +%s)
rc=0
kh_boot -f ca.der:/files/ca.der -f dsigner.der:/files/dsigner.der -r img -o out guest.sh || rc=$?
[ $rc -eq 0 ] || { cat out 2>/dev/null; kh_fail "the guest exited $rc"; }
echo "boot: $(($(date +%s) - start)) s"

same "mount" "$(grep '^MOUNT' out)" "MOUNT /dev/vda OK"
same "require_signatures" "$(grep '^SYSCTL' out)" "SYSCTL require_signatures 1"
case $(grep '^CERT /files/ca.der' out) in
"CERT /files/ca.der OK "*) pass "the CA alone is in .fs-verity" ;;
*) fail "loading the CA: $(grep '^CERT' out)" ;;
esac
for f in a/one a/two c/late; do
	same "(a) /$f, signed by a CA-issued signer, reads back" "$(kh_get out SHA256 /mnt/$f)" \
		"$(sha256sum <src/$f | cut -d' ' -f1)"
	same "(a) /$f measures as fsverity digest" "$(kh_get out MEASURE /mnt/$f)" \
		"$(fsverity digest src/$f | cut -d' ' -f1)"
done
case $(kh_get out OPENERR /mnt/a/other) in
ENOKEY* | EKEYREJECTED* | EBADMSG*) pass "(a) /a/other, signed under another CA, refused: $(kh_get out OPENERR /mnt/a/other)" ;;
*) fail "(a) /a/other: '$(grep ' /mnt/a/other ' out)', want an open error" ;;
esac
case $(kh_get out OPENERR /mnt/a/nocert) in
ENOKEY* | EKEYREJECTED* | EBADMSG*) pass "(a) /a/nocert, without the signer's certificate, refused" ;;
*) fail "(a) /a/nocert: '$(grep ' /mnt/a/nocert ' out)', want an open error" ;;
esac
case $(kh_get out OPENERR /mnt/unsigned) in
EPERM*) pass "unsigned file refused (EPERM)" ;;
*) fail "/unsigned: '$(grep ' /mnt/unsigned ' out)', want EPERM" ;;
esac
case $(sed -n 's/^BEFORE-DSIGNER //p' out) in
"OPENERR /mnt/b/x "*) pass "(b) /b/x refused before the signer's certificate is loaded" ;;
*) fail "(b) /b/x before the signer's certificate: '$(sed -n 's/^BEFORE-DSIGNER //p' out)'" ;;
esac
case $(grep '^CERT /files/dsigner.der' out) in
"CERT /files/dsigner.der OK "*) pass "the detached signer's certificate loaded" ;;
*) fail "loading the detached signer: $(grep '^CERT' out)" ;;
esac
for f in b/x b/sub/y c/dlate; do
	same "(b) /$f, detached signature, reads back" "$(kh_get out SHA256 /mnt/$f)" \
		"$(sha256sum <src/$f | cut -d' ' -f1)"
	same "(b) /$f measures as fsverity digest" "$(kh_get out MEASURE /mnt/$f)" \
		"$(fsverity digest src/$f | cut -d' ' -f1)"
	sig=sigs/$f.sig
	[ "$f" != c/dlate ] || sig=lsigs/$f.sig
	want="$(wc -c <"$sig" | tr -d ' ') $(sha256sum <"$sig" | cut -d' ' -f1)"
	got=$(awk -v p=/mnt/$f '$1 == "METADATA" && $2 == p && $3 == "signature" {
		sub(/^[^ ]+ +[^ ]+ +[^ ]+ ?/, ""); print; exit }' out)
	same "(b) /$f: the kernel's signature is openssl's bytes" "$got" "$want"
done
finish
