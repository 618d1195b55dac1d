#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ima-seal.sh - issue 21: seal --ima-key writes security.ima (an IMA fs-verity signature, sigv3)
# with the seal. Judged without e2verity's code: debugfs reads the attribute, `fsverity digest`
# gives the digest, the signed bytes are built here from the kernel's rule ({6, hash algo, digest},
# hashed with the file's algorithm), and openssl verifies the signature; the key id is the tail of
# the certificate's subject key identifier as openssl prints it; e2fsck -fn is clean after every
# write. Then --ima-only, --force, check's findings, measure, dump, unseal, extended attribute
# blocks (moved, never rewritten in place; full; shared), quota, detached signing.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd openssl xxd
t_tmpdir
cd "$T_TMP" || exit 1

self_signed key.pem cert.pem "e2verity ima"
self_signed key2.pem cert2.pem "e2verity ima other"
openssl_ok req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout eckey.pem \
	-out eccert.pem -days 2 -subj "/CN=e2verity ima ec"
# a subject key identifier of our choosing: the key id is its last four bytes, not the key's hash
openssl_ok req -x509 -new -key key.pem -out skid.pem -days 2 -subj "/CN=e2verity ima skid" \
	-addext subjectKeyIdentifier=00112233445566778899aabbccddeeff0a0b0c0d
for k in key key2 eckey; do openssl_ok pkey -in $k.pem -pubout -out $k.pub; done

mkdir -p src/dir
seeded src/a 100000 1
seeded src/b 3 2
seeded src/big 1000000 3
seeded src/dir/c 5000 4
seeded src/x 7000 5
seeded src/y 70000 6
seeded src/z 1 7
mkimg base.img src 32M -b 4096 || exit 1

# skid_tail CERT: the last four bytes of its subject key identifier, lower-case hex
skid_tail()
{
	openssl x509 -in "$1" -noout -ext subjectKeyIdentifier | tail -n 1 | tr -d ' :\n' |
		tr 'A-F' 'a-f' | tail -c 8
}

# ima_of IMG PATH OUT: the bytes of the file's security.ima (debugfs), fails if it has none
ima_of()
{
	rm -f "$3"
	debugfs -R "ea_get -f $3 $2 security.ima" "$1" >/dev/null 2>&1
	[ -s "$3" ]
}

# verify_ima IMG PATH SRC PUBKEY KEYID [ALG]: the attribute is {6, 3, algo, KEYID, size} and a
# signature PUBKEY verifies over the hash of {6, algo, fsverity digest of SRC}, by openssl
verify_ima()
{
	vi_alg=${6:-sha256}
	case $vi_alg in sha256) vi_num=04 ;; sha512) vi_num=06 ;; esac
	ima_of "$1" "$2" vi.bin || { echo "$2: no security.ima" >&2; return 1; }
	vi_hex=$(xxd -p vi.bin | tr -d '\n')
	vi_len=$(wc -c <vi.bin)
	vi_want=0603$vi_num$5$(printf '%04x' $((vi_len - 9)))
	[ "$(echo "$vi_hex" | cut -c1-18)" = "$vi_want" ] ||
		{ echo "$2: header $(echo "$vi_hex" | cut -c1-18), want $vi_want" >&2; return 1; }
	tail -c +10 vi.bin >vi.sig
	vi_digest=$(fsverity digest --hash-alg="$vi_alg" "$3" | sed 's/^[^:]*:\([^ ]*\) .*/\1/')
	echo "06$vi_num$vi_digest" | xxd -r -p >vi.id
	openssl dgst -"$vi_alg" -verify "$4" -signature vi.sig vi.id >/dev/null 2>&1 ||
		{ echo "$2: openssl does not verify the signature" >&2; return 1; }
}

# acl_of IMG PATH: the inode's extended attribute block (debugfs stat's "File ACL"), 0 for none
acl_of()
{
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*File ACL: *\([0-9]*\).*/\1/p'
}

kid=$(skid_tail cert.pem)
kid2=$(skid_tail cert2.pem)
eckid=$(skid_tail eccert.pem)

# ---- sealed and signed in one run -------------------------------------------------------------
cp base.img img
"$E2VERITY" seal -q --ima-key=key.pem --ima-cert=cert.pem img /a /b /dir/c
same "seal --ima-key exit" $? 0
check "e2fsck -fn clean after seal --ima-key" fsck_clean img
for f in a b dir/c; do
	check "/$f: sealed as fsverity-utils seals it" check_sealed img /$f src/$f >/dev/null
	check "/$f: security.ima verified by openssl, key id of the certificate" \
		verify_ima img /$f src/$f key.pub "$kid"
done
"$E2VERITY" check --ima-cert=cert.pem img >out 2>&1
same "check --ima-cert accepts them" "$? $(tail -n 1 out | grep -o '3 with security.ima')" \
	"0 3 with security.ima"
"$E2VERITY" check -v --ima-cert=cert.pem img /a >out 2>&1
check "check -v says security.ima verified" grep -q "^ok .* /a (security.ima verified)" out

# without a certificate the key id is derived as evmctl derives it: the SHA-1 of the key's bits,
# which is what openssl puts in the subject key identifier it makes
cp base.img img2
"$E2VERITY" seal -q --ima-key=key.pem img2 /a || fail "seal --ima-key without --ima-cert"
check "no certificate: key id from the key" verify_ima img2 /a src/a key.pub "$kid"
# a certificate with a subject key identifier of its own: its last four bytes
cp base.img img3
"$E2VERITY" seal -q --ima-key=key.pem --ima-cert=skid.pem img3 /a || fail "seal --ima-cert=skid.pem"
check "--ima-cert: key id from its subject key identifier" verify_ima img3 /a src/a key.pub 0a0b0c0d
# ... and from a key file that holds the certificate too, as evmctl reads it
cat key.pem skid.pem >keycert.pem
cp base.img img4
"$E2VERITY" seal -q --ima-key=keycert.pem img4 /a || fail "seal --ima-key=keycert.pem"
check "a certificate in the key file names the key" verify_ima img4 /a src/a key.pub 0a0b0c0d
expect_fail "a certificate of another key is refused" 1 "key.pem" \
	"$E2VERITY" seal -q --ima-key=key.pem --ima-cert=cert2.pem img4 /b
# ECDSA and SHA-512
"$E2VERITY" seal -q --ima-key=eckey.pem --ima-cert=eccert.pem img2 /x || fail "seal, ECDSA"
check "ECDSA: verified by openssl" verify_ima img2 /x src/x eckey.pub "$eckid"
"$E2VERITY" seal -q --hash-alg=sha512 --ima-key=key.pem img2 /y || fail "seal --hash-alg=sha512"
check "SHA-512: algorithm 6, verified by openssl" verify_ima img2 /y src/y key.pub "$kid" sha512
"$E2VERITY" check --ima-cert=eccert.pem img2 /x >out 2>&1
same "check accepts the ECDSA signature" $? 0
cat cert.pem eccert.pem >both.pem
"$E2VERITY" check --ima-cert=both.pem img2 /a /x /y >out 2>&1
same "check with a bundle of both certificates" $? 0
check "e2fsck -fn clean (ECDSA, SHA-512)" fsck_clean img2

# an OpenSSL store URI names the key as for --key; an inline file moves to a block and is signed
mkimg inl.img src 32M -b 4096 -O inline_data || exit 1
"$E2VERITY" seal -q --ima-key="file:$T_TMP/key.pem" --ima-cert="file:$T_TMP/cert.pem" inl.img /b /z ||
	fail "seal --ima-key=file:... of inline files"
check "a store URI's key signs" verify_ima inl.img /b src/b key.pub "$kid"
check "an inline file, moved to a block, signed" verify_ima inl.img /z src/z key.pub "$kid"
check "e2fsck -fn clean (inline data)" fsck_clean inl.img

# ---- files sealed already: --ima-only, kept, replaced only with --force --------------------------
cp base.img img5
"$E2VERITY" seal -q img5 /a /b || fail "plain seal"
cp img5 before.img
expect_fail "--ima-only refuses a file that is not sealed" 1 "not sealed" \
	"$E2VERITY" seal --ima-only --ima-key=key.pem img5 /a /x
check "... and writes nothing" cmp -s before.img img5
"$E2VERITY" seal -q --ima-only --ima-key=key.pem img5 /a || fail "--ima-only"
check "--ima-only: /a signed" verify_ima img5 /a src/a key.pub "$kid"
check "--ima-only: the seal is as it was" check_sealed img5 /a src/a >/dev/null
check "e2fsck -fn clean after --ima-only" fsck_clean img5
"$E2VERITY" seal --ima-only -a -v --ima-key=key.pem img5 >out 2>err
same "--ima-only -a: the sealed files only" "$? $(wc -l <out | tr -d ' ')" "0 2"
check "... an unsealed file is left, said with -v" grep -q "'/x' is not sealed; --ima-only leaves it" err
check "... a right security.ima is kept" grep -q "'/a' has this security.ima already; skipped" err
check "... /b signed" verify_ima img5 /b src/b key.pub "$kid"
cp img5 before.img
expect_fail "another key's security.ima is not replaced without --force" 1 "force" \
	"$E2VERITY" seal --ima-only --ima-key=key2.pem img5 /a
check "... and nothing is written" cmp -s before.img img5
"$E2VERITY" seal --ima-only --force --ima-key=key2.pem img5 /a >out 2>err
same "--force replaces it" $? 0
check "... and says so" grep -q "'/a': its security.ima was replaced (--force)" err
check "... the new one is key2's" verify_ima img5 /a src/a key2.pub "$kid2"
check "e2fsck -fn clean after the replacement" fsck_clean img5
# a file sealed already gets its security.ima from a plain seal --ima-key too, not resealed
"$E2VERITY" seal -q --ima-key=key.pem img5 /x || fail "seal --ima-key /x"
before_b=$(leaf_extents img5 /b)
debugfs -w -R "ea_rm /b security.ima" img5 >/dev/null 2>&1
"$E2VERITY" seal -q --ima-key=key.pem img5 /b || fail "seal --ima-key of a sealed file"
check "a sealed file without one gets it" verify_ima img5 /b src/b key.pub "$kid"
same "... without resealing" "$(leaf_extents img5 /b)" "$before_b"

# ---- check: each bad case its own problem ------------------------------------------------------
cp base.img bad.img
"$E2VERITY" seal -q --ima-key=key.pem bad.img /a /b /x /y /z || fail "seal bad.img"
"$E2VERITY" seal -q --ima-only --force --ima-key=key2.pem bad.img /x || fail "sign /x with key2"
"$E2VERITY" seal -q bad.img /dir/c || fail "seal /dir/c"
ima_of bad.img /a a.ima || fail "read /a's security.ima"
debugfs -w -R "ea_set -f a.ima /b security.ima" bad.img >/dev/null 2>&1
head -c 100 a.ima >short.ima
debugfs -w -R "ea_set -f short.ima /y security.ima" bad.img >/dev/null 2>&1
printf '\004\004' >ng.ima
head -c 32 /dev/zero >>ng.ima
debugfs -w -R "ea_set -f ng.ima /z security.ima" bad.img >/dev/null 2>&1
"$E2VERITY" check --ima-cert=cert.pem --require-ima bad.img >out 2>&1
same "check exit 4" $? 4
for want in "/b IMA_MISMATCH" "/x IMA_UNKNOWN_KEY" "/y IMA_MALFORMED" "/z IMA_NOT_VERITY" \
	"/dir/c IMA_MISSING"; do
	check "check flags $want" grep -q "^${want% *} (inode [0-9]*): error ${want#* }:" out
done
same "... and nothing else" "$(grep -c ': error ' out)" 5
# the key id is a number in hex: without the leading zeros one in 16 random keys has
check "IMA_UNKNOWN_KEY names the key id" grep -q "key id 0x$(echo "$kid2" | sed 's/^0*//')," out
"$E2VERITY" check --ima-cert=cert.pem bad.img /dir/c >out 2>&1
same "without --require-ima a file without one passes" $? 0
"$E2VERITY" check bad.img /b /x /y /z >out 2>&1
same "without the IMA options security.ima is not looked at" $? 0
"$E2VERITY" check --json --ima-cert=cert.pem bad.img /a /x >out 2>&1
check "check --json: the key id and the verdict" grep -q "\"key_id\": \"$kid\"" out
check "check --json: verified" grep -q '"verified": true' out
check "check --json: the summary counts them" grep -q '"ima_signed": 2' out
expect_fail "check: a certificate file that is missing" 8 "nothere.pem" \
	"$E2VERITY" check --ima-cert=nothere.pem bad.img

# ---- measure, dump, the manifest ----------------------------------------------------------------
cp base.img mf.img
"$E2VERITY" seal -q --ima-key=key.pem --manifest=mf.json --json mf.img /a /x || fail "seal --manifest --json"
same "seal --manifest --json: each file's key id" "$(grep -c "\"key_id\": \"$kid\"" mf.json)" 2
"$E2VERITY" measure --json img /a /b >out || fail "measure --json"
check "measure --json: key id" grep -q "\"key_id\": \"$kid\"" out
check "measure --json: algorithm" grep -q '"hash_algorithm": "sha256",' out
"$E2VERITY" measure --json img5 /a >out
check "measure --json: the replaced key id" grep -q "\"key_id\": \"$kid2\"" out
"$E2VERITY" dump img /a ima >dumped.ima || fail "dump ima"
ima_of img /a a.ima
check "dump ima: the bytes debugfs reads" cmp -s dumped.ima a.ima
expect_fail "dump ima of a file without one" 1 "no security.ima" \
	"$E2VERITY" dump base.img /a ima

# ---- unseal: a verity signature goes, any other kind stays --------------------------------------
cp img un.img
debugfs -w -R "ea_set -f ng.ima /dir/c security.ima" un.img >/dev/null 2>&1
"$E2VERITY" unseal -q un.img /a /dir/c || fail "unseal"
check "unseal removes the fs-verity signature" sh -c '! debugfs -R "ea_list /a" un.img 2>/dev/null | grep -q security.ima'
ima_of un.img /dir/c c.ima
check "unseal leaves another kind of security.ima" cmp -s c.ima ng.ima
check "e2fsck -fn clean after unseal" fsck_clean un.img
# a reseal of another digest (--force) drops the signature of the old one
"$E2VERITY" seal --force --hash-alg=sha512 img /b >/dev/null 2>err || fail "reseal /b"
check "a reseal to another digest drops the old signature" sh -c '! debugfs -R "ea_list /b" img 2>/dev/null | grep -q security.ima'
check "... and says so" grep -q "'/b': its security.ima signed the digest it had: removed" err

# ---- extended attribute blocks -------------------------------------------------------------------
# /big has a 300-byte attribute: its block moves to a new one, never rewritten in place (what
# makes the switch one inode write without a journal)
head -c 300 /dev/zero | tr '\0' x >big.val
for o in "" "-O ^has_journal" "-O quota" "-I 128" "-I 1024"; do
	# shellcheck disable=SC2086
	mkimg ea.img src 32M -b 4096 $o || { fail "mke2fs $o"; continue; }
	debugfs -w -R "ea_set -f big.val /big user.big" ea.img >/dev/null 2>&1
	debugfs -w -R "ea_set /a user.small hello" ea.img >/dev/null 2>&1
	# debugfs charges no quota for the block it gives /big, nor does mke2fs -d 1.47.0 all
	e2fsck -fy ea.img >/dev/null 2>&1
	fsck_clean ea.img || fail "$o: the image with the attributes is not clean"
	acl=$(acl_of ea.img /big)
	"$E2VERITY" seal -q --ima-key=key.pem ea.img /big /a || fail "$o: seal"
	check "$o: e2fsck -fn clean" fsck_clean ea.img
	check "$o: /big signed" verify_ima ea.img /big src/big key.pub "$kid"
	check "$o: /a signed" verify_ima ea.img /a src/a key.pub "$kid"
	debugfs -R "ea_get -f got.val /big user.big" ea.img >/dev/null 2>&1
	check "$o: /big keeps its other attribute" cmp -s got.val big.val
	same "$o: /a keeps its other attribute" \
		"$(debugfs -R 'ea_get /a user.small' ea.img 2>/dev/null | tr -d '\n')" 'user.small (5) = "hello"'
	newacl=$(acl_of ea.img /big)
	if [ "$acl" = 0 ]; then
		# 1 KiB inodes hold both in their body
		same "$o: /big's attributes stay in the inode" "$newacl" 0
	else
		[ "$newacl" != 0 ] && [ "$newacl" != "$acl" ]
		check "$o: /big's attribute block is a new one ($acl -> $newacl)" test $? -eq 0
	fi
	"$E2VERITY" check --ima-cert=cert.pem ea.img >out 2>&1
	same "$o: check" $? 0
	"$E2VERITY" unseal -q ea.img /big /a || fail "$o: unseal"
	check "$o: e2fsck -fn clean after unseal" fsck_clean ea.img
	debugfs -R "ea_get -f got.val /big user.big" ea.img >/dev/null 2>&1
	check "$o: /big keeps its other attribute after unseal" cmp -s got.val big.val
done
# no room: the inode's body and a block full of other attributes
mkimg full.img src 32M -b 4096 || exit 1
head -c 3900 /dev/zero | tr '\0' y >huge.val
debugfs -w -R "ea_set -f huge.val /x user.huge" full.img >/dev/null 2>&1
head -c 60 /dev/zero | tr '\0' z >body.val
debugfs -w -R "ea_set -f body.val /x user.body" full.img >/dev/null 2>&1
cp full.img before.img
expect_fail "no room for security.ima" 1 "No room for security.ima.*'/x'" \
	"$E2VERITY" seal --ima-key=key.pem full.img /a /x
check "... nothing written" cmp -s before.img full.img

# a block two inodes share (as the kernel shares equal ones): without a journal its count
# cannot change in the inode's one write, so the file is refused; with one, the count goes down
for o in "" "-O ^has_journal"; do
	# shellcheck disable=SC2086
	mkimg sh.img src 32M -b 4096 -I 128 -O ^metadata_csum $o || { fail "mke2fs $o"; continue; }
	debugfs -w -R "ea_set /a user.s shared" sh.img >/dev/null 2>&1
	blk=$(acl_of sh.img /a)
	# /b points to it too, and the block counts two references (its checksum is off)
	debugfs -w -f - sh.img >/dev/null 2>&1 <<EOF
sif /b file_acl $blk
sif /b blocks $(($(inode_field sh.img /b Blockcount) + 8))
EOF
	put_le32 sh.img $((blk * 4096 + 4)) 2
	fsck_clean sh.img || { fail "$o: the shared block is not clean"; continue; }
	cp sh.img before.img
	if [ -z "$o" ]; then
		"$E2VERITY" seal -q --ima-key=key.pem sh.img /a || fail "shared block, journal: seal"
		check "shared block, journal: e2fsck -fn clean" fsck_clean sh.img
		check "shared block, journal: /a signed" verify_ima sh.img /a src/a key.pub "$kid"
		same "shared block, journal: /b keeps the block" "$(acl_of sh.img /b)" "$blk"
	else
		expect_fail "shared block, no journal: refused" 1 "shares its extended attribute block" \
			"$E2VERITY" seal --ima-key=key.pem sh.img /a
		check "... nothing written" cmp -s before.img sh.img
	fi
done

# ---- detached: what is signed, signed by openssl, brought back --------------------------------
cp base.img det.img
"$E2VERITY" seal -n -q --for-ima-sig --manifest=ids.txt det.img /a /dir/c /x || fail "seal -n --for-ima-sig"
check "seal -n wrote nothing" cmp -s base.img det.img
for f in a dir/c x; do
	same "--for-ima-sig: {6, 4, digest} of /$f" "$(awk -v p=/$f '$2 == p { print $1 }' ids.txt)" \
		"0604$(fsverity digest "src/$f" | sed 's/^sha256:\([^ ]*\) .*/\1/')"
done
mkdir -p sigs/dir
while read -r hex path; do
	echo "$hex" | xxd -r -p >id.bin
	openssl dgst -sha256 -sign key.pem -out "sigs$path.ima" id.bin || fail "openssl dgst $path"
done <ids.txt
expect_fail "bare signatures need --ima-cert" 1 "bare signature needs --ima-cert" \
	"$E2VERITY" seal -q --ima-signatures-from=sigs det.img /a /dir/c /x
check "... nothing written" cmp -s base.img det.img
cp sigs/x.ima good.x
cp sigs/a.ima sigs/x.ima
expect_fail "a signature of another file is refused before anything is written" 1 "'/x'" \
	"$E2VERITY" seal -q --ima-signatures-from=sigs --ima-cert=cert.pem det.img /a /dir/c /x
check "... nothing written" cmp -s base.img det.img
cp good.x sigs/x.ima
"$E2VERITY" seal -q --ima-signatures-from=sigs --ima-cert=cert.pem det.img /a /dir/c /x ||
	fail "seal --ima-signatures-from"
for f in a dir/c x; do
	check "detached: /$f signed by openssl's signature" verify_ima det.img /$f src/$f key.pub "$kid"
done
check "e2fsck -fn clean after the detached signatures" fsck_clean det.img
finish
