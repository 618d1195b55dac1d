#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-manifest.sh - check --manifest: a build's image against the `fsverity digest` listing of its
# source tree is clean; each deviation made with debugfs (a file resealed with other content, one
# unsealed, one deleted, an unlisted one sealed) is found with its code and nothing else; a manifest
# with a bad line or a path twice is refused with the line; --require-sealed with a file left out
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir -p src/d src/skip
seeded src/a 300000 1
seeded src/b 5000 2
seeded src/d/c 70000 3
make_data src/empty 0
seeded src/skip/x 100 4
seeded newb 6000 5
seeded extra 7000 6
mkimg base.img src 32M -b 4096 || exit 1
"$E2VERITY" seal -q -a --manifest=seal.txt base.img || fail "seal -a"
"$E2VERITY" seal -q -n --manifest=seal.json --json base.img /a /b /d/c /empty /skip/x ||
	fail "seal -n --json"
# the build's manifest as fsverity-utils sees the source tree: the oracle, not e2verity
fsverity_lines src . >want.txt
LC_ALL=C sort seal.txt >seal.sorted
check "seal --manifest wrote what fsverity digest says of the sources" cmp want.txt seal.sorted
grep ' /a$' want.txt >line.a

# findings ARGS...: in $got "PATH ID" for each finding check prints, sorted; the exit status in $st
findings()
{
	"$E2VERITY" check "$@" >out 2>err
	st=$?
	got=$(sed -n 's/^\(.*\) (\(inode [0-9]*\|not in the image\)): \(error\|warning\) \([A-Z0-9_]*\): .*/\1 \4/p' out |
		LC_ALL=C sort)
}

findings --manifest=want.txt base.img
same "clean: no finding" "$got" ""
same "clean: exit 0" "$st" 0
check "clean: the summary counts the paths" grep -q '; manifest: 5 paths, 0 findings$' out
findings --manifest=seal.json base.img
same "clean, JSON manifest: no finding" "$got" ""
same "clean, JSON manifest: exit 0" "$st" 0
findings --manifest=- base.img <want.txt
same "clean, manifest on standard input: exit 0, no finding" "$st $got" "0 "
"$E2VERITY" check --json base.img >check.json
findings --manifest=check.json base.img
same "clean, check --json as the manifest: exit 0, no finding" "$st $got" "0 "
"$E2VERITY" seal -q -n --for-builtin-sig --manifest=builtin.txt base.img /a /b /d/c /empty /skip/x
findings --manifest=builtin.txt base.img
same "clean, --for-builtin-sig lines as the manifest: exit 0, no finding" "$st $got" "0 "

# a file resealed with other content: found by its digest, the one the oracle gives the new data
cp base.img dev.img
debugfs -w -f - dev.img >/dev/null 2>&1 <<EOF
rm /b
write newb /b
EOF
"$E2VERITY" seal -q dev.img /b || fail "seal of the new /b"
findings --manifest=want.txt dev.img
same "resealed with other content: MANIFEST_DIGEST alone" "$got" "/b MANIFEST_DIGEST"
same "resealed with other content: exit 4" "$st" 4
"$E2VERITY" check --json --manifest=want.txt dev.img >dev.json
newd=$(fsverity digest newb | sed 's/^sha256:\([0-9a-f]*\) .*/\1/')
oldd=$(fsverity digest src/b | sed 's/^sha256:\([0-9a-f]*\) .*/\1/')
check "JSON: the stored digest is fsverity's of the new data" grep -q "\"stored_hash\": \"$newd\"" dev.json
check "JSON: the expected digest is the manifest's" grep -q "\"expected_hash\": \"$oldd\"" dev.json

# a file unsealed (its verity flag cleared), one deleted, an unlisted one sealed
cp base.img dev.img
debugfs -w -R 'sif /a flags 0x80000' dev.img >/dev/null 2>&1
findings --manifest=want.txt dev.img
same "unsealed: MANIFEST_NOT_SEALED alone" "$got" "/a MANIFEST_NOT_SEALED"
same "unsealed: exit 4" "$st" 4
cp base.img dev.img
debugfs -w -R 'rm /d/c' dev.img >/dev/null 2>&1
findings --manifest=want.txt dev.img
same "deleted: MANIFEST_MISSING alone" "$got" "/d/c MANIFEST_MISSING"
same "deleted: exit 4" "$st" 4
check "deleted: said not to be in the image" grep -q '^/d/c (not in the image): error' out
cp base.img dev.img
debugfs -w -R 'write extra /e' dev.img >/dev/null 2>&1
"$E2VERITY" seal -q dev.img /e || fail "seal of /e"
findings --manifest=want.txt dev.img
same "an unlisted file sealed: MANIFEST_EXTRA alone" "$got" "/e MANIFEST_EXTRA"
same "an unlisted file sealed: exit 4" "$st" 4
findings --manifest=want.txt --manifest-extra=warn dev.img
same "--manifest-extra=warn: the finding, a warning" "$got" "/e MANIFEST_EXTRA"
same "--manifest-extra=warn: exit 0" "$st" 0
check "--manifest-extra=warn: printed as a warning" grep -q '^/e (inode [0-9]*): warning MANIFEST_EXTRA' out
findings --manifest=want.txt --manifest-extra=ignore dev.img
same "--manifest-extra=ignore: nothing, exit 0" "$st $got" "0 "
expect_fail "--manifest-extra=maybe" 16 "ignore, warn or error" \
	"$E2VERITY" check --manifest=want.txt --manifest-extra=maybe dev.img
expect_fail "--manifest-extra without --manifest" 16 "needs --manifest" \
	"$E2VERITY" check --manifest-extra=warn dev.img
expect_fail "--manifest with a PATH" 16 "no PATH with it" \
	"$E2VERITY" check --manifest=want.txt dev.img /a

# a hard link: every name of a sealed file must be listed, each on its own
cp base.img dev.img
debugfs -w -R 'ln /a /a2' dev.img >/dev/null 2>&1
debugfs -w -R 'sif /a links_count 2' dev.img >/dev/null 2>&1
findings --manifest=want.txt dev.img
same "a second name of a sealed file: MANIFEST_EXTRA for it alone" "$got" "/a2 MANIFEST_EXTRA"

# malformed manifests: refused whole, each bad line named with its code, nothing checked
bad()
{
	b_name=$1 b_line=$2 b_code=$3
	"$E2VERITY" check --manifest=bad.txt base.img >out 2>err
	b_st=$?
	if [ "$b_st" -ne 8 ]; then
		fail "$b_name: exit $b_st, want 8"
	elif ! grep -q "^e2verity: bad.txt: error $b_code: manifest line $b_line " err; then
		fail "$b_name: stderr lacks line $b_line with $b_code: $(cat err)"
	elif [ -s out ]; then
		fail "$b_name: something was checked: $(cat out)"
	else
		pass "$b_name"
	fi
}
{ head -n 2 want.txt; echo "sha256:zz /q"; tail -n +3 want.txt; } >bad.txt
bad "a digest that is not hex" 3 MANIFEST_MALFORMED
{ cat want.txt; echo "$(head -c 64 /dev/zero | tr '\0' 0)"; } >bad.txt
bad "a bare digest (a --compact line)" 6 MANIFEST_MALFORMED
{ cat want.txt; echo "md5:00112233445566778899aabbccddeeff /q"; } >bad.txt
bad "an unknown hash algorithm" 6 MANIFEST_MALFORMED
{ cat want.txt; sed 's# /a$# a#' line.a; } >bad.txt
bad "a relative path" 6 MANIFEST_MALFORMED
{ cat want.txt; sed 's# /a$# /d/../a#' line.a; } >bad.txt
bad "a path with .." 6 MANIFEST_MALFORMED
{ cat want.txt; sed 's# /a$# /a\\q#' line.a; } >bad.txt
bad "a backslash that starts no escape" 6 MANIFEST_MALFORMED
{ cat want.txt; printf 'sha256:%s /a\r\n' "$oldd"; } >bad.txt
bad "a carriage return" 6 MANIFEST_MALFORMED
{ cat line.a want.txt; } >bad.txt
dup=$(($(grep -n ' /a$' want.txt | cut -d: -f1) + 1))
bad "a path listed twice" $dup MANIFEST_DUPLICATE
check "a path listed twice: both lines named" \
	grep -q "line $dup lists a path that line 1 lists already" err
printf '{"files": [{"path": "/a", "digest": "sha256:%s"}], "files": []}\n' "$oldd" >bad.txt
bad "JSON: a member twice" 1 MANIFEST_MALFORMED
printf '{"files": [\n{"path": "/a", "digest": null}\n]}\n' >bad.txt
bad "JSON: a file without a digest" 2 MANIFEST_MALFORMED
printf '{"files": [\n{"path": "/a", "digest": "sha256:%s",\n' "$oldd" >bad.txt
bad "JSON: cut short" 3 MANIFEST_MALFORMED
printf '{"files": [{"path": "/a\\u0000b", "digest": "sha256:%s"}]}\n' "$oldd" >bad.txt
bad "JSON: a NUL in a path" 1 MANIFEST_MALFORMED
printf '{"files": [{"path": "/a", "digest": "sha256:%s", "block_size": 3000}]}\n' "$oldd" >bad.txt
bad "JSON: a block size that is no power of 2" 1 MANIFEST_MALFORMED
"$E2VERITY" check --json --manifest=bad.txt base.img >out.json 2>/dev/null
check "JSON output names the problem" grep -q '"id": "MANIFEST_MALFORMED"' out.json
check "JSON output: exit status 8" grep -q '"exit_status": 8' out.json
expect_fail "a manifest that cannot be read" 8 "while reading the manifest 'nosuch'" \
	"$E2VERITY" check --manifest=nosuch base.img

# --require-sealed: one file left out of the seal
mkimg req.img src 32M -b 4096 || exit 1
"$E2VERITY" seal -q req.img /a /d/c /empty /skip/x || fail "seal all but /b"
findings --require-sealed req.img
same "--require-sealed: the file left out, NOT_SEALED alone" "$got" "/b NOT_SEALED"
same "--require-sealed: exit 4" "$st" 4
check "--require-sealed: the summary counts it" grep -q '; 1 file not sealed$' out
findings --require-sealed --exclude=/b req.img
same "--require-sealed --exclude=/b: nothing, exit 0" "$st $got" "0 "
findings --require-sealed=/d --require-sealed=/skip req.img
same "--require-sealed=/d --require-sealed=/skip: nothing, exit 0" "$st $got" "0 "
findings --require-sealed=/b req.img
same "--require-sealed=/b: NOT_SEALED" "$got" "/b NOT_SEALED"
mkimg req2.img src 32M -b 4096 || exit 1
"$E2VERITY" seal -q req2.img /a /b /d/c /empty || fail "seal all but /skip/x"
findings --require-sealed --exclude='/skip/*' req2.img
same "--exclude=GLOB leaves a directory's files out" "$st $got" "0 "
findings --require-sealed --exclude=x req2.img
same "--exclude=NAME leaves a file of that name out" "$st $got" "0 "
findings --require-sealed req2.img
same "without --exclude: /skip/x" "$got" "/skip/x NOT_SEALED"
expect_fail "--exclude without --require-sealed" 16 "give --require-sealed" \
	"$E2VERITY" check --exclude=x req2.img
expect_fail "--require-sealed=relative" 16 "is not an absolute path" \
	"$E2VERITY" check --require-sealed=d req2.img
"$E2VERITY" check --require-sealed=/nosuch req2.img >out 2>err
same "--require-sealed=/nosuch: exit 8" $? 8
# with the manifest too, a listed unsealed file is said once, by the manifest
findings --require-sealed --manifest=want.txt req.img
same "--require-sealed with --manifest: said once" "$got" "/b MANIFEST_NOT_SEALED"
finish
