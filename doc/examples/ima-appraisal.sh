#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ima-appraisal.sh - an ext4 image whose files the kernel's IMA appraisal lets open by their signatures
#
#   ima-appraisal.sh TREE IMAGE OUTDIR IMA_KEY IMA_CERT [MKE2FS_OPTION...]
#
# Distributions and embedded builds that appraise files with IMA (Yocto's meta-integrity, signed
# Fedora/RHEL packages) can do it by fs-verity digest since Linux 5.19: the policy rule
#   appraise func=FILE_CHECK fsuuid=UUID digest_type=verity appraise_type=sigv3
# lets a file of that filesystem open only if it is an fs-verity file whose security.ima holds a
# signature of its digest by a key of the .ima keyring (EACCES otherwise). This builds such an
# image from TREE, on the build host, with no root, loop mount or IMA-capable kernel:
#   1. mke2fs -d the tree (4096-byte blocks: what every kernel with fs-verity mounts);
#   2. seal every file and write its security.ima in the same run: the attribute is written in
#      the seal's transaction, so an interrupted build never leaves a sealed file without it;
#   3. check every file as the kernel will: sealed, and its signature verified against IMA_CERT;
#   4. write what the target needs into OUTDIR:
#        ima.der        the certificate, in DER, for the keyring
#        ima-policy     the rule above, with this image's UUID
#        load-ima.sh    the commands that load both (run once, before the files are opened; a
#                       kernel without CONFIG_INTEGRITY_TRUSTED_KEYRING, such as Debian's, takes
#                       a keyring of the user's; with it, the key must be signed by a trusted one)
#        manifest.json  every file, its digest and the key id of its signature
# IMA_KEY is RSA or ECDSA (an OpenSSL store URI does too); IMA_CERT's subject key identifier
# gives the key id by which the kernel finds the certificate. MKE2FS_OPTIONs go to mke2fs: with
# -I 512 an RSA-2048 signature fits in the inode's body; in 256-byte inodes it takes an extended
# attribute block per file.
set -eu
E2VERITY=${E2VERITY:-e2verity}
[ $# -ge 5 ] || { echo "usage: $0 TREE IMAGE OUTDIR IMA_KEY IMA_CERT [MKE2FS_OPTION...]" >&2; exit 2; }
tree=$1 img=$2 out=$3 key=$4 cert=$5
shift 5
mkdir -p "$out"

# 1. the image; room for the trees and the attribute blocks
kb=$(du -sk "$tree" | cut -f1)
mke2fs -q -F -t ext4 -b 4096 "$@" -d "$tree" "$img" "$((kb * 2 + 8192))K" >/dev/null

# 2. every file sealed and signed, in one run; the manifest once all is done
"$E2VERITY" seal -q -a --ima-key="$key" --ima-cert="$cert" --manifest="$out/manifest.json" \
	--json "$img"

# 3. what the kernel will judge, judged first (exit status as fsck's: 0 means all is well)
"$E2VERITY" check -q --ima-cert="$cert" --require-ima "$img"

# 4. the target's half
openssl x509 -in "$cert" -outform der -out "$out/ima.der"
uuid=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
echo "appraise func=FILE_CHECK fsuuid=$uuid digest_type=verity appraise_type=sigv3" \
	>"$out/ima-policy"
cat >"$out/load-ima.sh" <<'EOF'
#!/bin/sh
# load-ima.sh DIR - the .ima keyring with DIR/ima.der, then the policy DIR/ima-policy
set -e
keyctl search @u keyring _ima >/dev/null 2>&1 || keyctl newring _ima @u >/dev/null
keyctl padd asymmetric "" %keyring:_ima <"$1/ima.der" >/dev/null
[ -e /sys/kernel/security/ima ] || mount -t securityfs securityfs /sys/kernel/security
cat "$1/ima-policy" >/sys/kernel/security/ima/policy
EOF
echo "$img: $(grep -c '"path"' "$out/manifest.json") files sealed and signed for IMA; " \
	"on the target: sh load-ima.sh $out"
