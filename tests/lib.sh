# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
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

# plain_build: where the suite runs on a sanitizer build and names the tree's plain build too
# (E2V_PLAIN_BUILDDIR, set by scripts/test.sh), the test runs the plain one (top_builddir and
# E2VERITY), without the sanitizers' options: for what the sanitizers exclude (valgrind) or distort
# (peak RSS: their allocator keeps what is freed for a while)
plain_build()
{
	if [ -n "${E2V_PLAIN_BUILDDIR:-}" ] && [ -x "$E2V_PLAIN_BUILDDIR/e2verity" ]; then
		top_builddir=$E2V_PLAIN_BUILDDIR
		E2VERITY=$E2V_PLAIN_BUILDDIR/e2verity
		unset ASAN_OPTIONS UBSAN_OPTIONS
		echo "# on the plain build in $E2V_PLAIN_BUILDDIR"
	fi
}

# sanitized BIN: true when the program BIN is built with ASan and UBSan, whichever compiler made
# it: GCC's runtimes are shared libraries BIN needs, clang's are linked into BIN; both leave the
# runtimes' entry points in its dynamic symbols
sanitized()
{
	nm -D "$1" 2>/dev/null | grep -q ' __asan_init$' &&
		nm -D "$1" 2>/dev/null | grep -q ' __ubsan_handle_'
}

# judge_e2verity ARGS...: e2verity as the judges of the crash tests run it, to read what a cut run
# left (measure, dump, check on the recovered image). Where the suite runs on a sanitizer build
# and names the plain one (E2V_PLAIN_BUILDDIR), the plain one: the sanitizers watch the run that
# is cut, the code under test, while a judge's thousands of reads of consistent images would only
# add their start-up (~60 ms a run) to the suite's serial tail
judge_e2verity()
{
	if [ -n "${E2V_PLAIN_BUILDDIR:-}" ] && [ -x "$E2V_PLAIN_BUILDDIR/.libs/e2verity" ]; then
		LD_LIBRARY_PATH=$E2V_PLAIN_BUILDDIR/lib/.libs "$E2V_PLAIN_BUILDDIR/.libs/e2verity" "$@"
	else
		"$E2VERITY" "$@"
	fi
}

# other_user: sets AS_USER to the prefix that runs a command as nobody, where the tests run as
# root and setpriv exists, and nobody can run $E2VERITY; else AS_USER is empty and a line says why.
# A tree built inside a 0700 directory (a Debian home, /root, as dpkg-buildpackage runs it) cannot
# be run by another user: that part of a test is skipped, with the reason, not failed.
other_user()
{
	AS_USER=
	if [ "$(id -u)" -ne 0 ]; then
		return 0
	fi
	if ! command -v setpriv >/dev/null; then
		echo "skip: no setpriv to run a command as another user" >&2
		return 0
	fi
	_p="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	if ! $_p "$E2VERITY" --version >/dev/null 2>&1; then
		echo "skip: user nobody cannot run $E2VERITY (a directory above it is not searchable by nobody)" >&2
		return 0
	fi
	# shellcheck disable=SC2034 # read by the test that called other_user
	AS_USER=$_p
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

# make_data FILE SIZE: random bytes, the last one not zero: mke2fs -d 1.47.0 drops a last block of
# zeros and shortens the file, which a 1-byte tail was 1 time in 256
make_data()
{
	rand_bytes "$2" >"$1"
	[ "$2" -gt 0 ] && [ "$(tail -c 1 "$1" | od -An -tu1 | tr -d ' ')" = 0 ] &&
		printf '\001' | dd of="$1" bs=1 seek=$(($2 - 1)) conv=notrunc status=none
	return 0
}

# E2V_TEST_SEED: the seed of every test's "random" data (rand_bytes), fixed so that a failure
# replays; E2V_TEST_SEED=random draws a new one, which finish prints when a check failed
: "${E2V_TEST_SEED:=34}"
[ "$E2V_TEST_SEED" != random ] || E2V_TEST_SEED=$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')
export E2V_TEST_SEED

# rand_bytes SIZE: SIZE pseudo-random bytes on stdout: the stream of E2V_TEST_SEED, the test's name
# and the number of the call (counted in $T_TMP, or beside TMPDIR for this shell), so the same on
# every run
rand_bytes()
{
	_rb_f=${T_TMP:+$T_TMP/.rand-calls}
	_rb_f=${_rb_f:-${TMPDIR:-/tmp}/e2verity-rand.$$}
	_rb_n=0
	[ -f "$_rb_f" ] && read -r _rb_n <"$_rb_f"
	echo $((_rb_n + 1)) >"$_rb_f"
	head -c "$1" /dev/zero |
		openssl enc -aes-128-ctr -nosalt -K "$T_RAND_KEY" -iv "$(printf '%016x%016x' "$_rb_n" 0)" 2>/dev/null
}
# the key of this test's stream: the seed and the test's name
T_RAND_KEY=$(printf '%s/%s' "$E2V_TEST_SEED" "${0##*/}" | sha256sum | cut -c1-32)

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

# same WHAT GOT WANT: passes when GOT is WANT, else says both
same()
{
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', want '$3'"; fi
}

# fsverity_lines DIR WHERE...: the line `seal --manifest` and `measure` write, "ALG:HEX /PATH", for
# each regular file `find WHERE...` finds under DIR (PATH relative to DIR), made by
# `fsverity digest`; sorted
fsverity_lines()
{
	(cd "$1" && shift && find "$@" -type f | sed 's#^\./##' | while read -r fl_f; do
		fsverity digest "$fl_f" | sed "s# .*# /$fl_f#"
	done) | LC_ALL=C sort
}

# peak_rss CMD...: the peak RSS of CMD in KiB, -1 if it failed; its standard output goes to ./out
peak_rss()
{
	python3 -c '
import resource, subprocess, sys
with open("out", "wb") as o:
    rc = subprocess.run(sys.argv[1:], stdout=o).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)
' "$@"
}

# ---- bytes --------------------------------------------------------------------------------------

# hex2bin HEX: the bytes, with POSIX tools only (printf octal escapes)
hex2bin()
{
	# shellcheck disable=SC2059
	printf "$(printf '%s' "$1" | awk '{
		for (i = 1; i < length($0); i += 2) {
			hi = index("0123456789abcdef", substr($0, i, 1)) - 1
			lo = index("0123456789abcdef", substr($0, i + 1, 1)) - 1
			printf "\\%03o", hi * 16 + lo
		}
	}')"
}

# smime_sign_digests LIST DIR CERT KEY: for each line "HEX PATH" of LIST (as
# `seal -n --for-builtin-sig --manifest=LIST` writes them), DIR/PATH.sig signed by openssl alone,
# the files `seal --signatures-from=DIR` reads
smime_sign_digests()
{
	ssd_list=$1 ssd_dir=$2 ssd_cert=$3 ssd_key=$4
	mkdir -p "$ssd_dir"
	while read -r ssd_hex ssd_path; do
		mkdir -p "$ssd_dir$(dirname "$ssd_path")"
		hex2bin "$ssd_hex" >"$T_TMP/signed.bin"
		openssl smime -sign -binary -noattr -outform der -signer "$ssd_cert" -inkey "$ssd_key" \
			-in "$T_TMP/signed.bin" -out "$ssd_dir$ssd_path.sig" 2>"$T_TMP/openssl.err" ||
			fail "openssl smime $ssd_path: $(cat "$T_TMP/openssl.err")"
	done <"$ssd_list"
}

# le32 N: the four little-endian bytes of N, on standard output
le32()
{
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# put_le32 FILE OFFSET N: le32 N written over the bytes of FILE at OFFSET
put_le32()
{
	le32 "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# put_random FILE OFFSET COUNT: COUNT random bytes at OFFSET (a multiple of 4096), the rest of FILE
# kept (holes stay holes)
put_random()
{
	rand_bytes "$3" | dd of="$1" bs=4096 seek="$(($2 / 4096))" conv=notrunc 2>/dev/null
}

# flip_at FILE OFFSET [XOR]: XOR one byte (default 0xff); fails unless it reads back changed
flip_at()
{
	# od's number has blanks before it, which $((...)) and -eq read past: no tr (the crash
	# tests and cases flip thousands of bytes, a process each counts)
	_fb=$(od -An -tu1 -j "$2" -N1 "$1")
	[ -n "$_fb" ] || return 1
	_fb=$((_fb ^ ${3:-255}))
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' "$_fb")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
	[ "$(od -An -tu1 -j "$2" -N1 "$1")" -eq "$_fb" ]
}

# ---- ext4 images (e2fsprogs as the oracle) --------------------------------------------------------

# fsck_clean IMG: e2fsck -fn finds nothing (exit 0); what it found goes to stderr
fsck_clean()
{
	e2fsck -fn "$1" >"$T_TMP/fsck.out" 2>&1 || {
		cat "$T_TMP/fsck.out" >&2
		return 1
	}
}

# sb_field IMG NAME: a superblock field as `dumpe2fs -h` prints it ("Block size", "Free blocks")
sb_field()
{
	dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p"
}

# fs_block_size IMG
fs_block_size()
{
	sb_field "$1" "Block size"
}

# has_feature IMG FEATURE: the superblock lists FEATURE (e.g. verity, needs_recovery)
has_feature()
{
	sb_field "$1" "Filesystem features" | tr ' ' '\n' | grep -qx "$2"
}

# img_offset IMG PATH FILE_OFFSET: the byte offset in IMG of a byte of the file PATH (fails if
# that byte is in a hole)
img_offset()
{
	_bs=$(fs_block_size "$1")
	_p=$(debugfs -R "bmap \"$2\" $(($3 / _bs))" "$1" 2>/dev/null)
	case $_p in
	'' | *[!0-9]*) _p=0 ;;
	esac
	[ "$_p" -gt 0 ] || {
		echo "img_offset: $2 offset $3 is not mapped" >&2
		return 1
	}
	echo $((_p * _bs + $3 % _bs))
}

# flip IMG PATH FILE_OFFSET [XOR]: XOR one byte of a file inside the image
flip()
{
	_o=$(img_offset "$1" "$2" "$3") || return 1
	flip_at "$1" "$_o" "${4:-255}"
}

# ---- where ext4 keeps fs-verity metadata (doc/format.md, section 3) -----------------------------

# round_up X A: X rounded up to a multiple of A
round_up()
{
	echo $(((($1) + ($2) - 1) / ($2) * ($2)))
}

# metadata_pos SIZE: where the Merkle tree of a file of SIZE bytes starts
metadata_pos()
{
	round_up "$1" 65536
}

# verity_layout SIZE TREE_SIZE SIG_SIZE BS: "TREE_POS DESC_POS END", the tree's and the
# descriptor's offsets and the end of the file's last block (its last 4 bytes: the size word)
verity_layout()
{
	_vm=$(metadata_pos "$1")
	_vd=$(round_up $((_vm + $2)) "$4")
	echo "$_vm $_vd $(round_up $((_vd + 256 + $3 + 4)) "$4")"
}

# ---- certificates and keys (openssl) ------------------------------------------------------------

# openssl_ok ARGS...: openssl, quiet; if it fails, its message, a failure, and the end of the test
openssl_ok()
{
	openssl "$@" >/dev/null 2>"$T_TMP/openssl.err" || {
		cat "$T_TMP/openssl.err" >&2
		fail "openssl $*"
		finish
	}
}

# cert_serial: a random certificate serial number whose DER INTEGER is always 8 octets.  OpenSSL's
# own random serials are 20 octets or 19 or 21, so a signature carrying one (its SignerInfo names the
# issuer and serial) had a length that changed from run to run, and expected outputs with it.
cert_serial()
{
	echo "0x$(od -An -N1 -tu1 /dev/urandom | awk '{ printf "%x", $1 % 7 + 1 }')$(od -An -N7 -tx1 /dev/urandom | tr -d ' \n')"
}

# self_signed KEY CERT [CN]: a self-signed certificate CERT for the private key KEY, which is made
# (RSA 2048, PEM) unless it exists
self_signed()
{
	if [ -e "$1" ]; then
		openssl_ok req -x509 -new -key "$1" -out "$2" -days 2 -subj "/CN=${3:-e2verity test}" \
			-set_serial "$(cert_serial)"
	else
		openssl_ok req -x509 -newkey rsa:2048 -nodes -keyout "$1" -out "$2" -days 2 \
			-subj "/CN=${3:-e2verity test}" -set_serial "$(cert_serial)"
	fi
}

# test_ca NAME [ISSUER]: NAME.key and NAME.crt of a CA, self-signed, or issued by the CA ISSUER
test_ca()
{
	if [ $# -eq 1 ]; then
		openssl_ok req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.crt" -days 2 \
			-subj "/CN=e2verity test $1" -set_serial "$(cert_serial)" \
			-addext basicConstraints=critical,CA:TRUE \
			-addext keyUsage=critical,keyCertSign,digitalSignature
	else
		printf '%s\n' basicConstraints=critical,CA:TRUE keyUsage=critical,keyCertSign \
			subjectKeyIdentifier=hash authorityKeyIdentifier=keyid >"$T_TMP/ca.ext"
		_test_issue "$1" "$2" "$T_TMP/ca.ext"
	fi
}

# test_signer NAME ISSUER: NAME.key and NAME.crt of a signer the CA ISSUER issued; with the
# Authority Key Identifier, by which the kernel finds the CA in its keyring
test_signer()
{
	printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature \
		subjectKeyIdentifier=hash authorityKeyIdentifier=keyid >"$T_TMP/signer.ext"
	_test_issue "$1" "$2" "$T_TMP/signer.ext"
}

_test_issue()
{
	openssl_ok req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=e2verity test $1"
	openssl_ok x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -set_serial "$(cert_serial)" -days 2 \
		-extfile "$3" -out "$1.crt"
}

# prints the totals in automake's plain form and exits with the test's status
finish()
{
	[ "$T_FAILED" -eq 0 ] || echo "random data: E2V_TEST_SEED=$E2V_TEST_SEED replays this run" >&2
	echo "$T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
	exit $?
}
