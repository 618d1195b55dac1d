#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# outputs-are-image.sh - issue 36: a run whose outputs (-z, --manifest, digest's and sign's files)
# name the image, a file it reads or each other, or whose inputs name the image it writes, is
# refused before anything is touched: the same path, another path (./, ../), a symbolic link, a
# hard link, an undo directory whose file is a link to the image; raw and Android sparse images.
# Each refusal exits with the usage status (check: 16), names both files and the rule, and leaves
# the image byte for byte and the directory as it was (no file made, removed or changed).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src w
printf 'hello\n' >src/a
printf 'other\n' >src/b
mkimg w/img src 16M -b 4096 -O verity || exit 1
"$E2VERITY" seal -q w/img /a || fail "sealing /a"
cp w/img pristine
cd w || exit 1
ln -s img img.lnk
ln img img.hard
mkdir undodir
ln -s ../img undodir/e2verity-img.e2undo
printf '/b\n' >list
printf 'k\n' >k
: >m

# listing: every file here with its inode, links, size and times, to see that nothing was touched
listing()
{
	ls -ldn --time-style=+%s.%N .
	ls -lAnR --time-style=+%s.%N .
}

# refused NAME STATUS PATTERN COMMAND...: exit STATUS, PATTERN in the message, the image as it
# was, nothing here made, removed or changed
refused()
{
	rf_name=$1 rf_status=$2 rf_pattern=$3
	shift 3
	listing >"$T_TMP/before"
	expect_fail "$rf_name" "$rf_status" "$rf_pattern" "$@"
	cmp -s img ../pristine || {
		fail "$rf_name: the image changed"
		cp ../pristine img
	}
	listing >"$T_TMP/after"
	cmp -s "$T_TMP/before" "$T_TMP/after" ||
		fail "$rf_name: files changed: $(diff "$T_TMP/before" "$T_TMP/after" | tr '\n' ' ')"
	[ "$(grep -c . "$T_TMP/err")" -eq 1 ] ||
		fail "$rf_name: $(grep -c . "$T_TMP/err") lines, want 1: $(cat "$T_TMP/err")"
}

same="One file is named for two uses while checking"
img_rule="; an output may not be the image$"

# ---- the undo file: seal, unseal, check -p and -y ----------------------------------------------
for c in "seal:2:/b" "unseal:2:/a" "check -p:16:/a" "check -y:16:/a"; do
	cmd=${c%%:*} st=${c#*:} p=${st#*:} st=${st%%:*}
	# shellcheck disable=SC2086 # $cmd is a command and its option
	{
		refused "$cmd -z IMG" "$st" \
			"^e2verity: $same the undo file (-z) 'img': it is also the image 'img'$img_rule" \
			"$E2VERITY" $cmd -z img img $p
		refused "$cmd -z ./IMG" "$st" \
			"$same the undo file (-z) './img': it is another path to the image 'img'$img_rule" \
			"$E2VERITY" $cmd -z ./img img $p
		refused "$cmd -z ../DIR/IMG" "$st" \
			"$same the undo file (-z) '../w/img': it is another path to the image 'img'" \
			"$E2VERITY" $cmd -z ../w/img img $p
		refused "$cmd -z SYMLINK" "$st" \
			"$same the undo file (-z) 'img.lnk': it is a symbolic link to the image 'img'$img_rule" \
			"$E2VERITY" $cmd -z img.lnk img $p
		refused "$cmd -z HARDLINK" "$st" \
			"$same the undo file (-z) 'img.hard': it is a hard link to the image 'img'$img_rule" \
			"$E2VERITY" $cmd -z img.hard img $p
		refused "$cmd -z IMG, the image given as a link" "$st" \
			"$same the undo file (-z) 'img': the image 'img.lnk' is a symbolic link to it" \
			"$E2VERITY" $cmd -z img img.lnk $p
		refused "$cmd -z DIR whose undo file is a link to the image" "$st" \
			"$same the undo file (-z) 'undodir/e2verity-img.e2undo': it is a symbolic link to the image 'img'" \
			"$E2VERITY" $cmd -z undodir img $p
	}
done
refused "seal -z DIR IMG?offset=0: the undo file named after the file, a link to it" 2 \
	"$same the undo file (-z) 'undodir/e2verity-img.e2undo': it is a symbolic link to the image 'img'" \
	"$E2VERITY" seal -z undodir 'img?offset=0' /b
refused "check -y -z M --manifest=M" 16 \
	"$same the undo file (-z) 'm': it is also the manifest (--manifest) 'm'; an output may not be a file the run reads$" \
	"$E2VERITY" check -y -z m --manifest=m img
refused "unseal --files-from=L -z L" 2 \
	"$same the undo file (-z) 'list': it is also the file list (--files-from) 'list'" \
	"$E2VERITY" unseal --files-from=list -z list img

# ---- the manifest seal writes, in a run that writes and in a dry run -----------------------------
for n in "" "-n"; do
	# shellcheck disable=SC2086 # $n is one option or none
	{
		refused "seal $n --manifest=IMG" 2 \
			"$same the manifest (--manifest) 'img': it is also the image 'img'$img_rule" \
			"$E2VERITY" seal $n --manifest=img img /b
		refused "seal $n --manifest=./IMG" 2 \
			"$same the manifest (--manifest) './img': it is another path to the image 'img'" \
			"$E2VERITY" seal $n --manifest=./img img /b
		refused "seal $n --manifest=SYMLINK" 2 \
			"$same the manifest (--manifest) 'img.lnk': it is a symbolic link to the image 'img'" \
			"$E2VERITY" seal $n --manifest=img.lnk img /b
		refused "seal $n --manifest=HARDLINK" 2 \
			"$same the manifest (--manifest) 'img.hard': it is a hard link to the image 'img'" \
			"$E2VERITY" seal $n --manifest=img.hard img /b
		refused "seal $n --manifest=L --files-from=L" 2 \
			"$same the manifest (--manifest) 'list': it is also the file list (--files-from) 'list'; an output may not be a file the run reads$" \
			"$E2VERITY" seal $n --manifest=list --files-from=list img
	}
done

# ---- two outputs, one file: the same name, a dangling link to a file not made yet --------------
refused "seal -z OUT --manifest=OUT" 2 \
	"$same the manifest (--manifest) 'out': it is also the undo file (-z) 'out'; two outputs may not be one file$" \
	"$E2VERITY" seal -z out --manifest=out img /b
ln -s out out.lnk
refused "seal -z OUT --manifest=LINK-TO-OUT (OUT not made yet)" 2 \
	"$same the manifest (--manifest) 'out.lnk': it is a symbolic link to the undo file (-z) 'out'" \
	"$E2VERITY" seal -z out --manifest=out.lnk img /b
rm out.lnk
refused "seal -z M --manifest=../w/M (M exists)" 2 \
	"$same the manifest (--manifest) '../w/m': it is another path to the undo file (-z) 'm'" \
	"$E2VERITY" seal -z m --manifest=../w/m img /b
refused "digest --out-merkle-tree=X --out-descriptor=X" 2 \
	"$same the descriptor file (--out-descriptor) 'x': it is also the Merkle tree file (--out-merkle-tree) 'x'; two outputs may not be one file$" \
	"$E2VERITY" digest --out-merkle-tree=x --out-descriptor=x ../src/a

# ---- outputs over the files read: the file signed, the file hashed, the key --------------------
refused "sign FILE FILE" 2 \
	"$same the signature file 'k': it is also the file signed 'k'; an output may not be a file the run reads$" \
	"$E2VERITY" sign k k --key=k.pem
refused "sign FILE LINK-TO-FILE" 2 \
	"$same the signature file 'img.lnk': it is a symbolic link to the file signed 'img'" \
	"$E2VERITY" sign img img.lnk --key=k.pem
refused "digest --out-merkle-tree=FILE FILE" 2 \
	"$same the Merkle tree file (--out-merkle-tree) 'img.hard': it is a hard link to the file hashed 'img'" \
	"$E2VERITY" digest --out-merkle-tree=img.hard img
refused "seal --key=K --manifest=K" 2 \
	"$same the manifest (--manifest) 'k': it is also the key (--key) 'k'" \
	"$E2VERITY" seal --key=k --manifest=k img /b

# ---- inputs read while the image is written ---------------------------------------------------
refused "seal --files-from=IMG" 2 \
	"$same the file list (--files-from) 'img': it is also the image 'img'; what the run reads may not be the image it writes$" \
	"$E2VERITY" seal --files-from=img img
refused "unseal --files-from=SYMLINK" 2 \
	"$same the file list (--files-from) 'img.lnk': it is a symbolic link to the image 'img'" \
	"$E2VERITY" unseal --files-from=img.lnk img
refused "seal --signatures-from=HARDLINK" 2 \
	"$same the signatures (--signatures-from) 'img.hard': it is a hard link to the image 'img'" \
	"$E2VERITY" seal --signatures-from=img.hard img /b
refused "seal --ima-signatures-from=IMG" 2 \
	"$same the security.ima values (--ima-signatures-from) './img': it is another path to the image 'img'" \
	"$E2VERITY" seal --ima-signatures-from=./img img /b
refused "check -y --manifest=IMG" 16 \
	"$same the manifest (--manifest) 'img': it is also the image 'img'; what the run reads may not be the image it writes$" \
	"$E2VERITY" check -y --manifest=img img
refused "check -p --manifest=SYMLINK" 16 \
	"$same the manifest (--manifest) 'img.lnk': it is a symbolic link to the image 'img'" \
	"$E2VERITY" check -p --manifest=img.lnk img

# ---- what stays allowed: nothing of it is lost -------------------------------------------------
"$E2VERITY" seal -q -n --files-from=list --files-from=list img >/dev/null 2>&1
check "a list named twice, in a dry run: read twice, allowed" test $? -eq 0
"$E2VERITY" digest --out-merkle-tree=/dev/null --out-descriptor=/dev/null ../src/a >/dev/null
check "digest: both outputs /dev/null (a stream, nothing replaced): allowed" test $? -eq 0
mkdir undo2
with_undo "$E2VERITY" seal -q -z undo2 img /b 2>/dev/null
check "seal -z DIR beside the image: allowed, sealed" test $? -eq 0
check "... its undo file is a file of its own" test -f undo2/e2verity-img.e2undo
check "... e2fsck clean" fsck_clean img
e2undo undo2/e2verity-img.e2undo img >/dev/null 2>&1
check "... and e2undo puts the image back" cmp -s img ../pristine
check "the links are still links to the image" sh -c 'test -L img.lnk && test img.hard -ef img'

# ---- an Android sparse image: its outputs are refused the same way ------------------------------
if command -v img2simg >/dev/null 2>&1; then
	img2simg ../pristine s.simg || fail "img2simg"
	cp s.simg ../s.pristine
	ln -s s.simg s.lnk
	ln s.simg s.hard
	for o in s.simg ./s.simg s.lnk s.hard; do
		listing >"$T_TMP/before"
		expect_fail "sparse: seal --manifest=$o" 2 \
			"$same the manifest (--manifest) '$o': .* the image 's.simg'$img_rule" \
			"$E2VERITY" seal --manifest=$o s.simg /b
		listing >"$T_TMP/after"
		check "sparse: seal --manifest=$o: the image as it was" cmp -s s.simg ../s.pristine
		check "sparse: seal --manifest=$o: nothing else touched" \
			cmp -s "$T_TMP/before" "$T_TMP/after"
		expect_fail "sparse: seal -z $o" 2 \
			"$same the undo file (-z) '$o': .* the image 's.simg'$img_rule" \
			"$E2VERITY" seal -z $o s.simg /b
		check "sparse: seal -z $o: the image as it was" cmp -s s.simg ../s.pristine
	done
	expect_fail "sparse: seal -n --manifest=LINK, the image given as a link" 2 \
		"$same the manifest (--manifest) 's.simg': the image 's.lnk' is a symbolic link to it" \
		"$E2VERITY" seal -n --manifest=s.simg s.lnk /b
	check "... the image as it was" cmp -s s.simg ../s.pristine
else
	echo "note: no img2simg here; the sparse images are not tried" >&2
fi
finish
