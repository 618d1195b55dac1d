#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# host-files.sh - what seal --manifest and sign write on the host: through a symbolic link (the
# link kept), into a device, a FIFO or a hard-linked file (written through, links kept), over a
# file whose mode, owner, group and extended attributes (ACLs) stay; a path that cannot be written
# refused before the image is touched; a write error after the seal said to leave the image sealed.
# Oracles: ls/stat, debugfs's inode flags, cmp, fsverity digest.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/image/image-lib.sh"
require_cmd fsverity mke2fs debugfs stat mkfifo
t_tmpdir
cd "$T_TMP" || exit 1

mkdir src o
seeded src/a 70000 31
seeded src/b 5000 32
mkimg base.img src 16M -b 4096
fsverity digest src/a | sed 's| src/a$| /a|' >want.a

# sealed IMG PATH: EXT4_VERITY_FL, as debugfs reads it
sealed()
{
	[ $(($(inode_flags "$1" "$2") & 0x100000)) -ne 0 ]
}
ino_of()
{
	stat -c %i "$1"
}
# no temporary file left beside what was written
no_leftovers()
{
	for nl_d in "$@"; do
		for nl_f in "$nl_d"/*e2verity-* "$nl_d"/.*e2verity-*; do
			if [ -e "$nl_f" ] || [ -L "$nl_f" ]; then
				return 1
			fi
		done
	done
}

# ---- a symbolic link: the file it points to gets the manifest, the link stays a link ----
cp base.img img
echo old >o/real
ln -s real o/link
"$E2VERITY" seal -q --manifest=o/link img /a
check "--manifest=LINK: exit 0" test $? -eq 0
check "--manifest=LINK: still a symbolic link to 'real'" \
	sh -c 'test -L o/link && test "$(readlink o/link)" = real'
check "--manifest=LINK: the target holds the manifest" cmp want.a o/real
ln -s ../o/new o/dangling
cp base.img img
"$E2VERITY" seal -q --manifest=o/dangling img /a
check "--manifest=DANGLING_LINK: the file it names is created" cmp want.a o/new
check "--manifest=DANGLING_LINK: still a link" test -L o/dangling
check "no temporary file left in o/" no_leftovers o

# ---- a hard-linked file: every name sees the new content, the inode is the same ----
echo old >o/h1
ln o/h1 o/h2
ino=$(ino_of o/h1)
cp base.img img
"$E2VERITY" seal -q --manifest=o/h2 img /a
check "--manifest=HARDLINK: exit 0" test $? -eq 0
check "--manifest=HARDLINK: the same inode" test "$(ino_of o/h2)" = "$ino"
check "--manifest=HARDLINK: both names hold the manifest" sh -c 'cmp -s want.a o/h1 && cmp -s want.a o/h2'
check "--manifest=HARDLINK: 2 links still" test "$(stat -c %h o/h1)" -eq 2

# ---- mode, owner, group and extended attributes are kept ----
echo old >o/private
chmod 600 o/private
[ "$(id -u)" -eq 0 ] && chown nobody o/private
python3 -c 'import os; os.setxattr("o/private", "user.note", b"kept")' 2>/dev/null && xattr=1
# a POSIX ACL (user::rw- user:1:r-- group::--- mask::r-- other::---), where the filesystem has them
python3 - <<'EOF' 2>/dev/null && acl=1
import os, struct
e = lambda tag, perm, i=0xffffffff: struct.pack('<HHI', tag, perm, i)
os.setxattr('o/private', 'system.posix_acl_access',
            struct.pack('<I', 2) + e(1, 6) + e(2, 4, 1) + e(4, 0) + e(0x10, 4) + e(0x20, 0))
EOF
before=$(stat -c '%a %U %G' o/private)
acl_before=$(python3 -c 'import os; print(os.getxattr("o/private", "system.posix_acl_access").hex())' 2>/dev/null)
cp base.img img
"$E2VERITY" seal -q --manifest=o/private img /a
check "--manifest over a private file: written" cmp want.a o/private
check "--manifest over a private file: mode, owner, group kept ($before)" \
	test "$(stat -c '%a %U %G' o/private)" = "$before"
[ -n "${xattr:-}" ] && check "--manifest over a file: its user.* attribute kept" \
	test "$(python3 -c 'import os; print(os.getxattr("o/private", "user.note").decode())')" = kept
[ -n "${acl:-}" ] && check "--manifest over a file: its ACL kept" \
	test "$(python3 -c 'import os; print(os.getxattr("o/private", "system.posix_acl_access").hex())')" = "$acl_before"
# a new file: the mode creat() gives it under the umask
cp base.img img
(umask 027 && "$E2VERITY" seal -q --manifest=o/fresh img /a)
check "--manifest=NEW: mode 640 under umask 027" test "$(stat -c %a o/fresh)" = 640

# a file writable to us in a directory that is not (someone else's, where the tests run as root):
# written in place, its owner kept
other_user
as_user=$AS_USER
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
	chmod 755 .
	mkdir shared
	echo old >shared/m && chmod 666 shared/m
	chmod 555 shared
	owner=$(stat -c %U shared/m)
	cp base.img img && chmod 666 img
	$as_user "$E2VERITY" seal -q --manifest=shared/m img /a
	check "a file writable in a directory that is not: written in place" cmp want.a shared/m
	check "... its owner kept" test "$(stat -c %U shared/m)" = "$owner"
	chmod 755 shared
fi

# ---- devices and FIFOs are written to, never replaced ----
cp base.img img
mkfifo o/fifo
timeout 30 cat o/fifo >fifo.got &
reader=$!
"$E2VERITY" seal -q --manifest=o/fifo img /a
check "--manifest=FIFO: exit 0" test $? -eq 0
wait $reader
check "--manifest=FIFO: the reader got the manifest" cmp want.a fifo.got
check "--manifest=FIFO: still a FIFO" test -p o/fifo
cp base.img img
"$E2VERITY" seal -q --manifest=/dev/null img /a
check "--manifest=/dev/null: exit 0, still a device" sh -c 'test $? -eq 0 && test -c /dev/null'
if [ -c /dev/full ]; then
	cp base.img img
	expect_fail "--manifest=/dev/full: the write error, and that the image is sealed" 1 \
		"No space left on device while writing the manifest '/dev/full'; the files are sealed in the image all the same" \
		"$E2VERITY" seal -q --manifest=/dev/full img /a
	check "--manifest=/dev/full: still a character device" test -c /dev/full
	check "--manifest=/dev/full: /a is sealed" sealed img /a
	cp base.img img
	"$E2VERITY" seal --manifest=- img /a >/dev/full 2>err
	check "--manifest=- >/dev/full: exit 1" test $? -eq 1
	check "--manifest=- >/dev/full: says the files are sealed" grep -q 'standard output; the files are sealed' err
	check "--manifest=- >/dev/full: /a is sealed" sealed img /a
	cp base.img img
	"$E2VERITY" seal -n img /a >/dev/full 2>err
	check "seal -n >/dev/full: exit 1" test $? -eq 1
	check "seal -n >/dev/full: the error said" grep -q 'No space left on device while writing to standard output' err
	check "seal -n: image unchanged" cmp -s img base.img
fi

# ---- a manifest that cannot be written is refused before the image is written ----
cp base.img img
expect_fail "--manifest=/nonexistent/m: refused" 1 "No such file or directory while writing the manifest '/nonexistent/m.txt'" \
	"$E2VERITY" seal -q --manifest=/nonexistent/m.txt img /a
check "--manifest=/nonexistent/m: image unchanged" cmp -s img base.img
mkdir o/dir
expect_fail "--manifest=DIRECTORY: refused" 1 "Is a directory while writing the manifest 'o/dir'" \
	"$E2VERITY" seal -q --manifest=o/dir img /a
check "--manifest=DIRECTORY: image unchanged" cmp -s img base.img

# ---- sign's signature file: through a link too ----
if command -v openssl >/dev/null; then
	self_signed key.pem cert.pem
	echo old >o/sig.real
	ln -s sig.real o/sig.link
	"$E2VERITY" sign --key=key.pem --cert=cert.pem src/a o/sig.link >/dev/null
	check "sign OUT=LINK: still a link" test -L o/sig.link
	fsverity sign --key=key.pem --cert=cert.pem src/a want.sig >/dev/null 2>&1
	check "sign OUT=LINK: the target holds fsverity sign's signature" cmp want.sig o/sig.real
	expect_fail "sign: an unwritable signature path is refused before hashing" 1 \
		"while writing the signature file '/nonexistent/s.sig'" \
		"$E2VERITY" sign --key=key.pem --cert=cert.pem src/a /nonexistent/s.sig
fi
check "no temporary file left anywhere" no_leftovers o shared .
finish
