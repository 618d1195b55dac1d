#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# completion.sh - the bash completion offers commands, options, values and paths inside an image
#
# Sources completion/e2verity in bash, sets COMP_WORDS/COMP_CWORD as bash would and checks
# COMPREPLY.  The expected paths come from the directory the image was made of (mke2fs -d).
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd bash mke2fs
t_tmpdir

img=$T_TMP/img
mke2fs -q -F -t ext4 -b 4096 -d "$top_srcdir/images/sample" "$img" 8M >/dev/null 2>&1 ||
	{ echo "mke2fs -d failed" >&2; exit 1; }
"$E2VERITY" seal -q "$img" /hello.txt || { echo "seal failed" >&2; exit 1; }

# comp WORD...: the COMPREPLY for the command line WORD... (the last word is completed),
# one element a line; "=" is passed as bash splits it, as a word of its own
comp()
{
	bash -c '
		. "$0"
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_e2verity
		printf "%s\n" "${COMPREPLY[@]}"
	' "$top_srcdir/completion/e2verity" "$E2VERITY" "$@" | LC_ALL=C sort
}

# has NAME WANT WORD...: every line of WANT is among the completions
has()
{
	h_name=$1 h_want=$2
	shift 2
	comp "$@" >"$T_TMP/got"
	printf '%s\n' "$h_want" | LC_ALL=C sort >"$T_TMP/want"
	missing=$(LC_ALL=C comm -23 "$T_TMP/want" "$T_TMP/got")
	if [ -n "$missing" ]; then
		fail "$h_name: missing $(echo $missing); got: $(tr '\n' ' ' <"$T_TMP/got")"
	else
		pass "$h_name"
	fi
}

# is NAME WANT WORD...: the completions are exactly WANT
is()
{
	i_name=$1 i_want=$2
	shift 2
	got=$(comp "$@")
	want=$(printf '%s\n' "$i_want" | LC_ALL=C sort)
	[ "$got" = "$want" ] && pass "$i_name" || fail "$i_name: got '$got', want '$want'"
}

# commands: the list in "e2verity --help"
cmds=$("$E2VERITY" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z_]*\) .*/\1/p')
[ -n "$cmds" ] || fail "no commands in e2verity --help"
has "commands" "$cmds" ""
is "command prefix" "seal
sign" s

if "$E2VERITY" --help | grep -q 'help COMMAND'; then
	has "help is a command" "help" h
	is "help COMMAND" "seal
sign" help s
fi

# every option in each command's usage is offered after "-"
for c in $cmds; do
	opts=$("$E2VERITY" "$c" --help | grep -o -- '--[a-z0-9][a-z0-9-]*=\?' | sort -u)
	[ -n "$opts" ] && has "$c options" "$opts" "$c" -
done
has "seal short options" "-a
-n
-r
-z" seal -

# values: hash algorithms, with the '=' split off by bash or not
is "hash-alg after =" "sha256
sha512" seal --hash-alg = ""
is "hash-alg prefix after =" "sha512" seal --hash-alg = sha5
is "hash-alg unsplit" "--hash-alg=sha512" digest --hash-alg=sha5
is "block size" "4096" seal --block-size = 4
is "block size: seal, the kernel's" "" seal --block-size = 5
is "block size: digest, fsverity digest's" "64
65536" digest --block-size = 6
is "block size: sign, fsverity digest's" "128" sign --block-size = 12
is "pass phrase source" "env:" sign --key-pass = en
is "threads: no guess" "" check -j ""
is "dump types" "descriptor
ima
merkle_tree
signature" dump "$img" /hello.txt ""

# host files for IMAGE and for file options
mkdir "$T_TMP/host"
: >"$T_TMP/host/image.img"
is "IMAGE is a host file" "$T_TMP/host/image.img" seal "$T_TMP/host/im"
is "-z UNDO_FILE is a host file" "$T_TMP/host/image.img" seal -z "$T_TMP/host/im"
is "--key= is a host file" "$T_TMP/host/image.img" seal --key = "$T_TMP/host/im"
is "sign --digests-from= is a host file" "$T_TMP/host/image.img" sign --digests-from = "$T_TMP/host/im"
is "sign -j: no guess" "" sign --digests-from=m -j ""
is "sign SIGDIR is a host file" "$T_TMP/host/image.img" sign --digests-from=m "$T_TMP/host/im"

# paths inside the image, one component at a time; seal offers every file, the others the sealed ones
is "seal: root" "/" seal "$img" ""
is "seal: first component" "/dir\\ with\\ spaces/" seal -v "$img" /di
is "seal: escaped spaces" "/dir\\ with\\ spaces/note\\ about\\ spaces.txt" seal "$img" "/dir\\ with\\ spaces/"
is "seal: after an option with a value" "/usr/" seal -z "$T_TMP/undo" "$img" /u
want=$(cd "$top_srcdir/images/sample" && find . -maxdepth 1 -mindepth 1 | sed 's#^\.##; s# #\\ #g' |
	while read -r p; do [ -d "$top_srcdir/images/sample$(echo "$p" | sed 's#\\##g')" ] && echo "$p/" || echo "$p"; done)
is "seal: top level of the image" "$want" seal "$img" /
is "unseal: sealed files only" "/hello.txt" unseal "$img" /
is "check: sealed files only" "/hello.txt" check -j 2 "$img" /h
is "dump: path" "/hello.txt" dump "$img" /
is "dump: nothing after the type" "" dump "$img" /hello.txt descriptor ""
is "not an image: nothing" "" measure "$T_TMP/none" /

# names that need quoting: each completion, read back by the shell, is a name of the image
# (the oracle: the directory mke2fs -d made it of); every name of a hard link is offered
require_cmd python3
python3 - "$T_TMP/weird" <<'EOF'
import os, sys
d = sys.argv[1].encode()
os.makedirs(d + b'/w/nl\ndir')
for n in [b'tab\tthere', b'new\nline.txt', b'back\\slash', b'caf\xe9', b'trail ', b'cr\r',
          b'paren (1)', b'plain', b'looks\\x41like']:
    open(d + b'/w/' + n, 'wb').write(n)
open(d + b'/w/nl\ndir/f', 'wb').write(b'f')
os.link(d + b'/w/plain', d + b'/w/hard')
EOF
wimg=$T_TMP/wimg
mke2fs -q -F -t ext4 -b 4096 -d "$T_TMP/weird" "$wimg" 8M >/dev/null 2>&1 || fail "mke2fs -d weird"
# read_back WORD...: each completion as the shell reads it, in hex, sorted
read_back()
{
	comp "$@" | bash -c 'while IFS= read -r w; do eval "x=$w"; printf %s "$x" | od -An -tx1 | tr -d " \n"; echo; done' |
		LC_ALL=C sort
}
(cd "$T_TMP/weird" && find w -mindepth 1 -maxdepth 1 -print0) | python3 -c '
import os, sys
for n in sorted(sys.stdin.buffer.read().split(b"\0")[:-1]):
    print((b"/" + n + (b"/" if os.path.isdir(b"'"$T_TMP"'/weird/" + n) else b"")).hex())' |
	LC_ALL=C sort >"$T_TMP/want.hex"
read_back seal "$wimg" /w/ >"$T_TMP/got.hex"
if cmp -s "$T_TMP/want.hex" "$T_TMP/got.hex"; then
	pass "seal: every name of the image, read back exactly"
else
	fail "seal: names read back differ: $(diff "$T_TMP/want.hex" "$T_TMP/got.hex" | tr '\n' ' ')"
fi
printf '/w/tab\tthere' | od -An -tx1 | tr -d ' \n' >"$T_TMP/want.hex"
echo >>"$T_TMP/want.hex"
read_back seal "$wimg" "'/w/ta" >"$T_TMP/got.hex"
check "a quoted word, still open, completes to the name" cmp -s "$T_TMP/want.hex" "$T_TMP/got.hex"
is "into a directory with a newline in its name" "\$'/w/nl\\ndir/f'" seal "$wimg" "\$'/w/nl\\ndir/"
"$E2VERITY" seal -q -a "$wimg" || fail "seal -a weird"
read_back check "$wimg" /w/ >"$T_TMP/got.hex"
(cd "$T_TMP/weird" && find w -mindepth 1 -maxdepth 1 -print0) | python3 -c '
import os, sys
for n in sorted(sys.stdin.buffer.read().split(b"\0")[:-1]):
    print((b"/" + n + (b"/" if os.path.isdir(b"'"$T_TMP"'/weird/" + n) else b"")).hex())' |
	LC_ALL=C sort >"$T_TMP/want.hex"
check "check: every sealed name, read back exactly" cmp -s "$T_TMP/want.hex" "$T_TMP/got.hex"

finish
