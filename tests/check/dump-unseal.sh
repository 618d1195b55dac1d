#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dump-unseal.sh - dump equals fsverity-utils' tree/descriptor/signature; unseal frees the metadata,
# keeps the data and leaves e2fsck -fn clean; built-in signatures are reported
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
require_cmd openssl
cd "$T_TMP" || exit 1

make_sample img src || { fail "building the sample image"; finish; }

# a signed file: key, self-signed certificate and signature from openssl and fsverity sign
self_signed key.pem cert.pem
self_signed key2.pem cert2.pem other
make_data src/signed 123456
fsverity sign src/signed signed.sig --key=key.pem --cert=cert.pem >/dev/null ||
	fail "fsverity sign"
seal_oracle img src/signed signed --sig=signed.sig || fail "sealing the signed file"
check "e2fsck -fn passes the image" fsck_clean img
sum_before=$(sha256sum <img)

# dump against fsverity digest --out-merkle-tree/--out-descriptor
for f in a hello empty exact64k sparse "big3 --hash-alg=sha512 --block-size=1024 --salt=$SALT" \
	signed; do
	fname=${f%% *}
	opts=${f#"$fname"}
	# shellcheck disable=SC2086
	fsverity digest $opts --out-merkle-tree=want.tree --out-descriptor=want.desc \
		"src/$fname" >/dev/null
	"$E2VERITY" dump img "/$fname" merkle_tree >got.tree
	check "dump merkle_tree /$fname exits 0" test $? -eq 0
	check "dump merkle_tree /$fname equals fsverity's" cmp want.tree got.tree
	"$E2VERITY" dump img "/$fname" descriptor >got.desc
	check "dump descriptor /$fname equals fsverity's" cmp want.desc got.desc
done
fsverity digest --out-merkle-tree=want.tree src/a >/dev/null
for slice in "0 1" "100 5000" "4096 4096" "8000 100000" "12287 10"; do
	set -- $slice
	tail -c +$(($1 + 1)) want.tree | head -c "$2" >want.slice
	"$E2VERITY" dump --offset="$1" --length="$2" img /a merkle_tree >got.slice
	check "dump --offset=$1 --length=$2" cmp want.slice got.slice
done
"$E2VERITY" dump --offset=999999 img /a merkle_tree >got.slice
check "dump past the end is empty" test ! -s got.slice
"$E2VERITY" dump --offset=10 img /a descriptor >got.slice
fsverity digest --out-descriptor=want.desc src/a >/dev/null
tail -c +11 want.desc >want.slice
check "dump descriptor --offset" cmp want.slice got.slice
"$E2VERITY" dump img /signed signature >got.sig
check "dump signature equals fsverity sign's" cmp signed.sig got.sig
expect_fail "dump signature of an unsigned file" 1 "File has no built-in signature" \
	"$E2VERITY" dump img /a signature
expect_fail "dump of an unsealed file" 1 "File is not sealed with fs-verity" \
	"$E2VERITY" dump img /plain merkle_tree
expect_fail "dump of an unknown type" 2 "unknown metadata type 'tree'" "$E2VERITY" dump img /a tree
expect_fail "dump with a bad offset" 2 "invalid offset" "$E2VERITY" dump --offset=-1 img /a descriptor

# signatures: reported as signed; the digest is the unsigned file's
check "measure of a signed file is the unsigned digest" \
	test "$("$E2VERITY" measure img /signed)" = "$(oracle_digest src/signed) /signed"
"$E2VERITY" check -v img /signed >out
check "check -v reports a signed file" grep -q "^ok sha256:.* /signed (signed)$" out
check "the summary counts it" grep -q ", 1 signed;" out
"$E2VERITY" check --require-signatures img /signed >out
check "--require-signatures accepts a signed file" test $? -eq 0
"$E2VERITY" check --cert=cert.pem img /signed >out 2>err
st=$?
check "--cert: a good signature passes" test $st -eq 0
"$E2VERITY" check -v --cert=cert.pem img /signed >out
check "--cert: reported as verified" grep -q "(signed, verified)$" out
# the kernel, with another certificate alone in its keyring, finds no key for the signer (ENOKEY)
"$E2VERITY" check --cert=cert2.pem img /signed >out
check "--cert: another certificate is SIG_UNTRUSTED" test $? -eq 4
check "--cert: SIG_UNTRUSTED names the file" grep -q '^/signed (inode [0-9]*): error SIG_UNTRUSTED' out
"$E2VERITY" check --cert=cert.pem --ca=cert2.pem img /signed >out
check "--ca: a certificate not from the CA is SIG_UNTRUSTED" grep -q ' SIG_UNTRUSTED: ' out
check "dump/measure/check left the image unchanged" test "$(sha256sum <img)" = "$sum_before"

# unseal: the same files written unsealed are the reference
mke2fs -q -F -t ext4 -b 4096 -O verity plain 32M >/dev/null
debugfs -w -R "mkdir dir" plain >/dev/null 2>&1
debugfs -w -R "mkdir dir/sub" plain >/dev/null 2>&1
while read -r line; do
	case $line in
	"dir/sub/nested file"*) write_plain plain src/nested '"dir/sub/nested file"' ;;
	*) write_plain plain "src/${line%% *}" "${line%% *}" ;;
	esac
done <src/list
write_plain plain src/plain plain
write_plain plain src/signed signed

debugfs -w -R 'sif /a flags 0x180010' img >/dev/null 2>&1 # immutable too, as seal --immutable
cp img before
# the verity feature stays while a sealed file is left, and goes with the last one
cp img part
"$E2VERITY" unseal part /a || fail "unseal of one file"
check "unseal of one of several sealed files keeps the verity feature" has_feature part verity
"$E2VERITY" unseal img /a /big3 /empty /hello /exact64k /sparse "/dir/sub/nested file" /signed
check "unseal exits 0" test $? -eq 0
check "e2fsck -fn is clean after unseal" fsck_clean img
has_feature img verity && fail "unseal of the last sealed file left the verity feature set"
check "unseal frees every metadata block" test "$(sb_field img "Free blocks")" = "$(sb_field plain "Free blocks")"
for fname in a big3 empty hello exact64k sparse nested signed; do
	path=/$fname
	[ $fname = nested ] && path="/dir/sub/nested file"
	debugfs -R "dump \"$path\" out.data" img >/dev/null 2>&1
	check "unseal keeps the data of $path" cmp "src/$fname" out.data
	flags=$(debugfs -R "stat \"$path\"" img 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	check "unseal clears the verity and immutable flags of $path ($flags)" test "$flags" = 0x80000
done
"$E2VERITY" check img >out
check "check after unsealing everything: no sealed files left" grep -q ': 0 files checked' out
cp img after
expect_fail "unsealing again: skipped with a note" 0 "'/a' is not sealed; skipped" \
	"$E2VERITY" unseal img /a
expect_fail "unsealing a missing file" 1 "while looking up '/nope'" "$E2VERITY" unseal img /nope
check "failed unseals leave the image unchanged" cmp img after
cp before img
expect_fail "one bad path: nothing is unsealed" 1 "No such file or directory while looking up '/nope'" \
	"$E2VERITY" unseal img /a /nope
check "one bad path leaves the image unchanged" cmp img before
expect_fail "unseal without PATH" 2 "no PATH given" "$E2VERITY" unseal img
finish
