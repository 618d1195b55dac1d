#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# errors.sh - one table of mistakes: the same mistake gets the same message and exit status in
# every command (check's statuses are fsck's: 16 for usage, 8 for an operational error), and no
# failure changes the image
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs gzip cmp
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p src/dir adir
printf 'hello\n' >src/good
printf 'other\n' >src/dir/f
mke2fs -q -F -t ext4 -b 4096 -O verity -d src img 16M >/dev/null 2>&1 || fail "mke2fs"
"$E2VERITY" seal -q img /good || fail "sealing /good"
mke2fs -q -F -t ext4 -b 1024 -O verity -d src img1k 16M >/dev/null 2>&1 || fail "mke2fs 1k"
head -c 1048576 /dev/zero >junk
printf 'short' >tiny
gzip -c img >img.gz
printf '/good\n/dir/f\0\n' >nul.list
cp img pristine

# STATUS | PATTERN (grep, on stderr) | COMMAND LINE (split on spaces)
# The commands that take IMAGE PATH are listed for every mistake they can make.
while IFS='|' read -r status pattern args; do
	case $status in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086 # the command line is split on purpose
	expect_fail "e2verity $args" "$status" "$pattern" "$E2VERITY" $args
	# one form for every message: "e2verity: ..." (com_err's), never "e2verity seal:" or "seal:"
	head -n 1 "$T_TMP/err" | grep -q '^e2verity: ' ||
		fail "e2verity $args: the message does not start with 'e2verity: ': $(head -n 1 "$T_TMP/err")"
	cmp -s img pristine || {
		fail "e2verity $args: the image changed"
		cp pristine img
	}
done <<'EOF'
# a path inside the image that is not absolute: a usage error
2|'rel' is not an absolute path inside the image (paths start with '/')|seal img rel
2|'rel' is not an absolute path inside the image (paths start with '/')|unseal img rel
16|'rel' is not an absolute path inside the image (paths start with '/')|check img rel
2|'rel' is not an absolute path inside the image (paths start with '/')|measure img rel
2|'rel' is not an absolute path inside the image (paths start with '/')|dump img rel descriptor
2|'rel' is not an absolute path inside the image (paths start with '/')|dump img descriptor rel
# a path that does not exist in the image
1|^e2verity: No such file or directory while looking up '/missing' in 'img'$|seal img /missing
1|^e2verity: No such file or directory while looking up '/missing' in 'img'$|unseal img /missing
8|^e2verity: No such file or directory while looking up '/missing' in 'img'$|check img /missing
8|^e2verity: No such file or directory while looking up '/missing' in 'img'$|check img /good /missing
1|^e2verity: No such file or directory while looking up '/missing' in 'img'$|measure img /missing
1|^e2verity: No such file or directory while looking up '/missing' in 'img'$|dump img /missing descriptor
1|^e2verity: Not a directory while looking up '/good/x' in 'img'$|measure img /good/x
# a missing image
1|^e2verity: No such file or directory while opening 'nope.img'$|seal nope.img /good
1|^e2verity: No such file or directory while opening 'nope.img'$|unseal nope.img /good
8|^e2verity: No such file or directory while opening 'nope.img'$|check nope.img
1|^e2verity: No such file or directory while opening 'nope.img'$|measure nope.img /good
1|^e2verity: No such file or directory while opening 'nope.img'$|dump nope.img /good descriptor
# a directory named as the image
1|^e2verity: Is a directory while opening 'adir'$|seal adir /good
1|^e2verity: Is a directory while opening 'adir'$|unseal adir /good
8|^e2verity: Is a directory while opening 'adir'$|check adir
1|^e2verity: Is a directory while opening 'adir'$|measure adir /good
1|^e2verity: Is a directory while opening 'adir'$|dump adir /good descriptor
# a file that is not an ext4 image
1|^e2verity: 'junk' is not an ext4 filesystem image$|seal junk /good
1|^e2verity: 'junk' is not an ext4 filesystem image$|unseal junk /good
8|^e2verity: 'junk' is not an ext4 filesystem image$|check junk
1|^e2verity: 'junk' is not an ext4 filesystem image$|measure junk /good
1|^e2verity: 'junk' is not an ext4 filesystem image$|dump junk /good descriptor
1|^e2verity: 'tiny' is too short for an ext4 filesystem image$|seal tiny /good
8|^e2verity: 'tiny' is too short for an ext4 filesystem image$|check tiny
1|^e2verity: 'tiny' is too short for an ext4 filesystem image$|measure tiny /good
# a compressed image
1|while opening 'img.gz' (it is gzip-compressed: decompress it first)$|seal img.gz /good
1|while opening 'img.gz' (it is gzip-compressed: decompress it first)$|unseal img.gz /good
8|while opening 'img.gz' (it is gzip-compressed: decompress it first)$|check img.gz
1|while opening 'img.gz' (it is gzip-compressed: decompress it first)$|measure img.gz /good
1|while opening 'img.gz' (it is gzip-compressed: decompress it first)$|dump img.gz /good descriptor
# no image at all
2|^e2verity: no IMAGE given$|seal
2|no IMAGE given|unseal
16|no IMAGE given|check
2|no IMAGE given|measure
# an option that takes a value, given twice
2|^e2verity: option '--hash-alg' given twice$|seal --hash-alg=sha256 --hash-alg=sha512 img /good
2|option '--salt' given twice|digest --salt=00 --salt=11 src/good
2|option '-j/--threads' given twice|seal -j 1 --threads=2 img /good
16|option '-j/--threads' given twice|check -j 1 -j 2 img
16|option '--cert' given twice|check --cert=a --cert=b img
2|option '--offset' given twice|dump --offset=1 --offset=2 img /good descriptor
2|option '--block-size' given twice|sign --block-size=4096 --block-size=1024 src/good sig
# an unknown option: getopt's message, with the prefix of every other message
2|^e2verity: unrecognized option '--bogus'$|seal --bogus img /good
2|^e2verity: unrecognized option '--bogus'$|unseal --bogus img /good
16|^e2verity: unrecognized option '--bogus'$|check --bogus img
2|^e2verity: unrecognized option '--bogus'$|measure --bogus img /good
2|^e2verity: unrecognized option '--bogus'$|dump --bogus img /good descriptor
2|^e2verity: unrecognized option '--bogus'$|digest --bogus src/good
2|^e2verity: invalid option -- 'Q'$|seal -Q img /good
# check -a: e2fsck's old -p, but "all files" to seal and measure: refused, never a write
16|^e2verity: -a is not an option of check: -p repairs what is safe unattended, the default -n only reads; check always checks every sealed file$|check -a img
16|^e2verity: -a is not an option of check|check -n -a img
# a bad thread count
2|^e2verity: invalid thread count '0' (1 to 64)$|seal -j 0 img /good
2|^e2verity: invalid thread count '65' (1 to 64)$|seal -j 65 img /good
16|^e2verity: invalid thread count '0' (1 to 64)$|check -j 0 img
# too many operands
2|^e2verity: too many operands: 'extra' after FILE and OUT_SIGFILE$|sign src/good sig extra --key=k
2|^e2verity: too many operands: 'extra' after IMAGE, PATH and the type$|dump img /good descriptor extra
# io options that are not e2fsprogs': a usage error, before anything is opened
16|^e2verity: invalid IMAGE 'img?offset=abc' (invalid offset 'abc')$|check img?offset=abc
2|^e2verity: invalid IMAGE 'img?offset=abc' (invalid offset 'abc')$|seal img?offset=abc /good
2|^e2verity: invalid IMAGE 'img?size=1' (unknown io option 'size=1'|measure img?size=1 /good
2|^e2verity: invalid IMAGE 'img?offset=abc'|dump img?offset=abc /good descriptor
# a directory inside the image without -r
1|Is a directory while checking '/dir' (-r seals the files under a directory)|seal img /dir
1|Is a directory while checking '/dir' (-r unseals the files under a directory)|unseal img /dir
# a NUL byte in a line list: an error, never a name cut short
1|line 2 has a NUL byte (-0 reads a list of NUL-terminated names|seal --files-from=nul.list img
1|line 2 has a NUL byte (-0 reads a list of NUL-terminated names|unseal --files-from=nul.list img
# a certificate, key, CA or signature source that cannot be read: named, and read before the image
# (nope.img does not exist; img has no signed file, which once made check pass without a word)
8|^e2verity: No such file or directory while loading 'missing.crt'$|check --cert=missing.crt img
8|^e2verity: No such file or directory while loading 'missing.crt'$|check --cert=missing.crt nope.img
8|^e2verity: No such file or directory while loading 'missing.crt'$|check --ca=missing.crt img
8|^e2verity: Is a directory while loading 'adir'$|check --cert=adir img
8|^e2verity: Cannot load the certificate while loading 'junk'$|check --cert=junk img
8|^e2verity: Cannot load the CA certificates while loading 'junk'$|check --ca=junk img
1|^e2verity: No such file or directory while loading 'missing.key'$|seal --key=missing.key nope.img /good
1|^e2verity: No such file or directory while loading 'missing.crt'$|seal --signatures-from=adir --cert=missing.crt nope.img /good
1|^e2verity: No such file or directory while loading 'missing.crt'$|seal --signatures-from=adir --ca=missing.crt nope.img /good
1|^e2verity: No such file or directory while reading signatures from 'nodir'$|seal --signatures-from=nodir nope.img /good
1|^e2verity: Not a directory while reading signatures from 'junk'$|seal --signatures-from=junk nope.img /good
1|^e2verity: No such file or directory while reading signatures from 'no.sig'$|seal --signature=no.sig nope.img /good
1|^e2verity: Is a directory while reading signatures from 'adir'$|seal --signature=adir nope.img /good
# 4096-byte Merkle blocks on a 1 KiB-block filesystem: the way out is named
1|(--block-size=1024 works with Linux 6.3 and later)$|seal img1k /good
# 8192-byte ones on a 4 KiB-block filesystem: 4096 works with every kernel
1|(--block-size=4096 works with every kernel)$|seal --block-size=8192 img /good
# a Merkle block size no kernel reads: refused by seal, taken by digest and sign as by fsverity
# digest, down to two hashes a block
2|^e2verity: invalid block size '512': must be a power of 2 from 1024 to 65536$|seal --block-size=512 img /good
2|^e2verity: invalid block size '131072': must be a power of 2 from 1024 to 65536$|seal --block-size=131072 img /good
2|^e2verity: invalid block size '32': too small for sha256, at least 64$|digest --block-size=32 src/good
2|^e2verity: invalid block size '64': too small for sha512, at least 128$|sign --hash-alg=sha512 --block-size=64 --key=k src/good sig
2|^e2verity: invalid block size '3000': must be a power of 2 up to 1073741824$|digest --block-size=3000 src/good
EOF

# a mounted image, where a loop mount is possible
mkdir mnt
if [ "$(id -u)" -eq 0 ] && mount -o loop,ro img mnt 2>/dev/null; then
	for c in seal unseal; do
		expect_fail "$c of a mounted image" 1 \
			"^e2verity: Filesystem is mounted while opening 'img' for writing$" \
			"$E2VERITY" $c img /good
	done
	umount mnt
else
	echo "note: no loop mount here; the mounted-image case is not exercised" >&2
fi

# help: the same for every command, whichever way it is asked
for c in digest sign seal check measure dump unseal; do
	"$E2VERITY" help $c >help.out 2>&1 || fail "help $c: exit $?"
	"$E2VERITY" $c --help >dash.out 2>&1 || fail "$c --help: exit $?"
	"$E2VERITY" $c -h >h.out 2>&1 || fail "$c -h: exit $?"
	check "help $c = $c --help = $c -h" sh -c 'cmp -s help.out dash.out && cmp -s help.out h.out'
	check "help $c shows its usage" grep -q "^Usage: e2verity $c " help.out
done
expect_fail "help of an unknown command" 2 "unknown command 'nope'" "$E2VERITY" help nope
check "--version after a command" sh -c "'$E2VERITY' check --version | grep -q '^e2verity '"

# check IMG /good /missing: /good is still checked, and bit 8 is set
"$E2VERITY" check -v img /good /missing >out 2>err
check "check /good /missing: exit 8" test $? -eq 8
check "check /good /missing: /good is checked" grep -q '^ok sha256:[0-9a-f]* /good$' out
finish
