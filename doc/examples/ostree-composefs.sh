#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ostree-composefs.sh - seal every file of an image with signatures made elsewhere, and list the digests
#
#   ostree-composefs.sh TREE IMAGE OUTDIR SIGNER_KEY SIGNER_CERT
#
# The flow of OSTree/composefs-style builds, where every file is an fs-verity file, the image
# carries a list of the digests (OUTDIR/manifest.txt: "sha256:DIGEST /path", what
# "fsverity measure" prints on the target), and the signing key never comes near the build
# machine:
#   1. the build computes what is to be signed, from the image, writing nothing;
#   2. a signing service (an HSM, a signing server) signs those lines alone: here a shell
#      function with openssl stands in for it;
#   3. the build puts the signatures back: each is verified against the file in the image
#      before anything is written, then every file is sealed with its signature;
#   4. the image is checked as the kernel will see it, signatures required.
# The signatures are the bytes "fsverity sign" makes from the files themselves.
set -eu
E2VERITY=${E2VERITY:-e2verity}
[ $# -eq 5 ] || { echo "usage: $0 TREE IMAGE OUTDIR SIGNER_KEY SIGNER_CERT" >&2; exit 2; }
tree=$1 img=$2 out=$3 key=$4 cert=$5
mkdir -p "$out"

# sign_service LIST SIGDIR: one DER PKCS#7 signature per line of LIST, written to
# SIGDIR/path.sig, the path as the line has it (escaped: "\n" for a newline, ...), which is
# where seal --signatures-from looks.  `e2verity sign --digests-from` signs them all in one run, on
# every core, in the form of "fsverity sign" (no certificates: the kernel finds the certificate in
# its .fs-verity keyring).  A signing service without e2verity signs each "HEX /path" line's
# bytes alone, one openssl run a line (minutes for thousands of files):
#	printf '%s' "$hex" | xxd -r -p | openssl smime -sign -binary -noattr -nocerts \
#		-outform der -signer "$cert" -inkey "$key" -out "$sigdir$path.sig"
sign_service()
{
	"$E2VERITY" sign --digests-from="$1" "$2" --key="$key" --cert="$cert" >/dev/null
}

kb=$(du -sk "$tree" | cut -f1)
mke2fs -q -F -t ext4 -b 4096 -d "$tree" "$img" "$((kb * 2 + 8192))K" >/dev/null

# 1. what is to be signed, from the image, read-only
"$E2VERITY" seal -q -n -a --for-builtin-sig --manifest="$out/to-sign.txt" "$img"

# 2. signed elsewhere
rm -rf "$out/sigs"
sign_service "$out/to-sign.txt" "$out/sigs"

# 3. the signatures back in, all verified first; the digest list of what was sealed
"$E2VERITY" seal -q -a --signatures-from="$out/sigs" --cert="$cert" --manifest="$out/manifest.txt" "$img"

# 4. as the kernel will see it, with require_signatures set
"$E2VERITY" check --cert="$cert" --require-signatures "$img"
e2fsck -fn "$img" >/dev/null 2>&1 || { echo "$0: e2fsck -fn $img finds problems" >&2; exit 1; }
echo "$img: $(wc -l <"$out/manifest.txt") files sealed and signed; digests in $out/manifest.txt"
