#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ima-kernel.sh - issue 21 against the real kernel's IMA appraisal, in one boot per kernel: an image
# made by doc/examples/ima-appraisal.sh (every file sealed by `e2verity seal --ima-key`, its
# security.ima in the inode's body or in an extended attribute block, SHA-256 and SHA-512, added by
# --ima-only, made by openssl from --for-ima-sig and brought back), the example's load-ima.sh run in
# the guest (the certificates in `keyctl newring _ima @u`, the policy `appraise func=FILE_CHECK
# fsuuid=UUID digest_type=verity appraise_type=sigv3`):
#  - every file e2verity sealed and signed opens and reads back;
#  - a file whose attribute signs another digest, one with none, one signed by a key not loaded
#    and one not sealed are refused (EACCES);
#  - ECDSA-signed files open where the kernel has ECDSA (CONFIG_CRYPTO_ECDSA; Debian 12's 6.1 has
#    not, and refuses them), RSA everywhere;
#  - `e2verity check --ima-cert` accepts the files the kernel opens and flags each refused one
#    with its problem code.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/kernel/kernel-lib.sh disable=SC1091
. "$top_srcdir/tests/kernel/kernel-lib.sh"
kh_setup mke2fs e2fsck debugfs dumpe2fs openssl sha256sum awk xxd
[ -x "$E2VERITY" ] || skip "$E2VERITY is not built"
t_tmpdir
tmp=$T_TMP
cd "$tmp" || exit 1

ossl()
{
	openssl "$@" >/dev/null 2>"$tmp/openssl.err" || { cat "$tmp/openssl.err" >&2; kh_fail "openssl $*"; }
}

# does this kernel verify ECDSA? its config says (a module would need modprobe in the guest)
ecdsa=no
cfg=$(dirname "$KH_KERNEL")/config-$KH_KVER
[ -f "$cfg" ] && grep -q '^CONFIG_CRYPTO_ECDSA=y' "$cfg" && ecdsa=yes
echo "kernel $KH_KVER: ECDSA ${ecdsa}"

# The host's side, the same for every kernel: made once, by the matrix's first run, and handed to
# the next ones (kh_prep_restore); saved before the boot
if ! kh_prep_restore; then
	ossl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.crt -days 2 -subj "/CN=e2verity ima rsa"
	ossl req -x509 -newkey rsa:3072 -nodes -keyout other.key -out other.crt -days 2 \
		-subj "/CN=e2verity ima other"
	ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec.key \
		-out ec.crt -days 2 -subj "/CN=e2verity ima ecdsa"
	ossl x509 -in ec.crt -outform der -out ec.der

	mkdir -p tree/good tree/bad tree/ec
	seeded tree/good/small 1 1
	seeded tree/good/big 1000000 2
	seeded tree/good/block 70000 3
	seeded tree/good/sha512 5000 4
	seeded tree/good/imaonly 9000 5
	seeded tree/good/detached 33333 6
	seeded tree/ec/one 4096 7
	seeded tree/ec/two 123456 8
	seeded tree/bad/otherdigest 5000 9
	seeded tree/bad/none 5000 10
	seeded tree/bad/otherkey 5000 11
	seeded tree/bad/unsealed 5000 12
	# the worked example: every file sealed and signed; 512-byte inodes hold an RSA-2048 attribute
	E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/ima-appraisal.sh" tree img out rsa.key rsa.crt \
		-I 512 >example.out 2>&1 || kh_fail "doc/examples/ima-appraisal.sh: $(cat example.out)"
	pass "doc/examples/ima-appraisal.sh: $(tail -n 1 example.out)"

	# the other cases, from the example's image
	# /good/block: an attribute of 300 bytes first, so that security.ima goes to a block with it
	"$E2VERITY" unseal -q img /good/block || fail "unseal /good/block"
	head -c 300 /dev/zero | tr '\0' u >big.val
	debugfs -w -R "ea_set -f big.val /good/block user.big" img >/dev/null 2>&1
	"$E2VERITY" seal -q --ima-key=rsa.key --ima-cert=rsa.crt img /good/block || fail "seal /good/block"
	# /good/sha512: resealed with SHA-512 and signed again
	"$E2VERITY" seal -q --force --hash-alg=sha512 --ima-key=rsa.key img /good/sha512 ||
		fail "reseal /good/sha512"
	# /good/imaonly: sealed first, its attribute given by --ima-only
	"$E2VERITY" unseal -q img /good/imaonly && "$E2VERITY" seal -q img /good/imaonly &&
		"$E2VERITY" seal -q --ima-only --ima-key=rsa.key img /good/imaonly || fail "--ima-only"
	# /good/detached: openssl signs the --for-ima-sig bytes; seal puts the signature back
	"$E2VERITY" unseal -q img /good/detached || fail "unseal /good/detached"
	"$E2VERITY" seal -n -q --for-ima-sig --manifest=ids.txt img /good/detached || fail "--for-ima-sig"
	mkdir -p sigs/good
	read -r hex path <ids.txt
	echo "$hex" | xxd -r -p | openssl dgst -sha256 -sign rsa.key -out "sigs$path.ima" ||
		fail "openssl dgst -sign"
	"$E2VERITY" seal -q --ima-signatures-from=sigs --ima-cert=rsa.crt img /good/detached ||
		fail "seal --ima-signatures-from"
	# /ec/*: ECDSA
	"$E2VERITY" seal -q --ima-only --force --ima-key=ec.key --ima-cert=ec.crt img /ec/one /ec/two ||
		fail "sign /ec with ECDSA"
	# /bad/otherdigest: the attribute of /good/big; /bad/none: sealed without; /bad/otherkey: signed
	# by a key the keyring has not; /bad/unsealed: not an fs-verity file, no attribute
	debugfs -R "ea_get -f big.ima /good/big security.ima" img >/dev/null 2>&1
	debugfs -w -R "ea_set -f big.ima /bad/otherdigest security.ima" img >/dev/null 2>&1
	"$E2VERITY" unseal -q img /bad/none /bad/unsealed && "$E2VERITY" seal -q img /bad/none ||
		fail "/bad/none, /bad/unsealed"
	"$E2VERITY" seal -q --ima-only --force --ima-key=other.key img /bad/otherkey || fail "/bad/otherkey"
	if e2fsck -fn img >fsck.out 2>&1; then pass "e2fsck -fn clean"; else fail "e2fsck: $(cat fsck.out)"; fi

	# where the attributes are: in the body of a 512-byte inode, or in a block for /good/block
	acl_of()
	{
		debugfs -R "stat $1" img 2>/dev/null | sed -n 's/.*File ACL: *\([0-9]*\).*/\1/p'
	}
	same "/good/small's attribute is in its inode" "$(acl_of /good/small)" 0
	[ "$(acl_of /good/block)" != 0 ]
	check "/good/block's attribute is in a block ($(acl_of /good/block))" test $? -eq 0

	# e2verity check says beforehand what the kernel is about to say
	cat out/ima.der ec.der >keyring.der
	openssl x509 -in rsa.crt >certs.pem
	openssl x509 -in ec.crt >>certs.pem
	"$E2VERITY" check --ima-cert=certs.pem -r img /good /ec >chk.out 2>&1
	same "check --ima-cert accepts every good file" "$?" 0
	"$E2VERITY" check --ima-cert=certs.pem --require-ima -r img /bad >chk.out 2>&1
	same "check flags the bad ones" "$?" 4
	for want in "/bad/otherdigest IMA_MISMATCH" "/bad/none IMA_MISSING" "/bad/otherkey IMA_UNKNOWN_KEY"; do
		check "check: $want" grep -q "^${want% *} (inode [0-9]*): error ${want#* }:" chk.out
	done
	kh_prep_save
fi

cat >guest.sh <<'GUEST'
if _m=$(sh /files/out/load-ima.sh /files/out 2>&1); then echo "LOAD OK"; else echo "LOAD ERR $(e2v_oneline "$_m")"; fi
# the ECDSA certificate into the same keyring
if _m=$(keyctl padd asymmetric '' %keyring:_ima </files/ec.der 2>&1); then
	echo "ECCERT OK"
else
	echo "ECCERT ERR $(e2v_oneline "$_m")"
fi
mount_image /dev/vda /mnt ro
hash_all /mnt/good/small /mnt/good/big /mnt/good/block /mnt/good/sha512 /mnt/good/imaonly \
	/mnt/good/detached /mnt/ec/one /mnt/ec/two /mnt/bad/otherdigest /mnt/bad/none \
	/mnt/bad/otherkey /mnt/bad/unsealed
measure_all /mnt/good/big /mnt/good/sha512
keyctl show @u 2>&1 | sed 's/^/KEYS /'
kmsg 'ima|IMA|integrity' | head -n 20
true
GUEST
start=$(date +%s)
rc=0
kh_boot -f out/ima.der:/files/out/ima.der -f out/ima-policy:/files/out/ima-policy \
	-f out/load-ima.sh:/files/out/load-ima.sh -f ec.der:/files/ec.der -r img -o gout guest.sh ||
	rc=$?
[ $rc -eq 0 ] || { cat gout 2>/dev/null; kh_fail "the guest exited $rc"; }
echo "boot: $(($(date +%s) - start)) s"

same "the example's load-ima.sh: keyring and policy loaded" "$(grep '^LOAD' gout)" "LOAD OK"
if [ "$ecdsa" = yes ]; then
	same "the ECDSA certificate loaded" "$(grep '^ECCERT' gout)" "ECCERT OK"
else
	# a kernel without ECDSA cannot parse the certificate's key: nothing can verify those files
	case $(grep '^ECCERT' gout) in
	"ECCERT ERR"*) pass "no ECDSA in $KH_KVER: its certificate is refused ($(grep '^ECCERT' gout))" ;;
	*) fail "no ECDSA in $KH_KVER, yet: $(grep '^ECCERT' gout)" ;;
	esac
fi
same "mount" "$(grep '^MOUNT' gout)" "MOUNT /dev/vda OK"
good="good/small good/big good/block good/sha512 good/imaonly good/detached"
[ "$ecdsa" = yes ] && good="$good ec/one ec/two"
for f in $good; do
	same "/$f opens under the policy and reads back" "$(kh_get gout SHA256 /mnt/$f)" \
		"$(sha256sum <tree/$f | cut -d' ' -f1)"
done
same "/good/big measures as fsverity digest" "$(kh_get gout MEASURE /mnt/good/big)" \
	"$(fsverity digest tree/good/big | cut -d' ' -f1)"
same "/good/sha512 measures as fsverity digest" "$(kh_get gout MEASURE /mnt/good/sha512)" \
	"$(fsverity digest --hash-alg=sha512 tree/good/sha512 | cut -d' ' -f1)"
bad="bad/otherdigest bad/none bad/otherkey bad/unsealed"
[ "$ecdsa" = yes ] || bad="$bad ec/one ec/two"
for f in $bad; do
	case $(kh_get gout OPENERR /mnt/$f) in
	EACCES*) pass "/$f refused (EACCES)" ;;
	*) fail "/$f: '$(grep " /mnt/$f " gout)', want EACCES" ;;
	esac
done
grep -E '^(KMSG|KEYS)' gout | head -n 20
finish
