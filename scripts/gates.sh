#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# gates.sh - the static gates CI runs before the tests; any finding fails the run
#
# Usage: sh scripts/gates.sh [GATE...]     (default: every gate, in this order)
#   format       clang-format --dry-run -Werror over every tracked .c and .h
#   "shellcheck" shellcheck -S warning over every shell script of the tree
#   cppcheck     cppcheck --enable=warning,portability over lib/, src/ and tests/
#   scan-build   clang's static analyzer through a build of the tree (scan-build --status-bugs)
#   cxx-headers  the public headers compiled as C++ (their extern "C" blocks)
# A finding that is not a defect is suppressed at its line, with the reason (HACKING.md says how).
# Work files go to $TMPDIR/e2verity-gates-N, one for each source tree (E2V_GATES_DIR); the tree
# itself is only read.
set -u
cd "$(dirname "$0")/.." || exit 2
# shellcheck disable=SC2034 # the source tree, for the gates that build a copy of it
src=$PWD
# one a source tree: two trees checked at once must not share it
work=${E2V_GATES_DIR:-${TMPDIR:-/tmp}/e2verity-gates-$(printf %s "$src" | cksum | cut -d' ' -f1)}
rm -rf "$work"
mkdir -p "$work"

# the sources git tracks, or every file when the tree is not a git checkout (a tarball)
tracked()
{
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -- "$@"
	else
		for p in "$@"; do
			find . -path "./$p" -type f | sed 's|^\./||'
		done
	fi
}

gate_format()
{
	# shellcheck disable=SC2046 # file names without spaces, by the tree's convention
	clang-format --dry-run -Werror $(tracked '*.c' '*.h')
}

# the tracked shell scripts that carry their shell in a shebang or a "shell" directive: every
# *.sh, and any other file whose first line is a sh or bash shebang (.ci/run; debian/ too)
shell_scripts()
{
	tracked '*.sh'
	tracked '*' | while IFS= read -r sc_f; do
		case $sc_f in *.sh) ;; *) [ ! -f "$sc_f" ] || printf '%s\0' "$sc_f" ;; esac
	done | xargs -0 -r awk 'FNR == 1 {
		if ($0 ~ /^#!(\/usr\/bin\/env[ \t]+|\/usr\/bin\/|\/bin\/)(ba|da)?sh([ \t]|$)/)
			print FILENAME
		nextfile
	}'
}

gate_shellcheck()
{
	sc_rc=0
	# one invocation over them all: shellcheck reads what a script sources from the files it is
	# given, so a script checked apart from its library warns of the variables the library reads
	shell_scripts | tr '\n' '\0' | xargs -0 -r shellcheck -S warning -f gcc || sc_rc=1
	# the check-case recipes: sh fragments without a shebang, sourced by tests/check/case.sh after
	# tests/lib.sh, tests/check/check-lib.sh and tests/check/cases-lib.sh.  -e SC2154: the
	# variables they read are set by those scripts (top_srcdir, T_TMP...).  -e SC1113,SC2096: a
	# recipe begins with its comment, and one that begins "# /path" is not a mistyped shebang.
	tracked 'tests/check/cases/*/recipe' | tr '\n' '\0' |
		xargs -0 -r shellcheck -S warning -f gcc -s sh -e SC1113,SC2096,SC2154 || sc_rc=1
	# the bash completion, sourced by bash-completion: no shebang
	tracked completion/e2verity | tr '\n' '\0' |
		xargs -0 -r shellcheck -S warning -f gcc -s bash || sc_rc=1
	return $sc_rc
}

# A copy of the tracked sources in $1, for the gates that configure and build: the tree itself
# is only read, and a configured tree cannot be the source of another (VPATH) build.
gate_copy()
{
	mkdir -p "$1" || return 1
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -z | tar --null -T - -cf - | (cd "$1" && tar xf -)
	else
		tar cf - --exclude='*.o' --exclude='*.lo' --exclude=.libs . | (cd "$1" && tar xf -) &&
			(cd "$1" && { [ ! -f Makefile ] || make distclean >/dev/null; })
	fi
}

# The com_err header the build generates (lib/e2verity_err.h), made alone into $1: the public
# headers include it, and cppcheck needs its codes
gate_err_header()
{
	mkdir -p "$1" && (cd "$1" && compile_et "$src/lib/e2verity_err.et")
}

gate_cppcheck()
{
	gate_err_header "$work/cppcheck" || return 1
	# no -D: cppcheck checks each configuration of the #ifdefs (x86 or not, blkid or not) itself;
	# posix and openssl: what leaks if not closed or freed
	# shellcheck disable=SC2046 # file names without spaces, by the tree's convention
	cppcheck --enable=warning,portability --error-exitcode=1 --inline-suppr --quiet --std=c11 \
		--library=posix --library=openssl -j"$(nproc)" \
		--template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
		-I lib -I src -I "$work/cppcheck" \
		$(tracked 'lib/*.c' 'src/*.c' 'tests/*.c' 'doc/examples/*.c')
}

# The reports of scan-build's runs, one line each (file:line: bug [function]), each once; fails
# when there is one.  The HTML pages under $work/scan-report show each path.
gate_scan_reports()
{
	for r in "$work"/scan-report/*/report-*.html; do
		[ -f "$r" ] || continue
		printf '%s:%s: %s [%s]\n' \
			"$(sed -n 's/^<!-- BUGFILE \(.*\) -->$/\1/p' "$r")" \
			"$(sed -n 's/^<!-- BUGLINE \(.*\) -->$/\1/p' "$r")" \
			"$(sed -n 's/^<!-- BUGDESC \(.*\) -->$/\1/p' "$r")" \
			"$(sed -n 's/^<!-- FUNCTIONNAME \(.*\) -->$/\1/p' "$r")"
	done | sed "s|^$work/scan-build/||" | sort -u >"$work/scan-reports.txt"
	[ -s "$work/scan-reports.txt" ] || return 0
	echo "scan-build: $(wc -l <"$work/scan-reports.txt") reports" >&2
	cat "$work/scan-reports.txt" >&2
	return 1
}

gate_scan_build()
{
	d=$work/scan-build
	gate_copy "$d" || return 1
	(
		cd "$d" || exit 1
		{ ./autogen.sh || autoreconf -fi; } >autogen.log 2>&1 ||
			{ tail -n 30 autogen.log >&2; exit 1; }
		# -O0: scan-build runs the compiler too, and what it makes is only linked, never run; the
		# analyzer does not optimize
		scan-build ./configure CFLAGS="-g0 -O0" >configure.log 2>&1 ||
			{ tail -n 30 configure.log >&2; exit 1; }
		# the library and command, then the check programs, the example and the helpers;
		# the reports of every step are counted at the end, a build failure stops the gate
		scan-build -o "$work/scan-report" make -j"$(nproc)" >build.log 2>&1 ||
			{ tail -n 30 build.log >&2; exit 1; }
		scan-build -o "$work/scan-report" make -j"$(nproc)" check TESTS= >check.log 2>&1 ||
			{ tail -n 30 check.log >&2; exit 1; }
		# what make builds elsewhere: the fuzz harnesses (tests/fuzz/fuzz.sh) and the package
		# test's program (tests/pkg/deb.sh), compiled alone
		for f in tests/fuzz/fuzz_descriptor.c tests/fuzz/fuzz_signature.c \
			tests/fuzz/fuzz_image.c tests/pkg/use-lib.c; do
			# shellcheck disable=SC2046 # pkg-config's flags are words
			scan-build -o "$work/scan-report" cc -c -I. -Ilib -Isrc -DCLI_FAULT_IO \
				$(pkg-config --cflags ext2fs com_err libcrypto) "$f" \
				-o "$work/$(basename "$f" .c).o" >>alone.log 2>&1 ||
				{ tail -n 30 alone.log >&2; exit 1; }
		done
	) || return 1
	gate_scan_reports
}

gate_cxx_headers()
{
	d=$work/cxx-headers
	gate_err_header "$d" || return 1
	rc=0
	for h in lib/e2verity.h lib/e2verity_core.h; do
		for cxx in g++ clang++; do
			command -v $cxx >/dev/null || continue
			# shellcheck disable=SC2046 # pkg-config's flags are words
			$cxx -fsyntax-only -Wall -Wextra -Werror -x c++ -I"$d" \
				$(pkg-config --cflags ext2fs com_err libcrypto) "$h" || rc=1
		done
		# and each function it declares has C linkage: a C++ caller links to the library's
		# symbols, not to mangled names (a declaration outside the extern "C" block)
		n=$(basename "$h" .h)
		{
			printf '#include "%s"\ntypedef void (*e2v_cxx_fn)();\n' "$src/$h"
			printf 'extern e2v_cxx_fn e2v_cxx_%s[];\ne2v_cxx_fn e2v_cxx_%s[] = {\n' "$n" "$n"
			sed -n 's/^[a-z].*[ *]\(e2verity_[a-z0-9_]*\)(.*/\1/p' "$h" |
				sed 's/.*/\treinterpret_cast<e2v_cxx_fn>(\&&),/'
			printf '};\n'
		} >"$d/$n.cc"
		# shellcheck disable=SC2046 # pkg-config's flags are words
		g++ -c -Wall -Wextra -Werror -I"$d" $(pkg-config --cflags ext2fs com_err libcrypto) \
			"$d/$n.cc" -o "$d/$n.o" || { rc=1; continue; }
		if nm -u "$d/$n.o" | grep -q ' _Z'; then
			echo "$h: declared without C linkage:" >&2
			nm -uC "$d/$n.o" | grep '(' >&2
			rc=1
		fi
	done
	return $rc
}

[ $# -gt 0 ] || set -- format shellcheck cppcheck scan-build cxx-headers
failed=
for g in "$@"; do
	start=$(date +%s)
	case $g in
	format) gate_format ;;
	shellcheck) gate_shellcheck ;;
	cppcheck) gate_cppcheck ;;
	scan-build) gate_scan_build ;;
	cxx-headers) gate_cxx_headers ;;
	*) echo "gates: unknown gate $g" >&2; exit 2 ;;
	esac
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "gate $g: passed ($(($(date +%s) - start)) s)"
	else
		echo "gate $g: FAILED ($(($(date +%s) - start)) s)"
		failed="$failed $g"
	fi
done
[ -z "$failed" ] || { echo "gates failed:$failed" >&2; exit 1; }
exit 0
