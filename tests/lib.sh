# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - helpers sourced by the shell tests (automake exit codes: 0 pass, 1 fail, 77 skip)

: "${E2VERITY:=${top_builddir:-.}/e2verity}"
T_FAILED=0
T_PASSED=0

skip()
{
	echo "SKIP: $*" >&2
	exit 77
}

require_cmd()
{
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "'$c' not found (scripts/install-deps.sh installs it)"
	done
}

# a private temporary directory, removed when the test exits
t_tmpdir()
{
	T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/e2verity-test.XXXXXX") || exit 1
	trap 'rm -rf "$T_TMP"' EXIT
}

fail()
{
	echo "FAIL: $*" >&2
	T_FAILED=$((T_FAILED + 1))
}

pass()
{
	T_PASSED=$((T_PASSED + 1))
	[ -n "$V" ] && echo "ok: $*"
	return 0
}

# check NAME COMMAND...: run a command that must succeed
check()
{
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# expect_fail NAME STATUS PATTERN COMMAND...: must exit STATUS with PATTERN on stderr
expect_fail()
{
	name=$1 want=$2 pattern=$3
	shift 3
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, want $want; stderr: $(cat "$T_TMP/err")"
	elif ! grep -q -- "$pattern" "$T_TMP/err"; then
		fail "$name: stderr lacks '$pattern': $(cat "$T_TMP/err")"
	else
		pass "$name"
	fi
}

# make_data FILE SIZE: random bytes
make_data()
{
	head -c "$2" /dev/urandom >"$1"
}

# seeded FILE SIZE SEED: pseudo-random bytes, the same for the same SEED in every run
seeded()
{
	head -c "$2" /dev/zero |
		openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$3")" -iv 0 2>/dev/null >"$1"
}

# make_sparse FILE SIZE: a hole with a little data at the start and the end
make_sparse()
{
	rm -f "$1"
	printf 'start of a sparse file\n' >"$1"
	truncate -s "$2" "$1"
	[ "$2" -gt 64 ] && printf 'end' | dd of="$1" bs=1 seek=$(($2 - 3)) conv=notrunc 2>/dev/null
	return 0
}

# with_undo CMD...: runs a command that writes an undo file (-z). libext2fs' undo manager frees
# its 64-bit "undo block map" with the 32-bit ext2fs_free_generic_bitmap(), which ignores it
# (undo_io.c, 1.47.0 to master): that leak is not ours, so a sanitizer build must not fail on it
with_undo()
{
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$@"
}

# prints the totals in automake's plain form and exits with the test's status
finish()
{
	echo "$T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
	exit $?
}
