#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# manifest-names.sh - seal --manifest and measure --all: `fsverity digest` lines sorted by path, bare
# hex with --compact, JSON read by python3's json module; digests equal `fsverity digest` of the
# sources, every name of a hard-linked file listed, odd names (newline, tab, backslash, bytes that
# are not UTF-8) escaped in text and carried exactly in JSON; --files-from -0 takes such names
. "${top_srcdir:-.}/tests/lib.sh"
require_cmd fsverity mke2fs python3 find
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p src/dir/sub src/a-c
make_data src/dir/one 5000
make_data src/dir/sub/two 70000
make_data src/a-c/three 1
: >src/empty
ln src/dir/one src/dir/link-to-one
ln src/dir/one src/hard
printf 'newline' >"src/dir/new
line"
printf 'tab' >"src/tab	name"
printf 'backslash' >'src/back\slash'
printf 'looks escaped' >'src/back\x5cslash'
printf 'latin1' >"$(printf 'src/caf\351')"
printf 'utf8' >"$(printf 'src/caf\303\251')"
mke2fs -q -F -t ext4 -b 4096 -O verity -d src img 32M >/dev/null 2>&1 || fail "mke2fs -d"
cp img base

# the truth: fsverity digest of every source file, by its path inside the image
(cd src && find . -type f -print0) >list0
python3 - list0 >want.json <<'EOF'
import json, subprocess, sys
names = [n for n in open(sys.argv[1], 'rb').read().split(b'\0') if n]
out = {}
for n in names:
    d = subprocess.run([b'fsverity', b'digest', b'src/' + n[2:]], check=True,
                       capture_output=True).stdout.split(b' ', 1)[0].decode()
    out[(b'/' + n[2:]).hex()] = d
json.dump(out, sys.stdout)
EOF
check "fsverity digest of the sources" test -s want.json

# -0: the list of find -print0, names with newlines included
sed -z 's|^\./|/|' list0 >image-list0
"$E2VERITY" seal -q -0 --files-from=image-list0 --manifest=seal.txt img
check "seal -0 --files-from: exit 0" test $? -eq 0
"$E2VERITY" measure --all img >measure.txt
"$E2VERITY" measure --all --compact img >measure.compact
"$E2VERITY" measure --all --json img >measure.json
cp base img2
"$E2VERITY" seal -q -a --manifest=seal.json --json img2
"$E2VERITY" seal -q -a --manifest=seal.compact --compact img2 # sealed already: the same lines
check "seal --manifest = measure --all" cmp seal.txt measure.txt
check "seal --manifest --compact = measure --all --compact" cmp seal.compact measure.compact

cat >manifests.py <<'EOF'
import json, re, sys
want = {bytes.fromhex(k): v for k, v in json.load(open(sys.argv[1])).items()}
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
# the text form: one line per name, sorted by the bytes of the path, escapes that decode exactly
lines = open(sys.argv[2], 'rb').read().split(b'\n')
assert lines[-1] == b'' and all(lines[:-1]), "one line per file"
got = {}
for line in lines[:-1]:
    dg, esc = line.split(b' ', 1)
    assert re.fullmatch(rb'[\x21-\x7e]+', esc) or b'\xc3\xa9' in esc, esc  # nothing raw but UTF-8
    got[unescape(esc)] = dg.decode()
assert got == want, (sorted(set(got) ^ set(want)), [k for k in got if got.get(k) != want.get(k)])
paths = [unescape(l.split(b' ', 1)[1]) for l in lines[:-1]]
assert paths == sorted(paths), "sorted by bytes"
for name in (b'/dir/one', b'/dir/link-to-one', b'/hard'):
    assert name in got, name
# --compact: the bare hex, in the same order
compact = open(sys.argv[3]).read().split()
assert compact == [got[p].split(':')[1] for p in paths]
# JSON: every field, every name, the bytes of every name
for doc in (json.load(open(sys.argv[4])), json.load(open(sys.argv[5]))):
    files = doc["files"]
    names = [bytes.fromhex(f["path_hex"]) if "path_hex" in f else f["path"].encode() for f in files]
    assert names == paths, names
    for f, n in zip(files, names):
        assert f["digest"] == want[n]
        assert f["hash_algorithm"] == "sha256" and f["block_size"] == 4096 and f["salt"] == ""
        assert f["signed"] is False and isinstance(f["inode"], int) and isinstance(f["size"], int)
        if "path_hex" not in f:
            assert f["path"].encode() == n
    inodes = {f["inode"] for f in files if f["path"] in ("/dir/one", "/dir/link-to-one", "/hard")}
    assert len(inodes) == 1, "the three names are one inode"
    latin = [f for f in files if "path_hex" in f]
    assert len(latin) == 1 and bytes.fromhex(latin[0]["path_hex"]) == b'/caf\xe9'
EOF
check "manifests: digests, names, order, escapes, JSON fields" \
	python3 manifests.py want.json measure.txt measure.compact measure.json seal.json

# a NUL byte in a line list is an error, not a name cut short; nothing is sealed
cp base img3
printf '/dir/one\n/a-c/three\000/x\n' >nul.list
expect_fail "NUL in a line list" 1 "line 2 has a NUL byte" "$E2VERITY" seal --files-from=nul.list img3
check "NUL in a line list: image unchanged" cmp -s img3 base

# every name of a hard-linked file on the command line gets its digest line, sealed or skipped:
# the lines of fsverity digest given the same names
(cd src && fsverity digest dir/one dir/link-to-one hard) | sed 's# # /#' >hard.want
cp base img3
"$E2VERITY" seal img3 /dir/one /dir/link-to-one /hard >hard.got 2>/dev/null
check "seal of three names of one file: a line for each, fsverity digest's" cmp hard.want hard.got
"$E2VERITY" seal img3 /dir/one /dir/link-to-one /hard >hard.got 2>/dev/null
check "... and the same lines when it is sealed already" cmp hard.want hard.got
finish
