#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# names.sh - every name a command prints, on standard output and in messages, is escaped the one
# way (\\ \n \t \xHH, trailing spaces too), decodes to the bytes of a name the source tree has,
# and keeps to one line; --files-from reads the same escapes back; JSON carries the bytes; paths
# typed with "..", a trailing '/', a directory or a symlink are named as what they are
#
# Oracles: the source directory's names, read by python3 from the file system; fsverity digest
# of each source file; e2fsck -fn.
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd mke2fs e2fsck debugfs python3 fsverity dd
t_tmpdir
cd "$T_TMP" || exit 1

python3 - <<'EOF'
import os
names = [b'tab\tthere', b'new\nline.txt', b'back\\slash', b'caf\xe9', b'trail ', b'two trail  ',
         b'cr\r', b'c1\xc2\x9bx', b'looks\\x41like', b'paren (1)', b'plain', b'caf\xc3\xa9',
         b'del\x7f']
os.makedirs(b'src/weird/nl\ndir')
for i, n in enumerate(names):
    open(b'src/weird/' + n, 'wb').write(b'data %d\n' % i)
open(b'src/weird/nl\ndir/f', 'wb').write(b'in a directory with a newline in its name\n')
os.link(b'src/weird/plain', b'src/weird/hard')
os.symlink(b'plain', b'src/weird/link')
EOF
mke2fs -q -F -t ext4 -b 4096 -d src img 16M >/dev/null 2>&1 || fail "mke2fs -d"
cp img base

# esc.py: the decoding of an escaped name (the man page's rules, written here again)
cat >esc.py <<'EOF'
def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        if s[i:i+1] != b'\\':
            out += s[i:i+1]; i += 1; continue
        c = s[i+1:i+2]
        if c == b'x':
            out.append(int(s[i+2:i+4], 16)); i += 4
        else:
            out += {b'\\': b'\\', b'n': b'\n', b't': b'\t'}[c]; i += 2
    return bytes(out)
EOF
# decode.py MODE FILE: the names in FILE's lines (MODE: how a line holds its name), decoded,
# each line checked to hold nothing raw that an escape stands for; prints them as hex, sorted
cat >decode.py <<'EOF'
import re, sys
mode, path = sys.argv[1], sys.argv[2]
pats = {
    'digest': rb'(?:sha256:)?[0-9a-f]+ (/.*)',             # manifest, measure
    'dry':    rb'(?:seal|and) (/.*) \([^()]*\)',            # seal -n
    'checkv': rb'ok sha256:[0-9a-f]+ (/.*)',                # check -v
    'skip':   rb"e2verity: '(/.*)' is already sealed with these parameters; skipped",
    'finding': rb'(/.*) \(inode [0-9]+\): error [A-Z_]+: .*',
}
from esc import unescape
names = []
for line in open(path, 'rb').read().split(b'\n')[:-1]:
    m = re.fullmatch(pats[mode], line)
    if not m:
        if mode == 'dry' and re.fullmatch(rb'[0-9]+ files?, .*', line):
            continue
        sys.exit('a line that is not a %s line: %r' % (mode, line))
    esc = m.group(1)
    text = esc.decode('utf-8')  # valid UTF-8: every other byte is escaped
    assert not re.search(r'[\x00-\x1f\x7f-\x9f]', text), esc     # no control character left
    assert not esc.endswith(b' '), esc                           # a trailing space is escaped
    names.append(unescape(esc))
for n in sorted(names):
    print(n.hex())
EOF
# tree.py ALL|FILES: the names of the regular files of src as hex, sorted (ALL: every name)
cat >tree.py <<'EOF'
import os, sys
seen, out = set(), []
for d, dirs, files in os.walk(b'src'):
    for f in sorted(files):
        p = os.path.join(d, f)
        if os.path.islink(p):
            continue
        ino = os.stat(p).st_ino
        if sys.argv[1] == 'ALL' or ino not in seen:
            out.append(p[3:])
        seen.add(ino)
for n in sorted(out):
    print(n.hex())
EOF
python3 tree.py ALL >all.hex
python3 tree.py FILES >files.hex
check "the source tree has 15 names, 14 files" sh -c 'test "$(wc -l <all.hex)" -eq 15 && test "$(wc -l <files.hex)" -eq 14'

# decoded NAME MODE FILE WANT: FILE's names, decoded, are exactly those of WANT
decoded()
{
	if ! python3 decode.py "$2" "$3" >got.hex 2>err; then
		fail "$1: $(cat err)"
	elif ! cmp -s got.hex "$4"; then
		fail "$1: names differ: $(diff "$4" got.hex | head -5)"
	else
		pass "$1"
	fi
}

# seal -n: one line per name (a hard link's other name on its own "and" line)
"$E2VERITY" seal -n -a img >dry.out || fail "seal -n -a: exit $?"
decoded "seal -n lists every name, escaped" dry dry.out all.hex
check "seal -n: the hard link's other name" grep -qx 'and /weird/plain (another name of the same file)' dry.out

# the manifest and measure: every name, and the digest fsverity gives the source file
"$E2VERITY" seal -q -a --manifest=m.txt img || fail "seal -a: exit $?"
decoded "manifest names" digest m.txt all.hex
"$E2VERITY" measure --all img >measure.out || fail "measure --all: exit $?"
check "measure --all = the manifest" cmp -s measure.out m.txt
cat >digests.py <<'EOF'
import subprocess, sys
from esc import unescape
for line in open(sys.argv[1], 'rb').read().split(b'\n')[:-1]:
    dg, esc = line.split(b' ', 1)
    want = subprocess.run([b'fsverity', b'digest', b'src' + unescape(esc)], check=True,
                          capture_output=True).stdout.split(b' ', 1)[0]
    assert want == dg, (esc, want, dg)
EOF
check "manifest digests = fsverity digest of the sources" python3 digests.py m.txt

# check -v: one line per file, under one of its names
"$E2VERITY" check -v img >checkv.out || fail "check -v: exit $?"
grep -v ' files checked, ' checkv.out >checkv.files
python3 decode.py checkv checkv.files >got.hex 2>err || fail "check -v lines: $(cat err)"
check "check -v: one line per file, names of the tree" sh -c \
	'test "$(wc -l <got.hex)" -eq 14 && test -z "$(LC_ALL=C comm -23 got.hex all.hex)"'

# check --json: the name as a JSON string, and its bytes in hex when it is not UTF-8
"$E2VERITY" check -v --json img >check.json || fail "check --json: exit $?"
python3 - check.json all.hex <<'EOF' || fail "check --json: names"
import json, sys
files = json.load(open(sys.argv[1]))["files"]
want = {bytes.fromhex(l) for l in open(sys.argv[2]).read().split()}
got = [bytes.fromhex(f["path_hex"]) if "path_hex" in f else f["path"].encode() for f in files]
assert len(got) == 14 and set(got) <= want, got
hexed = [bytes.fromhex(f["path_hex"]) for f in files if "path_hex" in f]
assert hexed == [b"/weird/caf\xe9"], hexed
EOF
pass "check --json: path_hex for the name that is not UTF-8"

# messages: a name on stderr is escaped the same way, one line per message
"$E2VERITY" seal -v -a img >/dev/null 2>skip.err || fail "sealing again -v: exit $?"
decoded "seal -v: each skipped name, escaped" skip skip.err files.hex
"$E2VERITY" measure img "$(printf '/weird/miss\ning')" >/dev/null 2>miss.err
check "a missing name: one line, escaped" sh -c "test \"\$(wc -l <miss.err)\" -eq 1 &&
	grep -qxF \"e2verity: No such file or directory while looking up '/weird/miss\\\\ning' in 'img'\" miss.err"

# a finding about a file whose name has a newline stays on one line
ino=$(debugfs -R 'ls -l /weird' img 2>/dev/null | awk '/ new\\x0aline\.txt$/ { print $1 }')
blk=$(debugfs -R "bmap <$ino> 0" img 2>/dev/null)
[ -n "$blk" ] && printf X | dd of=img bs=1 seek=$((blk * 4096 + 2)) conv=notrunc status=none
"$E2VERITY" check img >bad.out
check "a damaged file: exit 4" test $? -eq 4
grep -v ' files checked, ' bad.out >bad.findings
python3 -c 'print(b"/weird/new\nline.txt".hex())' >one.hex
decoded "a finding: one line, the name escaped" finding bad.findings one.hex
check "a one-block file's damaged data is DATA_MISMATCH" grep -q ' error DATA_MISMATCH: data block 0 ' \
	bad.findings

# --files-from: the lines of a manifest, names as printed, read back to the same files
cp base img2
sed 's/^[^ ]* //' m.txt >list.txt
"$E2VERITY" seal -q --files-from=list.txt --manifest=m2.txt img2 || fail "--files-from: exit $?"
check "--files-from reads escaped names back" cmp -s m.txt m2.txt
cp base img3
printf '/weird/plain\n/weird/back\\slash\n' >raw.list
expect_fail "--files-from: a backslash that is not an escape" 1 \
	"line 2, byte 12: a backslash that starts none of" "$E2VERITY" seal --files-from=raw.list img3
check "--files-from refused: image unchanged" cmp -s img3 base
printf '/weird/back\\slash\0' >raw.list0
"$E2VERITY" seal -q -0 --files-from=raw.list0 img3 || fail "-0 --files-from: exit $?"
check "-0 --files-from: names as they are" sh -c "'$E2VERITY' measure img3 '/weird/back\\slash' | grep -q 'back.*slash'"

# every byte a name can hold, in one name: bash's printf %b (an oracle for the decoding) gives
# back the bytes from seal -n's line, and --files-from takes the line back to the file
require_cmd bash
python3 -c '
import os
os.makedirs(b"all/d")
open(b"all/d/" + bytes(b for b in range(1, 256) if b != 0x2f) + b" ", "wb").write(b"x")'
mke2fs -q -F -t ext4 -b 4096 -d all allimg 8M >/dev/null 2>&1 || fail "mke2fs -d all"
"$E2VERITY" seal -n -a allimg >all.out || fail "seal -n -a allimg: exit $?"
sed -n 's/^seal \(.*\) ([^()]*)$/\1/p' all.out >all.line
bash -c 'IFS= read -r l <all.line; printf "%b" "$l"' >all.decoded
python3 -c 'import sys; sys.stdout.buffer.write(b"/d/" + bytes(b for b in range(1, 256) if b != 0x2f) + b" ")' >all.want
check "every byte: one line, decoded by bash's printf %b to the name" sh -c \
	'test "$(wc -l <all.line)" -eq 1 && cmp -s all.decoded all.want'
check "every byte: the line is printable UTF-8" python3 -c '
import re, sys
t = open("all.line", "rb").read().decode("utf-8")
assert not re.search(r"[\x00-\x1f\x7f-\x9f]", t.rstrip("\n")), t'
"$E2VERITY" seal -q --files-from=all.line --manifest=all.m allimg || fail "--files-from all.line: exit $?"
check "every byte: --files-from reads the line back" sh -c 'sed "s/^[^ ]* //" all.m | cmp -s - all.line'

# paths as typed: ".." resolved as written, a trailing '/' only on a directory, what a
# directory or a link is named as
cp base img4
"$E2VERITY" seal img4 /weird/../weird/./plain >dots.out 2>&1 || fail "seal with '..': exit $?"
check "'..' and '.': the path printed is normalised" grep -qx 'sha256:[0-9a-f]* /weird/plain' dots.out
"$E2VERITY" measure img4 /nowhere/../weird/plain >dots.out || fail "measure with '..': exit $?"
check "measure: '..' normalised" grep -qx 'sha256:[0-9a-f]* /weird/plain' dots.out
expect_fail "seal /file/" 1 "^e2verity: Not a directory while looking up '/weird/plain/' in 'img4'$" \
	"$E2VERITY" seal img4 /weird/plain/
expect_fail "measure /file/" 1 "Not a directory while looking up '/weird/plain/'" \
	"$E2VERITY" measure img4 /weird/plain/
expect_fail "check /file/" 8 "Not a directory while looking up '/weird/plain/'" \
	"$E2VERITY" check img4 /weird/plain/
expect_fail "measure /symlink" 1 "Not a regular file while measuring '/weird/link' (a symbolic link" \
	"$E2VERITY" measure img4 /weird/link
expect_fail "measure /dir" 1 "Is a directory while measuring '/weird'" "$E2VERITY" measure img4 /weird
expect_fail "seal /symlink" 1 "Not a regular file while checking '/weird/link' (a symbolic link" \
	"$E2VERITY" seal img4 /weird/link
expect_fail "check /dir" 8 "Is a directory while checking '/weird' (-r checks the files under a directory)" \
	"$E2VERITY" check img4 /weird
"$E2VERITY" check -r img4 /weird/ >r.out 2>r.err
check "check -r /dir/: exit 0" test $? -eq 0
check "check -r: the sealed files under it (one here)" grep -q '^img4: 1 file checked, 1 passed' r.out
"$E2VERITY" check -r img /weird >r.out 2>r.err
check "check -r: every sealed file under it" grep -q '^img: 14 files checked, 13 passed, 1 failed' r.out
finish
