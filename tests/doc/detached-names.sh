#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# detached-names.sh - the detached signing of README.md and doc/e2verity.8 (sign --digests-from,
# and the openssl loop) and doc/examples/ostree-composefs.sh work for every name: a tab, a newline,
# a backslash, a byte that is not UTF-8, trailing spaces, a carriage return, a directory with a
# newline, a hard link
#
# The commands are cut out of the documents and run as they are, with sh.  Oracles: each stored
# signature verifies with openssl against the formatted digest that fsverity digest
# --for-builtin-sig gives for the source file, chained to the CA; e2fsck -fn.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck python3 openssl xxd perl fsverity
t_tmpdir
cd "$T_TMP" || exit 1

python3 - <<'EOF'
import os
names = [b'tab\tthere', b'new\nline.txt', b'back\\slash', b'caf\xe9', b'trail ', b'two trail  ',
         b'cr\r', b'looks\\x41like', b'-dash', b'plain', b'sp ace']
os.makedirs(b'tree/usr/weird/nl\ndir')
for i, n in enumerate(names):
    open(b'tree/usr/weird/' + n, 'wb').write(b'data %d\n' % i)
open(b'tree/usr/weird/nl\ndir/f', 'wb').write(b'in a directory with a newline in its name\n')
os.link(b'tree/usr/weird/plain', b'tree/usr/weird/hard')
EOF
nfiles=12 # inodes; 13 names

# block LINE-START LINE-END FILE: the lines of an indented block of FILE, from the one holding
# LINE-START to the one holding LINE-END, unindented
block()
{
	awk -v a="$1" -v b="$2" 'index($0, a) { on = 1 } on { sub(/^      /, ""); print } on && index($0, b) { exit }' "$3"
}

# the CA and the signer of README's key-signing set-up
block 'openssl req -x509 -newkey rsa:4096 -nodes -keyout ca.key' '-extfile signer.ext -out signer.crt' "$top_srcdir/README.md" >keys.sh
sh keys.sh >/dev/null 2>&1 && [ -s signer.crt ] || fail "README's key-signing commands: $(cat keys.sh)"

# e2verity in the documents' loops is the one under test
printf 'e2verity() { "$E2VERITY" "$@"; }\n' >prelude.sh
export E2VERITY

# verify.py IMG N: each of the N files' stored signature is openssl-valid for its source file,
# under the CA
cat >verify.py <<'EOF'
import os, subprocess, sys
img, want = sys.argv[1], int(sys.argv[2])
seen, n = set(), 0
for d, dirs, files in os.walk(b'tree'):
    for f in files:
        p = os.path.join(d, f)
        if os.stat(p).st_ino in seen:
            continue
        seen.add(os.stat(p).st_ino)
        hexd = subprocess.run([b'fsverity', b'digest', b'--for-builtin-sig', b'--compact', p],
                              check=True, capture_output=True).stdout.strip()
        open('digest.bin', 'wb').write(bytes.fromhex(hexd.decode()))
        sig = subprocess.run([os.environ['E2VERITY'].encode(), b'dump', img.encode(), p[4:],
                              b'signature'], check=True, capture_output=True).stdout
        open('sig.der', 'wb').write(sig)
        subprocess.run(['openssl', 'smime', '-verify', '-binary', '-inform', 'der', '-in',
                        'sig.der', '-content', 'digest.bin', '-CAfile', 'ca.crt', '-purpose',
                        'any', '-out', '/dev/null'], check=True, capture_output=True)
        n += 1
assert n == want, n
EOF

# run_doc NAME SCRIPT: the document's commands on a fresh image of the tree
run_doc()
{
	rm -rf sigs digests.txt rootfs.img
	mke2fs -q -F -t ext4 -b 4096 -d tree rootfs.img 16M >/dev/null 2>&1 || fail "mke2fs"
	cat prelude.sh "$2" >run.sh
	if sh run.sh >run.out 2>&1; then
		pass "$1: runs"
	else
		fail "$1: exit $?: $(cat run.out)"
		return
	fi
	"$E2VERITY" check --ca=ca.crt --require-signatures rootfs.img >check.out 2>&1
	check "$1: check --require-signatures passes" test $? -eq 0
	check "$1: every file checked" grep -q "^rootfs.img: $nfiles files checked, $nfiles passed" check.out
	check "$1: every signature verifies (openssl, CA)" python3 verify.py rootfs.img "$nfiles"
	check "$1: e2fsck -fn" fsck_clean rootfs.img
}

block 'e2verity seal -n -r --manifest=digests.txt' '--signatures-from=sigs' "$top_srcdir/README.md" >readme.sh
check "README: the detached-signing flow found" grep -q 'e2verity sign --digests-from=' readme.sh
run_doc "README's flow" readme.sh

# the man page's two: sign --digests-from, and the openssl loop; their roff escapes taken off
# man_example N: the Nth example of DETACHED SIGNING
man_example()
{
	sed -n '/^\.SH DETACHED SIGNING/,/^\.SH/p' "$top_srcdir/doc/e2verity.8" |
		awk -v n="$1" '/^\.EX/ { k++; next } /^\.EE/ { next } k == n && !done { print } /^\.RE/ && k == n { done = 1 }' |
		sed '/^\.RE/d; s/\\-/-/g; s/\\e/\\/g'
}
man_example 1 >man.sh
check "man page: the detached-signing flow found" grep -q 'e2verity sign --digests-from=' man.sh
run_doc "the man page's flow" man.sh
man_example 2 >man-loop.sh
check "man page: the openssl loop found" grep -q 'while read -r hex path' man-loop.sh
run_doc "the man page's openssl loop" man-loop.sh

# the worked example, with a self-signed certificate and no certificates in the signatures
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 30 -subj /CN=ex \
	>/dev/null 2>&1 || fail "openssl req"
sh "$top_srcdir/doc/examples/ostree-composefs.sh" tree os.img out key.pem cert.pem >ex.out 2>&1
check "ostree-composefs.sh: runs ($(tail -n 1 ex.out))" test $? -eq 0
check "ostree-composefs.sh: a manifest line for every name" test "$(wc -l <out/manifest.txt)" -eq 13
finish
