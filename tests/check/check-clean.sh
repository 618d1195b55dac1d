#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-clean.sh - check passes intact images sealed by fsverity-utils + debugfs; measure equals
# `fsverity digest`; read-only commands leave the image byte for byte unchanged
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
cd "$T_TMP" || exit 1

make_sample img src || { fail "building the sample image"; finish; }
check "e2fsck -fn passes the oracle-built image" fsck_clean img
sum_before=$(sha256sum <img)

# a 1 KiB-block image: 1 KiB Merkle blocks, and SHA-512 with a salt
mke2fs -q -F -t ext4 -b 1024 -O verity img1k 16M >/dev/null
mkdir src1k
make_data src1k/k1 300000
make_data src1k/k2 70000
printf 'k1 --block-size=1024\nk2 --hash-alg=sha512 --block-size=1024 --salt=%s\n' "$SALT" \
	>src1k/list
seal_list img1k src1k || fail "sealing the 1K image"
check "e2fsck -fn passes the 1K image" fsck_clean img1k
sum1k_before=$(sha256sum <img1k)

for im in img img1k; do
	d=src
	[ $im = img1k ] && d=src1k
	n=$(wc -l <$d/list)
	"$E2VERITY" check $im >out 2>err
	st=$?
	check "$im: check exits 0" test $st -eq 0
	check "$im: only the summary line" test "$(wc -l <out)" -eq 1
	check "$im: summary counts" grep -q "^$im: $n files checked, $n passed, 0 failed, 0 skipped" out
	check "$im: nothing on stderr" test ! -s err

	# -v: every file with the digest fsverity-utils computes; a file with tree blocks or on a
	# filesystem of blocks smaller than 4096 (the page size) says Linux before 6.3 cannot read it
	while read -r line; do
		list_entry "$line"
		# shellcheck disable=SC2086
		dig=$(oracle_digest "$d/$_h" $_opts)
		case "$im $_opts" in
		img1k* | *--block-size=1024* | *--block-size=2048*) note=" (Linux 6.3 or later)" ;;
		*) note= ;;
		esac
		echo "ok $dig /$_n$note"
	done <$d/list | sort >want
	"$E2VERITY" check -v -j 2 $im | grep -v 'files checked' | sort >got
	check "$im: check -v lists each file with fsverity's digest" cmp want got
	"$E2VERITY" check -v -j 1 $im | grep -v 'files checked' | sort >got1
	check "$im: -j 1 gives the same" cmp want got1

	# measure, by path and --all
	expected_lines $d | sort >want
	"$E2VERITY" measure --all $im | sort >got
	check "$im: measure --all equals fsverity digest" cmp want got
	while read -r line; do
		path=${line#* }
		check "$im: measure $path" test "$("$E2VERITY" measure $im "$path")" = "$line"
	done <want
done

# the paths given to check are the ones printed
"$E2VERITY" check -v img /a "/dir/sub/nested file" >out
check "check PATH... checks only those" grep -q '^img: 2 files checked, 2 passed' out
check "check PATH names a path with a space" grep -q '^ok sha256:.* /dir/sub/nested file$' out

# JSON documents parse and carry the same digests
if command -v python3 >/dev/null 2>&1; then
	"$E2VERITY" check --json -v img >check.json
	check "check --json exit 0" test $? -eq 0
	python3 - check.json src <<'EOF' || fail "check --json content"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["summary"]["failed"] == 0 and doc["summary"]["passed"] == 7, doc["summary"]
assert doc["exit_status"] == 0
paths = sorted(f["path"] for f in doc["files"])
assert "/dir/sub/nested file" in paths and all(f["status"] == "ok" for f in doc["files"])
assert all(f["findings"] == [] for f in doc["files"])
EOF
	"$E2VERITY" measure --json --all img >measure.json
	expected_lines src | sort >want
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    print(f["digest"], f["path"])' measure.json | sort >got
	check "measure --json equals fsverity digest" cmp want got
else
	echo "python3 not found: JSON parsing not checked" >&2
fi

# a file that is not sealed, a missing one, bad usage
expect_fail "measure of an unsealed file" 1 "File is not sealed with fs-verity while measuring '/plain'" \
	"$E2VERITY" measure img /plain
expect_fail "measure of a missing file" 1 "while looking up '/nope'" "$E2VERITY" measure img /nope
"$E2VERITY" check img /plain >out 2>&1
st=$?
check "check of an unsealed path exits 4" test $st -eq 4
check "check of an unsealed path says NOT_SEALED" grep -q '^/plain (inode [0-9]*): error NOT_SEALED' out
expect_fail "check of a missing path exits 8" 8 "while looking up '/nope'" "$E2VERITY" check img /nope
expect_fail "check of a missing image exits 8" 8 "while opening 'no-such.img'" \
	"$E2VERITY" check no-such.img
expect_fail "check without an image exits 16" 16 "no IMAGE given" "$E2VERITY" check
expect_fail "check with a relative path exits 16" 16 "not an absolute path" "$E2VERITY" check img a
# --ca alone takes the signer's certificate from each signature (tests/image/seal-chain.sh): no
# usage error; the CA is read even though this image has no signed file, and a wrong one is named
expect_fail "check --ca=x: the file is named" 8 "^e2verity: No such file or directory while loading 'x'\$" \
	"$E2VERITY" check --ca=x img
self_signed ca.key ca.crt
"$E2VERITY" check --ca=ca.crt img >/dev/null 2>&1
check "check --ca without --cert is no usage error" test $? -eq 0
expect_fail "measure without PATH" 2 "no PATH given" "$E2VERITY" measure img
expect_fail "measure --all with PATH" 2 "exclude each other" "$E2VERITY" measure --all img /a

check "check/measure left the image unchanged" test "$(sha256sum <img)" = "$sum_before"
check "check/measure left the 1K image unchanged" test "$(sha256sum <img1k)" = "$sum1k_before"
finish
