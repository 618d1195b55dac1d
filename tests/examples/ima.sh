#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ima.sh - doc/examples/ima-appraisal.sh on a small tree (tests/kernel/ima-kernel.sh boots its image)
#
# Oracles: every file is sealed as fsverity-utils computes it (the manifest's digests), its
# security.ima (read by debugfs) carries the certificate's key id and a signature openssl verifies
# over the hash of {6, 4, digest}, e2fsck finds the image clean, and the policy names the UUID
# dumpe2fs reads.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck debugfs dumpe2fs fsverity openssl xxd du
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p tree/usr/bin tree/etc
make_data tree/usr/bin/app 300000
make_data tree/usr/bin/tool 4096
printf 'config\n' >tree/etc/app.conf
: >tree/etc/empty
openssl req -x509 -newkey rsa:2048 -nodes -keyout ima.key -out ima.crt -days 30 \
	-subj /CN=e2verity-example >/dev/null 2>&1 || { echo "openssl req failed" >&2; exit 1; }
openssl pkey -in ima.key -pubout -out ima.pub 2>/dev/null

E2VERITY=$E2VERITY sh "$top_srcdir/doc/examples/ima-appraisal.sh" tree img out ima.key ima.crt \
	>log 2>&1
status=$?
[ $status -eq 0 ] && pass "example runs" || fail "example exits $status: $(cat log)"
check "e2fsck -fn clean" fsck_clean img

kid=$(openssl x509 -in ima.crt -noout -ext subjectKeyIdentifier | tail -n 1 | tr -d ' :\n' |
	tr 'A-F' 'a-f' | tail -c 8)
(cd tree && find . -type f | sed 's#^\.##') >files
same "a file for each of the tree" "$(grep -c '"path"' out/manifest.json)" "$(wc -l <files | tr -d ' ')"
while read -r p; do
	dg=$(fsverity digest "tree$p" | sed 's/^sha256:\([^ ]*\) .*/\1/')
	grep -q "\"digest\": \"sha256:$dg\"" out/manifest.json
	check "$p: sealed with fsverity's digest" test $? -eq 0
	rm -f v.bin
	debugfs -R "ea_get -f v.bin $p security.ima" img >/dev/null 2>&1
	same "$p: security.ima header" "$(xxd -p v.bin | tr -d '\n' | cut -c1-14)" "060304$kid"
	tail -c +10 v.bin >s.bin
	echo "0604$dg" | xxd -r -p >id.bin
	openssl dgst -sha256 -verify ima.pub -signature s.bin id.bin >/dev/null 2>&1
	check "$p: openssl verifies its signature" test $? -eq 0
done <files
uuid=$(dumpe2fs -h img 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
same "the policy" "$(cat out/ima-policy)" \
	"appraise func=FILE_CHECK fsuuid=$uuid digest_type=verity appraise_type=sigv3"
openssl x509 -in ima.crt -outform der -out want.der
check "the certificate in DER" cmp -s want.der out/ima.der
check "load-ima.sh is sh" sh -n out/load-ima.sh
finish
