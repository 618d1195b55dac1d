# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# cases-lib.sh - what the recipes of tests/check/cases/*/recipe use: a small image, field edits, and
# run/guard, which record each command's output and exit status for the driver to diff
#
# Source after tests/lib.sh and tests/check/check-lib.sh, in an empty directory.

# LIMIT: seconds any one command may take (a hang is a failure, not a stuck suite)
: "${LIMIT:=60}"

# det_data FILE SIZE: the same bytes on every run, so that block placement and digests repeat
det_data()
{
	openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f \
		-iv "$(printf '%032x' "$2")" </dev/zero 2>/dev/null | head -c "$2" >"$1"
}

# base_image: img, 16 MiB, 4 KiB blocks, with /a (100000 bytes), /b (50000) and /c (20000) written
# in that order by debugfs (mke2fs -d would order them by the host's readdir); /a sealed by e2verity.
# Host copies are in src/.  /a: 25 data blocks (0-24), tree block at 32 (offset 131072),
# descriptor and size word in block 33 (offsets 135168 and 139260), the file ends at 139264.
base_image()
{
	[ -z "${BASE_MKE2FS:-}" ] && fixture base img src && return 0
	mkdir -p src
	det_data src/a 100000
	det_data src/b 50000
	det_data src/c 20000
	# shellcheck disable=SC2086 # BASE_MKE2FS: more mke2fs options, word-split (the layout moves)
	mke2fs -q -F -t ext4 -b 4096 -O verity ${BASE_MKE2FS:-} img 16M >/dev/null 2>&1 || return 1
	debugfs -w -f - img >/dev/null 2>&1 <<EOC || return 1
write src/a a
write src/b b
write src/c c
EOC
	"$E2VERITY" seal img /a >/dev/null || return 1
}

# sample_image: img, check-lib.sh's make_sample with the same bytes on every run: 32 MiB, 4 KiB
# blocks, files sealed by fsverity-utils and debugfs (not by e2verity), host copies in src/:
# /a: 600000 bytes, SHA-256, 4 KiB tree blocks: 147 data blocks; levels 2 (top) + 1; tree at 655360:
#     stored block 0 = top, 1-2 = level 0; descriptor at 667648, size word at 671740.
# /big3: 1048577 bytes, SHA-512, 1 KiB tree blocks, salted: 1025 data blocks, levels 65, 5, 1; tree
#     at 1114112: stored block 0 = level 2 (top), 1-5 = level 1, 6-70 = level 0; descriptor at
#     1187840.
# /hello (6 bytes, one block, no tree), /empty, /exact64k, /sparse (5 MiB, mostly a hole) and
# "/dir/sub/nested file" (salted); /plain is not sealed.
sample_image()
{
	# make_sample's data is random; a case's expected output names hashes
	make_data()
	{
		det_data "$@"
	}
	make_sample img src
}

# sif PATH FIELD VALUE: set an inode field with debugfs (it keeps the inode checksum right)
sif()
{
	debugfs -w -R "sif $1 $2 $3" img >/dev/null 2>&1
}

# inode_at PATH: the byte offset in img of PATH's on-disk inode (debugfs imap: block and offset)
inode_at()
{
	# shellcheck disable=SC2046 # the block and the offset, word-split
	set -- $(debugfs -R "imap \"$1\"" img 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ $# -eq 2 ] || return 1
	echo $(($1 * $(fs_block_size img) + $2))
}

# inode_le16 PATH BYTE VALUE and inode_le32: a little-endian value at byte BYTE of PATH's on-disk
# inode, its checksum left as it was (sif keeps it right)
inode_le16()
{
	_o=$(inode_at "$1") || return 1
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o\\%03o' $(($3 & 255)) $(($3 >> 8 & 255)))" |
		dd of=img bs=1 seek=$((_o + $2)) conv=notrunc status=none
}

inode_le32()
{
	_o=$(inode_at "$1") || return 1
	put_le32 img $((_o + $2)) "$3"
}

# inode_csum_fix PATH: PATH's inode checksum made right again after inode_le16/inode_le32
inode_csum_fix()
{
	debugfs -w -n -R "sif \"$1\" checksum calc" img >/dev/null 2>&1
}

# poke_le64 PATH FILE_OFFSET VALUE and poke_le32: little-endian values into a file's block in img
poke_le64()
{
	_o=$(img_offset img "$1" "$2") || return 1
	put_le32 img "$_o" $(($3 & 0xffffffff))
	put_le32 img $((_o + 4)) $(($3 >> 32 & 0xffffffff))
}

poke_le32()
{
	_o=$(img_offset img "$1" "$2") || return 1
	put_le32 img "$_o" "$3"
}

# the helper that rewrites fields of a PKCS#7 signature (tests/helpers/pkcs7-edit.c)
# shellcheck disable=SC2034 # used by the recipes (sig-*)
P7EDIT=${top_builddir:-$top_srcdir}/tests/helpers/pkcs7-edit

# put_sig SIGFILE: SIGFILE becomes /a's built-in signature, after the descriptor at 135168 in the
# block whose last 4 bytes (139260) hold the size word, as base_image lays /a out: sig_size, the
# bytes, zeros up to the size word, and the size word 256 plus the signature's size
put_sig()
{
	_n=$(stat -c %s "$1")
	[ "$_n" -le 3836 ] || return 1
	_o=$(img_offset img /a 135168) || return 1
	head -c 3836 /dev/zero | dd of=img bs=1 seek=$((_o + 256)) conv=notrunc status=none
	dd if="$1" of=img bs=1 seek=$((_o + 256)) conv=notrunc status=none
	put_le32 img $((_o + 4)) "$_n"
	put_le32 img $((_o + 4092)) $((256 + _n))
}

# signed_a KEY CERT: a.sig, what `fsverity sign` makes for /a
signed_a()
{
	fsverity sign src/a a.sig --key="$1" --cert="$2" >/dev/null
}

# smime_a KEY CERT: a.sig, /a's signature made by openssl (fsverity sign's digest, with the
# signer's certificate in the message, which fsverity sign leaves out)
smime_a()
{
	hex2bin "$(fsverity digest --for-builtin-sig --compact src/a)" >a.fmt
	openssl smime -sign -binary -noattr -outform der -signer "$2" -inkey "$1" -in a.fmt -out a.sig
}

# ima_cert KEY CERT KEYID: CERT, self-signed for KEY (made unless it exists), whose subject key
# identifier ends in the 4 bytes KEYID (8 hex digits): the key id by which an IMA signature names
# it, the same on every run
ima_cert()
{
	[ -e "$1" ] || openssl genpkey -algorithm rsa -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null
	openssl req -x509 -new -key "$1" -out "$2" -days 2 -subj "/CN=e2verity case $3" \
		-addext "subjectKeyIdentifier=00112233445566778899aabbccddeeff$3" 2>/dev/null
}

# ima_sig KEY KEYID SRC OUT: OUT, a security.ima that openssl makes as evmctl sign --veritysig
# does: an IMA fs-verity signature (type 6, version 3, hash algorithm 4: SHA-256, KEYID, the
# signature's size big-endian) of `fsverity digest SRC`, an RSA signature over the SHA-256 of
# {6, 4, digest} (security/integrity/ima/ima_appraise.c, digital signature v3)
ima_sig()
{
	hex2bin "0604$(fsverity digest --compact "$3")" >ima.id
	openssl dgst -sha256 -sign "$1" -out ima.sig ima.id || return 1
	hex2bin "060304$2$(printf '%04x' "$(stat -c %s ima.sig)")" >"$4"
	cat ima.sig >>"$4"
}

# ima_set PATH FILE: FILE becomes PATH's security.ima in img
ima_set()
{
	debugfs -w -R "ea_set -f $2 $1 security.ima" img >/dev/null 2>&1
}

# run COMMAND ARGS...: one e2verity command under LIMIT: "$ e2verity ...", stdout, stderr, exit status
run()
{
	echo "\$ e2verity $*"
	timeout "$LIMIT" "$E2VERITY" "$@" >run.out 2>run.err
	_st=$?
	cat run.out run.err
	[ "$_st" -eq 124 ] && echo "timed out after $LIMIT s"
	echo "exit $_st"
}

# guard COMMAND ARGS...: run a command that writes img, then say whether img changed, whether
# every file in OTHERS (names in / whose host copies are in src/) kept its data, and whether
# e2fsck -fn finds more than it found before
guard()
{
	cp img guard.before
	e2fsck -fn img >/dev/null 2>&1
	_fsck_before=$?
	run "$@"
	if cmp -s img guard.before; then echo "image unchanged"; else echo "image changed"; fi
	for _f in $OTHERS; do
		if debugfs -R "dump /$_f guard.dump" img >/dev/null 2>&1 && cmp -s guard.dump "src/$_f"; then
			echo "/$_f intact"
		else
			echo "/$_f DAMAGED"
		fi
	done
	e2fsck -fn img >/dev/null 2>&1
	_fsck_after=$?
	if [ "$_fsck_after" -le "$_fsck_before" ]; then
		echo "e2fsck -fn no worse"
	else
		echo "e2fsck -fn worse: exit $_fsck_before before, $_fsck_after after"
	fi
	rm -f guard.before guard.dump
}

# frag_image NFRAG [mke2fs options...]: img, 16 MiB, 4 KiB blocks, with /f: a file of 2*NFRAG-1
# blocks with every odd block punched out, so NFRAG extents of one block each (logical 0, 2, 4 ...),
# sealed by e2verity.  Past 4 extents the root in the inode is an index (depth 1) over leaf nodes
# of up to 340 extents each.
frag_image()
{
	_n=$1
	shift
	mkdir -p src
	det_data src/f $((2 * _n * 4096 - 4096))
	mke2fs -q -F -t ext4 -b 4096 -O verity "$@" img 16M >/dev/null 2>&1 || return 1
	{
		echo "write src/f f"
		_i=1
		while [ "$_i" -lt $((2 * _n - 1)) ]; do
			echo "punch /f $_i $_i"
			_i=$((_i + 2))
		done
	} | debugfs -w -f - img >/dev/null 2>&1 || return 1
	"$E2VERITY" seal img /f >/dev/null
}

# tree_child PATH K: the block of the Kth entry (from 1) of the index node in PATH's inode
tree_child()
{
	debugfs -R "ex \"$1\"" img 2>/dev/null | sed -n '2,$p' |
		sed -E 's#/ +#/#g; s# +- +#-#g; s#^ +##' |
		awk -v k="$2" '{ split($1, l, "/"); split($2, e, "/"); if (l[1] == 0 && l[2] > 0 && e[1] == k) print $4 }'
}

# node_le16 BLOCK OFFSET VALUE and node_le32: a little-endian value at byte OFFSET of img's block
# BLOCK (4 KiB blocks), for extent tree nodes outside the inode
node_le16()
{
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o\\%03o' $(($3 & 255)) $(($3 >> 8 & 255)))" |
		dd of=img bs=1 seek=$(($1 * 4096 + $2)) conv=notrunc status=none
}

node_le32()
{
	put_le32 img $(($1 * 4096 + $2)) "$3"
}

# fsck_says: what the oracle thinks of img, e2fsck -fn changing nothing
fsck_says()
{
	if e2fsck -fn img >/dev/null 2>&1; then
		echo "e2fsck -fn: clean"
	else
		echo "e2fsck -fn: finds errors"
	fi
}

# refused PATH: check img, then unseal, seal --force and measure of PATH (each should refuse and
# leave img unchanged), and what e2fsck -fn says of img
refused()
{
	run check img
	OTHERS=${OTHERS:-} guard unseal img "$1"
	OTHERS=${OTHERS:-} guard seal --force img "$1"
	run measure img "$1"
	fsck_says
}
