#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# deb.sh - build the Debian packages, install them, use them as a user would, remove them
#
# The packages are built from a copy of the source tree, so the tree under test stays as it is,
# with their own test run: PACKAGE_TESTS of tests/Makemodule.am (not the whole suite again), in
# the environment dpkg-buildpackage makes, SOURCE_DATE_EPOCH set; lintian must report no error.  Installed with dpkg, the
# command seals and checks the bundled sample (fsverity digest and e2fsck are the oracles),
# and a program is built against the library through pkg-config.  The packages are removed
# again whatever happens.  Needs root, as dpkg does.
. "${top_srcdir:-.}/tests/lib.sh"
# what is tested here is the installed library: the suite's LD_LIBRARY_PATH (the tree's lib/.libs,
# perhaps a sanitizer build) must not reach the installed programs nor the package build
unset LD_LIBRARY_PATH
require_cmd dpkg-buildpackage dh lintian dpkg pkg-config cc fsverity mke2fs e2fsck flock bash
[ -z "${E2VERITY_IN_PACKAGE_BUILD:-}" ] || skip "inside the package build itself (debian/rules)"
[ "$(id -u)" -eq 0 ] || skip "installing packages needs root"
PKGS="e2verity libe2verity0 libe2verity-dev"
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' &&
		skip "$p is installed already; this test would remove it"
done

T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/e2verity-pkg.XXXXXX") || exit 1
installed=
cleanup()
{
	[ -n "$installed" ] && dpkg --purge $PKGS >"$T_TMP/purge.log" 2>&1
	rm -rf "$T_TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# one run at a time on this machine: dpkg is shared
exec 9>"${TMPDIR:-/tmp}/e2verity-pkg-test.lock"
flock 9

# the source tree: what git tracks (with edits not yet committed), else a fresh dist tree
src=$T_TMP/e2verity
mkdir "$src"
if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		cpio -0 -pdm --quiet "$src") || { echo "copying the source tree failed" >&2; exit 1; }
else
	make -C "$top_builddir" distdir distdir="$src" >"$T_TMP/dist.log" 2>&1 ||
		{ cat "$T_TMP/dist.log" >&2; exit 1; }
fi

tests=$(sed -n 's/^PACKAGE_TESTS = //p' "$top_srcdir/tests/Makemodule.am")
[ -n "$tests" ] || fail "no PACKAGE_TESTS in tests/Makemodule.am"
start=$(date +%s)
# a build of its own: nothing of this make's command line (TESTS=...) or job server goes along
(cd "$src" && unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES &&
	E2VERITY_TESTS=$tests DEB_BUILD_OPTIONS="noautodbgsym parallel=$(nproc)" \
		dpkg-buildpackage -us -uc -b) >"$T_TMP/build.log" 2>&1
status=$?
echo "dpkg-buildpackage, with $(echo $tests | wc -w) tests: $(($(date +%s) - start)) s"
if [ $status -ne 0 ]; then
	tail -n 60 "$T_TMP/build.log" >&2
	grep -q 'some symbols or patterns disappeared' "$T_TMP/build.log" &&
		echo "A symbol of debian/libe2verity0.symbols is gone: that is an ABI break (see README, 'Library')." >&2
	fail "dpkg-buildpackage -us -uc -b"
	finish
fi
pass "dpkg-buildpackage -us -uc -b"
# the tests ran there, each of them, and with SOURCE_DATE_EPOCH set
for t in $tests; do
	grep -q "^PASS: $t\$" "$T_TMP/build.log" || fail "the package build did not pass $t"
done
[ "$T_FAILED" -eq 0 ] || grep -E 'dh_auto_test|make.*check|^(PASS|FAIL|SKIP|ERROR)|SOURCE_DATE' \
	"$T_TMP/build.log" | head -n 40 >&2
grep -q 'SOURCE_DATE_EPOCH=[0-9]' "$T_TMP/build.log" ||
	fail "the package build's tests ran without SOURCE_DATE_EPOCH"
changes=$(ls "$T_TMP"/e2verity_*.changes)

start=$(date +%s)
if lintian --fail-on error "$changes" >"$T_TMP/lintian.log" 2>&1; then
	pass "lintian: no errors"
else
	fail "lintian: $(cat "$T_TMP/lintian.log")"
fi
echo "lintian: $(($(date +%s) - start)) s"

debs=
for p in $PKGS; do
	debs="$debs $(ls "$T_TMP/${p}_"*.deb)"
done
installed=yes
if dpkg -i $debs >"$T_TMP/install.log" 2>&1; then
	pass "dpkg -i"
else
	fail "dpkg -i: $(cat "$T_TMP/install.log")"
	finish
fi

# the installed command on the sample of scripts/demo.sh
e2v=/usr/bin/e2verity
img=$T_TMP/sample.img
sh "$top_srcdir/images/make-sample-image.sh" "$img" >/dev/null || fail "make-sample-image.sh"
check "installed e2verity --version" "$e2v" --version
check "installed e2verity seal -a" "$e2v" seal -q -a "$img"
check "installed e2verity check" "$e2v" check "$img"
check "e2fsck -fn after seal" e2fsck -fn "$img"
"$e2v" measure "$img" --all | LC_ALL=C sort >"$T_TMP/measured"
fsverity_lines "$top_srcdir/images/sample" . >"$T_TMP/want"
if [ -s "$T_TMP/want" ] && cmp -s "$T_TMP/measured" "$T_TMP/want"; then
	pass "measure --all = fsverity digest of the sample files"
else
	fail "measure --all differs from fsverity digest: $(diff "$T_TMP/want" "$T_TMP/measured")"
fi

for f in /usr/share/man/man8/e2verity.8.gz /usr/share/bash-completion/completions/e2verity; do
	[ -s "$f" ] && pass "$f" || fail "$f is not installed"
done
got=$(bash -c '. /usr/share/bash-completion/completions/e2verity
	COMP_WORDS=(e2verity "$1" "$2" /h); COMP_CWORD=3; _e2verity; echo "${COMPREPLY[*]}"' \
	x check "$img")
[ "$got" = "/hello.txt" ] && pass "installed completion" || fail "installed completion gave '$got'"

# a program built against the installed library
# shellcheck disable=SC2046 # the flags are separate words
if cc -Wall -o "$T_TMP/use-lib" "$top_srcdir/tests/pkg/use-lib.c" \
	$(pkg-config --cflags e2verity) $(pkg-config --libs e2verity) 2>"$T_TMP/cc.log"; then
	pass "cc with pkg-config e2verity"
else
	fail "cc with pkg-config e2verity: $(cat "$T_TMP/cc.log")"
fi
if [ -x "$T_TMP/use-lib" ]; then
	ldd "$T_TMP/use-lib" | grep -E -q '=> (/usr)?/lib/[^ ]*/libe2verity\.so\.0 ' &&
		pass "linked to the installed libe2verity.so.0" ||
		fail "use-lib does not use the installed library: $(ldd "$T_TMP/use-lib")"
	want=$(fsverity digest "$top_srcdir/images/sample/hello.txt" | cut -d' ' -f1)
	got=$("$T_TMP/use-lib" digest "$top_srcdir/images/sample/hello.txt" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] && pass "library digest = fsverity digest" ||
		fail "library digest '$got', fsverity digest '$want'"
	got=$("$T_TMP/use-lib" measure "$img" /usr/share/doc/lines.txt | cut -d' ' -f1)
	want=$(fsverity digest "$top_srcdir/images/sample/usr/share/doc/lines.txt" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] && pass "library measure = fsverity digest" ||
		fail "library measure '$got', fsverity digest '$want'"
fi

if dpkg --purge $PKGS >"$T_TMP/purge.log" 2>&1 && ! [ -e "$e2v" ] &&
	! [ -e /usr/share/bash-completion/completions/e2verity ]; then
	installed=
	pass "dpkg --purge"
else
	fail "dpkg --purge: $(cat "$T_TMP/purge.log")"
fi
finish
