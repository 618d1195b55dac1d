#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seal-sign-sealed.sh - issue 38: files sealed without a signature are signed later, by seal
# --key/--cert and by seal --signatures-from, which rewrite only the descriptor and signature:
# the digests stay fsverity digest's, the signatures are fsverity sign's bytes, e2fsck -fn and
# check --cert agree; another signature is refused without --force (the image untouched, a few
# lines then a count naming --force), replaced or removed with it; 4 KiB blocks with a journal,
# 1 KiB blocks without one (where a signature carrying its certificate takes one block more)
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd openssl
require_cmd fsverity
t_tmpdir
cd "$T_TMP" || exit 1

self_signed key.pem cert.pem "e2verity sign later" || skip "openssl cannot make a test key"
self_signed key2.pem cert2.pem "e2verity another signer" || skip "openssl cannot make a test key"
# a CA-issued signer: its certificate goes into each signature, which is then larger
test_ca ca && test_signer signer ca || skip "openssl cannot make a test CA"

mkdir -p src/many
rand_bytes 300000 >src/small
rand_bytes 2000000 >src/big
: >src/empty
printf 'hello\n' >src/hello
i=1
while [ $i -le 12 ]; do
	rand_bytes $((i * 1000)) >src/many/f$i
	i=$((i + 1))
done
NFILES=$(find src -type f | wc -l | tr -d ' ')

# signed_as NAME IMG DIR: the files' digests are fsverity digest's (./want), their signatures the
# bytes fsverity sign made (DIR/PATH.sig), and e2fsck -fn finds nothing
signed_as()
{
	sa_name=$1 sa_img=$2 sa_dir=$3
	"$E2VERITY" measure --all "$sa_img" 2>&1 | LC_ALL=C sort >measure.out
	check "$sa_name: measure --all is fsverity digest" cmp -s measure.out want
	sa_bad=
	while read -r f; do
		{ "$E2VERITY" dump "$sa_img" "/$f" signature >sig.out 2>/dev/null &&
			cmp -s sig.out "$sa_dir/$f.sig"; } || sa_bad="$sa_bad /$f"
	done <files
	same "$sa_name: every stored signature is fsverity sign's bytes" "$sa_bad" ""
	check "$sa_name: e2fsck -fn clean" fsck_clean "$sa_img"
}

for shape in 4096:journal 1024:nojournal; do
	bs=${shape%%:*} j=${shape#*:}
	# shellcheck disable=SC2046 # no option, or one
	mkimg base.img src 32M -b "$bs" $([ "$j" = nojournal ] && echo -O ^has_journal) || exit 1
	tree="--block-size=$bs"
	[ "$bs" = 4096 ] || tree="$tree --min-kernel=6.3"
	# the oracles: fsverity digest and fsverity sign of the source files
	rm -rf sigs
	(cd src && find . -type f | sed 's#^\./##' | LC_ALL=C sort) >files
	while read -r f; do
		echo "$(fsverity digest --block-size="$bs" "src/$f" | cut -d' ' -f1) /$f"
		mkdir -p "sigs/$(dirname "$f")"
		fsverity sign --block-size="$bs" --key=key.pem --cert=cert.pem "src/$f" "sigs/$f.sig" \
			>/dev/null || fail "$j: fsverity sign $f"
	done <files >want.lines
	LC_ALL=C sort want.lines >want
	# shellcheck disable=SC2086
	"$E2VERITY" seal -q $tree -a base.img || { fail "$j: sealing without signatures: exit $?"; continue; }

	# a dry run says what it would do, and writes nothing
	cp base.img key.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal -n $tree --key=key.pem --cert=cert.pem -a key.img >dry.out 2>&1
	same "$j: dry run: exit" "$?" 0
	same "$j: dry run: each file to sign" "$(grep -c '^already sealed, sign /' dry.out)" "$NFILES"
	check "$j: dry run: image unchanged" cmp -s base.img key.img

	# seal --key/--cert on the sealed image
	# shellcheck disable=SC2086
	"$E2VERITY" seal $tree --key=key.pem --cert=cert.pem -a key.img >key.out 2>key.err
	same "$j: seal --key on sealed files: exit" "$?" 0
	LC_ALL=C sort key.out >key.sorted
	check "$j: seal --key prints each file's unchanged digest" cmp -s key.sorted want
	same "$j: seal --key: one 'signed' line a file" \
		"$(grep -c "^e2verity: '/.*': signed, its seal and digest unchanged\$" key.err)" "$NFILES"
	same "$j: seal --key: the summary adds up" "$(tail -n 1 key.err)" \
		"e2verity: $NFILES files: $NFILES signed (sealed already)"
	signed_as "$j: seal --key" key.img sigs
	"$E2VERITY" check --cert=cert.pem --require-signatures key.img >chk.out 2>&1
	same "$j: seal --key: check --cert --require-signatures" "$?" 0

	# the same again: signed already, nothing written
	cp key.img again.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal $tree --key=key.pem --cert=cert.pem -a again.img >/dev/null 2>again.err
	same "$j: signed again: exit" "$?" 0
	check "$j: signed again: image unchanged" cmp -s key.img again.img
	check "$j: signed again: said skipped" grep -q "$NFILES files are already sealed with these parameters; skipped" again.err

	# detached: fsverity sign's files, verified against the CA (the self-signed certificate)
	cp base.img det.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal $tree -a --signatures-from=sigs --ca=cert.pem det.img >det.out 2>det.err
	same "$j: seal --signatures-from on sealed files: exit" "$?" 0
	signed_as "$j: seal --signatures-from" det.img sigs
	# the same bytes written the same way: the two images are one
	check "$j: --signatures-from and --key give the same image" cmp -s det.img key.img
	cp det.img again.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal -q $tree -a --signatures-from=sigs --ca=cert.pem again.img
	same "$j: --signatures-from again: exit" "$?" 0
	check "$j: --signatures-from again: image unchanged" cmp -s det.img again.img

	# another signature: refused without --force, the image untouched; ten files named, then a count
	cp key.img other.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal $tree --key=key2.pem --cert=cert2.pem -a other.img >other.out 2>other.err
	same "$j: another signature: exit" "$?" 1
	check "$j: another signature: image unchanged" cmp -s key.img other.img
	same "$j: another signature: nothing on standard output" "$(cat other.out)" ""
	same "$j: another signature: ten files named" \
		"$(grep -c "File is already sealed and signed with another signature (--force replaces it) while checking '/" other.err)" 10
	same "$j: another signature: then one summary line" "$(tail -n 1 other.err)" \
		"e2verity: $NFILES of $NFILES files refused, nothing written (10 named above; -v names every one): $NFILES already sealed and signed with another signature (--force replaces their signatures)"
	same "$j: another signature: eleven lines" "$(wc -l <other.err | tr -d ' ')" 11
	# shellcheck disable=SC2086
	"$E2VERITY" seal -v $tree --key=key2.pem --cert=cert2.pem -a other.img >/dev/null 2>other.err
	same "$j: -v names every file refused" \
		"$(grep -c "another signature (--force replaces it) while checking" other.err)" "$NFILES"
	# no signature given for signed files: refused, --force removes them
	# shellcheck disable=SC2086
	expect_fail "$j: signed files, unsigned seal" 1 "(--force removes their signatures)" \
		"$E2VERITY" seal $tree -a other.img
	check "$j: unsigned seal refused: image unchanged" cmp -s key.img other.img

	# --force: the CA-issued signer's signatures replace them, its certificate inside
	cp key.img ca.img
	before=$(last_lblk_end ca.img /small)
	# shellcheck disable=SC2086
	"$E2VERITY" seal --force $tree --key=signer.key --cert=signer.crt -a ca.img >/dev/null 2>ca.err
	same "$j: --force replaces the signatures: exit" "$?" 0
	same "$j: --force: one 'replaced' line a file" \
		"$(grep -c "': signature replaced (--force), its seal and digest unchanged\$" ca.err)" "$NFILES"
	"$E2VERITY" measure --all ca.img 2>&1 | LC_ALL=C sort >measure.out
	check "$j: --force: digests unchanged" cmp -s measure.out want
	check "$j: --force: e2fsck -fn clean" fsck_clean ca.img
	"$E2VERITY" check --ca=ca.crt --require-signatures ca.img >chk.out 2>&1
	same "$j: --force: check --ca accepts the new signatures" "$?" 0
	"$E2VERITY" check --cert=cert.pem --require-signatures ca.img >chk.out 2>&1
	same "$j: --force: the old signer's are gone" "$?" 4
	# 256 + ~1.3 KB of signature and certificate + 4: two 1 KiB blocks where one was
	[ "$bs" = 4096 ] || same "$j: --force: the descriptor region grew a block" \
		"$(last_lblk_end ca.img /small)" $((before + 1))

	# --force without a signature: removed; sealed as before
	cp ca.img bare.img
	# shellcheck disable=SC2086
	"$E2VERITY" seal --force $tree -a bare.img >/dev/null 2>bare.err
	same "$j: --force without a key removes the signatures: exit" "$?" 0
	same "$j: --force without a key: the summary adds up" "$(tail -n 1 bare.err)" \
		"e2verity: $NFILES files: $NFILES with the signature removed"
	"$E2VERITY" measure --all bare.img 2>&1 | LC_ALL=C sort >measure.out
	check "$j: removed: digests unchanged" cmp -s measure.out want
	check "$j: removed: e2fsck -fn clean" fsck_clean bare.img
	"$E2VERITY" check --require-signatures bare.img >chk.out 2>&1
	same "$j: removed: check finds them unsigned" "$(grep -c 'error UNSIGNED' chk.out)" "$NFILES"
	[ "$bs" = 4096 ] || same "$j: removed: the descriptor region is one block again" \
		"$(last_lblk_end bare.img /small)" "$before"
done
finish
