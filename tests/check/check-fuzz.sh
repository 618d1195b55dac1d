#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-fuzz.sh - random byte flips in the verity metadata and extent trees of sealed files:
# check and measure, built with ASan and UBSan here, never crash, never touch memory they do not
# own, and never read outside the image (every read of these images succeeds: exit 0 or 4 only)
. "${top_srcdir:-.}/tests/lib.sh"
t_tmpdir
. "$top_srcdir/tests/check/check-lib.sh"
require_cmd cc pkg-config awk timeout
cd "$T_TMP" || exit 1

: "${E2V_FUZZ_ROUNDS:=300}"
: "${top_builddir:=$top_srcdir}"

# build_asan: ASAN, e2verity built with ASan and UBSan in $T_TMP
build_asan()
{
	printf 'int main(void) { return 0; }\n' >probe.c
	cc -fsanitize=address,undefined probe.c -o probe 2>/dev/null ||
		skip "the compiler cannot link with -fsanitize=address,undefined (libasan, libubsan)"
	srcs=
	for f in $(find "$top_srcdir/lib" "$top_srcdir/src" -name "*.c" | sort); do
		case $f in */lib/e2verity_err.c) continue ;; esac
		srcs="$srcs $f"
	done
	# the libraries configure found: blkid for --partition
	# shellcheck disable=SC2086,SC2046
	cc -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g -O1 \
		-I"$top_builddir" -I"$top_builddir/lib" -I"$top_srcdir/lib" -I"$top_srcdir/src" \
		$srcs "$top_builddir/lib/e2verity_err.c" \
		$(pkg-config --cflags --libs ext2fs com_err libcrypto) \
		$(pkg-config --exists blkid && pkg-config --cflags --libs blkid) \
		-lpthread \
		-o e2verity-asan 2>cc.err ||
		{
			cat cc.err >&2
			fail "the sanitizer build of e2verity failed"
			finish
		}
	ASAN=$T_TMP/e2verity-asan
}

# The sanitizer build: the suite's own when it is one (scripts/test.sh); else the library and
# command compiled straight into one binary, whatever the main build's flags were, so that this
# test always runs under ASan and UBSan.
bin=$top_builddir/.libs/e2verity
[ -x "$bin" ] || bin=$E2VERITY
if sanitized "$bin"; then
	ASAN=$E2VERITY
else
	build_asan
fi
export ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=99

make_sample base src || { fail "building the sample image"; finish; }
"$ASAN" check -j 2 base >out 2>err || fail "the sanitizer build fails the intact image: $(cat err)"

# the physical blocks of every sealed file's metadata (past round_up(size, 64K)), and where each
# inode's extent root (i_block, bytes 40-99 of the inode) lies in the image
bs=$(fs_block_size base)
: >cmds
while read -r line; do
	case $line in
	"dir/sub/nested file"*) path="/dir/sub/nested file" host=src/nested ;;
	*) path=/${line%% *} host=src/${line%% *} ;;
	esac
	size=$(stat -c %s "$host")
	first=$(($(metadata_pos "$size") / bs))
	last=$(debugfs -R "stat \"$path\"" base 2>/dev/null | grep -o '([0-9]*\(-[0-9]*\)\{0,1\})' |
		tr -d '()' | awk -F- '{ print ($2 != "" ? $2 : $1) }' | sort -n | tail -n 1)
	[ -n "$last" ] || { fail "no extents for $path"; finish; }
	lblk=$first
	while [ "$lblk" -le "$last" ]; do
		echo "bmap \"$path\" $lblk" >>cmds
		lblk=$((lblk + 1))
	done
	echo "imap \"$path\"" >>cmds
done <src/list
debugfs -f cmds base 2>/dev/null >maps
: >targets
while read -r l; do
	case $l in
	*"located at block "*)
		blk=$(echo "$l" | sed 's/.*located at block \([0-9]*\),.*/\1/')
		off=$(echo "$l" | sed 's/.*offset \(0x[0-9a-fA-F]*\).*/\1/')
		echo "I $((blk * bs + off + 40))" >>targets
		;;
	*[!0-9]* | "" | 0) ;;
	*) echo "B $((l * bs))" >>targets ;;
	esac
done <maps
nblocks=$(grep -c '^B' targets)
ninodes=$(grep -c '^I' targets)
check "found the metadata blocks ($nblocks) and inodes ($ninodes)" test "$nblocks" -gt 20 -a "$ninodes" -eq 7

# the flips, all drawn up front from one seed so that a failure can be replayed
# (a fixed seed unless E2V_FUZZ_SEED says another, or "random" for a new one each run)
seed=${E2V_FUZZ_SEED:-34}
[ "$seed" = random ] && seed=$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')
echo "fuzz seed $seed (E2V_FUZZ_SEED=$seed replays it), $E2V_FUZZ_ROUNDS rounds"
awk -v seed="$seed" -v rounds="$E2V_FUZZ_ROUNDS" -v bs="$bs" '
	{ kind[NR] = $1; pos[NR] = $2 }
	END {
		srand(seed)
		for (r = 1; r <= rounds; r++) {
			n = 1 + int(rand() * 3); line = r
			for (k = 0; k < n; k++) {
				t = 1 + int(rand() * NR)
				# one flip in five hits an extent root, the rest a metadata block
				while ((rand() < 0.2) != (kind[t] == "I"))
					t = 1 + int(rand() * NR)
				off = kind[t] == "I" ? pos[t] + int(rand() * 60) : pos[t] + int(rand() * bs)
				line = line " " off ":" (1 + int(rand() * 255))
			}
			print line
		}
	}' targets >plan
check "the plan has $E2V_FUZZ_ROUNDS rounds" test "$(wc -l <plan)" -eq "$E2V_FUZZ_ROUNDS"

bad=0
rounds=0
flagged=0
while read -r round flips; do
	rounds=$((rounds + 1))
	cp base img
	for f in $flips; do
		flip_at img "${f%%:*}" "${f##*:}"
	done
	timeout 60 "$ASAN" check -j 2 img >out 2>err
	st=$?
	if [ $st -ne 0 ] && [ $st -ne 4 ]; then
		fail "round $round (flips $flips): check exited $st: $(head -c 2000 err)"
		bad=$((bad + 1))
	fi
	[ $st -eq 4 ] && flagged=$((flagged + 1))
	timeout 60 "$ASAN" measure --all img >out 2>err
	st=$?
	if [ $st -ne 0 ] && [ $st -ne 1 ]; then
		fail "round $round (flips $flips): measure exited $st: $(head -c 2000 err)"
		bad=$((bad + 1))
	elif grep -q 'Sanitizer\|runtime error' err; then
		fail "round $round (flips $flips): measure: $(head -c 2000 err)"
		bad=$((bad + 1))
	fi
	[ $bad -ge 5 ] && break
done <plan
check "$rounds rounds of flips: no crash, no sanitizer report (E2V_FUZZ_SEED=$seed replays them)" test $bad -eq 0
# nearly every flip damages something the kernel checks; a few land in unchecked padding
check "check flagged most rounds ($flagged of $rounds)" test $((flagged * 10)) -ge $((rounds * 8))
finish
