#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ima-evmctl.sh - issue 21: the security.ima that `seal --ima-key` writes is, byte for byte, what
# `evmctl sign_hash --veritysig` (ima-evm-utils 1.5, Debian 13's) makes for the same digest and RSA
# key: keys of 1024 to 4096 bits, SHA-256 and SHA-512 files, the key id derived from the key, from
# a certificate's subject key identifier (--ima-cert; evmctl --keyid-from-cert) and from a
# certificate in the key file. evmctl's own output comes back through --ima-signatures-from=FILE,
# ECDSA signatures too, and check verifies them.
# evmctl comes from tests/kernel/fetch-kernels.sh (target ima-evm-utils), cached; SKIP without it.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
. "$top_srcdir/tests/kernel/kernel-lib.sh"
require_cmd openssl xxd
t_tmpdir
cd "$T_TMP" || exit 1

env_file=$(kh_kernel_cache)/ima-evm-utils/tool.env
if [ ! -f "$env_file" ]; then
	sh "$top_srcdir/tests/kernel/fetch-kernels.sh" --quiet ima-evm-utils >fetch.out 2>&1 ||
		skip "evmctl 1.5 (Debian 13's ima-evm-utils) cannot be fetched: $(cat \
			"$(kh_kernel_cache)/ima-evm-utils.why" 2>/dev/null || tail -n 1 fetch.out)"
fi
EVMCTL='' EVMCTL_LIBDIR='' EVMCTL_LOADER='' EVMCTL_VERSION=''
# shellcheck disable=SC1090 # written by fetch-kernels.sh, in the kernel cache
. "$env_file"
# evmctl unpacked from trixie, run by trixie's loader over trixie's libraries
evmctl()
{
	"$EVMCTL_LOADER" --library-path "$EVMCTL_LIBDIR" "$EVMCTL" "$@"
}
evmctl --version >evm.version 2>&1 || skip "the cached evmctl does not run: $(cat evm.version)"
case $(cat evm.version) in
"evmctl 1."[5-9]* | "evmctl 1."[1-9][0-9]*) ;;
*) skip "$(cat evm.version) has no sign_hash --veritysig (1.5 or later)" ;;
esac
echo "oracle: $(cat evm.version) (Debian $EVMCTL_VERSION)"

mkdir -p src/dir
seeded src/a 100000 1
seeded src/b 1 2
seeded src/dir/c 70000 3
make_sparse src/d 3000000
FILES="/a /b /dir/c /d"

# evm_values MANIFEST [OPTION...]: evmctl's value per line ("PATH HEX"), from `measure` lines
evm_values()
{
	ev_m=$1
	shift
	evmctl sign_hash --veritysig "$@" <"$ev_m" 2>evm.err | awk '{ print $2, $3 }'
}

# ours IMG: "PATH HEX" of each file's security.ima, through debugfs
ours()
{
	for o_f in $FILES; do
		rm -f o.bin
		debugfs -R "ea_get -f o.bin $o_f security.ima" "$1" >/dev/null 2>&1
		echo "$o_f $(xxd -p o.bin 2>/dev/null | tr -d '\n')"
	done
}

# compare NAME IMG MANIFEST [EVMCTL OPTION...]
compare()
{
	c_name=$1 c_img=$2 c_m=$3
	shift 3
	evm_values "$c_m" "$@" | sort >evm.vals
	ours "$c_img" | sort >ours.vals
	if [ "$(wc -l <evm.vals)" -ne 4 ] || grep -q ' $' evm.vals; then
		fail "$c_name: evmctl made $(wc -l <evm.vals) values: $(cat evm.err)"
	elif cmp -s evm.vals ours.vals; then
		pass "$c_name: the bytes of evmctl sign_hash --veritysig"
	else
		fail "$c_name: differs from evmctl: $(diff evm.vals ours.vals | head -4)"
	fi
}

for bits in 1024 2048 3072 4096; do
	openssl_ok genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:$bits -out rsa$bits.pem
	for alg in sha256 sha512; do
		mkimg img src 32M -b 4096 || exit 1
		# shellcheck disable=SC2086
		"$E2VERITY" seal -q --hash-alg=$alg --ima-key=rsa$bits.pem img $FILES ||
			fail "RSA $bits, $alg: seal exit $?"
		# shellcheck disable=SC2086
		"$E2VERITY" measure img $FILES >m.txt
		same "RSA $bits, $alg: the digests are fsverity's" "$(cut -d' ' -f1 m.txt | tr '\n' ' ')" \
			"$(for f in $FILES; do fsverity digest --hash-alg=$alg "src$f" | cut -d' ' -f1; done |
				tr '\n' ' ')"
		compare "RSA $bits, $alg" img m.txt --key rsa$bits.pem
	done
done

# the key id from a certificate: a subject key identifier that is not the key's hash
openssl_ok req -x509 -new -key rsa2048.pem -out skid.pem -days 2 -subj "/CN=e2verity evmctl" \
	-addext subjectKeyIdentifier=0102030405060708090a0b0c0d0e0f1011121314
mkimg img src 32M -b 4096 || exit 1
# shellcheck disable=SC2086
"$E2VERITY" seal -q --ima-key=rsa2048.pem --ima-cert=skid.pem img $FILES || fail "seal --ima-cert"
# shellcheck disable=SC2086
"$E2VERITY" measure img $FILES >m.txt
compare "--ima-cert (evmctl --keyid-from-cert)" img m.txt --key rsa2048.pem --keyid-from-cert skid.pem
grep -q ' 0603041112131401' ours.vals
check "... the key id is the identifier's last four bytes" test $? -eq 0
# evmctl reads the certificate from the key file when it has one; so does e2verity
cat rsa2048.pem skid.pem >keycert.pem
mkimg img src 32M -b 4096 || exit 1
# shellcheck disable=SC2086
"$E2VERITY" seal -q --ima-key=keycert.pem img $FILES || fail "seal --ima-key=keycert.pem"
compare "a certificate in the key file" img m.txt --key keycert.pem

# evmctl's output brought back as it is (--ima-signatures-from=FILE): its bytes, verified
mkimg img src 32M -b 4096 || exit 1
# shellcheck disable=SC2086
"$E2VERITY" seal -n -q --manifest=m.txt img $FILES || fail "seal -n --manifest"
evmctl sign_hash --veritysig --key keycert.pem <m.txt >sigs.txt 2>evm.err ||
	fail "evmctl sign_hash: $(cat evm.err)"
# shellcheck disable=SC2086
"$E2VERITY" seal -q --ima-signatures-from=sigs.txt --ima-cert=skid.pem img $FILES ||
	fail "seal --ima-signatures-from=evmctl's output"
compare "--ima-signatures-from evmctl's lines" img m.txt --key keycert.pem
"$E2VERITY" check --ima-cert=skid.pem --require-ima img >out 2>&1
same "check verifies evmctl's RSA values" $? 0
# ECDSA is not deterministic: evmctl's values are taken, written as they are and verified
openssl_ok req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec.pem \
	-out ec.crt -days 2 -subj "/CN=e2verity evmctl ec"
cat ec.pem ec.crt >eckeycert.pem
mkimg img src 32M -b 4096 || exit 1
evmctl sign_hash --veritysig --key eckeycert.pem <m.txt >ecsigs.txt 2>evm.err ||
	fail "evmctl sign_hash, ECDSA: $(cat evm.err)"
# shellcheck disable=SC2086
"$E2VERITY" seal -q --ima-signatures-from=ecsigs.txt --ima-cert=ec.crt img $FILES ||
	fail "seal --ima-signatures-from evmctl's ECDSA lines"
"$E2VERITY" check --ima-cert=ec.crt --require-ima img >out 2>&1
same "check verifies evmctl's ECDSA values" $? 0
awk '{ print $2, $3 }' ecsigs.txt | sort >evm.vals
ours img | sort >ours.vals
check "ECDSA: the values written are evmctl's" cmp -s evm.vals ours.vals
finish
