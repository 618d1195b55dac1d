# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# image-lib.sh - oracles for sealed files in ext4 images: e2fsck, debugfs, fsverity-utils
# Sourced after tests/lib.sh.  Nothing here uses e2verity's own code to judge e2verity.

require_cmd mke2fs e2fsck debugfs fsverity dd od cmp

# mkimg IMG DIR SIZE [mke2fs options...]: an ext4 image of DIR's files, no root needed
mkimg()
{
	mk_img=$1 mk_dir=$2 mk_size=$3
	shift 3
	mke2fs -q -F -t ext4 "$@" -d "$mk_dir" "$mk_img" "$mk_size" >/dev/null 2>"$T_TMP/mke2fs.err" ||
		{ cat "$T_TMP/mke2fs.err" >&2; return 1; }
}

# inode_field IMG PATH NAME: a value from debugfs stat (Flags, Size, Blockcount)
inode_field()
{
	debugfs -R "stat \"$2\"" "$1" 2>/dev/null | tr ' ' '\n' | sed -n "/^$3:\$/{n;:a;/^\$/{n;ba};p;q}"
}

# inode_flags IMG PATH: the raw i_flags as debugfs prints them (0x...)
inode_flags()
{
	inode_field "$1" "$2" Flags
}

# leaf_extents IMG PATH: "lstart-lend pstart-pend len [Uninit]" for each leaf extent
leaf_extents()
{
	debugfs -R "ex \"$2\"" "$1" 2>/dev/null | sed -n '2,$p' |
		sed -E 's#/ +#/#g; s# +- +#-#g; s#^ +##' |
		awk '{ split($1, a, "/"); if (a[1] == a[2]) print $3, $4, $5, $6 }'
}

# last_lblk_end IMG PATH: one past the highest mapped logical block (0 if none)
last_lblk_end()
{
	leaf_extents "$1" "$2" | awk '{ split($1, l, "-"); if (l[2] + 1 > m) m = l[2] + 1 } END { print m + 0 }'
}

# read_lblks IMG PATH BS FIRST COUNT OUT: the bytes of logical blocks, holes as zeros
read_lblks()
{
	rl_img=$1 rl_p=$2 rl_bs=$3 rl_first=$4 rl_count=$5 rl_out=$6
	: >"$rl_out"
	rl_i=0
	while [ "$rl_i" -lt "$rl_count" ]; do
		echo "bmap \"$rl_p\" $((rl_first + rl_i))"
		rl_i=$((rl_i + 1))
	done >"$T_TMP/bmap.cmds"
	# runs of blocks that follow each other on disk, and of holes: one process a run, not a block
	# (a tree of a thousand blocks is a few runs)
	debugfs -f "$T_TMP/bmap.cmds" "$rl_img" 2>/dev/null | grep -v '^debugfs:' | awk '
		{ p = $1 + 0 }
		n && ((p == 0 && start == 0) || (p != 0 && start != 0 && p == start + n)) { n++; next }
		n { print start, n }
		{ start = p; n = 1 }
		END { if (n) print start, n }' >"$T_TMP/bmap.runs"
	while read -r rl_pblk rl_n; do
		if [ "$rl_pblk" -eq 0 ]; then
			head -c $((rl_bs * rl_n)) /dev/zero
		else
			dd if="$rl_img" bs="$rl_bs" skip="$rl_pblk" count="$rl_n" iflag=fullblock 2>/dev/null
		fi
	done <"$T_TMP/bmap.runs" >>"$rl_out"
	[ "$(wc -c <"$rl_out")" -eq $((rl_bs * rl_count)) ]
}

# check_sealed IMG PATH SRC [fsverity tree options...]
# The file in the image is sealed exactly as the kernel would have sealed SRC:
#  - data dumped back equals SRC; i_size unchanged; EXT4_VERITY_FL set
#  - the bytes after EOF in the last data block are zero on disk
#  - no block between EOF and round_up(size, 64K); everything from there to the
#    last allocated block equals fsverity-utils' tree, zero padding, its
#    descriptor and the le32 size word, as doc/format.md section 3 places them
#  - the last extent ends right after the size word and is initialized
# With CS_SIG=FILE, the descriptor carries that signature: sig_size set, the bytes after it.
# With CS_FROM=DIR, fsverity-utils' tree, descriptor and digest line are DIR/tree, DIR/desc and
# DIR/digest, from an earlier `fsverity digest SRC --out-merkle-tree --out-descriptor` with the
# same options (a file of gigabytes is read once, not once a check).
# Prints the expected digest line on success (from `fsverity digest`).
check_sealed()
{
	il_img=$1 il_p=$2 il_src=$3
	shift 3
	il_w=$T_TMP/cs
	rm -rf "$il_w" && mkdir "$il_w" || return 1
	il_bs=$(fs_block_size "$il_img")
	if [ -n "${CS_FROM:-}" ]; then
		cp "$CS_FROM/tree" "$CS_FROM/desc" "$CS_FROM/digest" "$il_w/" || return 1
	else
		fsverity digest "$@" --out-merkle-tree="$il_w/tree" --out-descriptor="$il_w/desc" \
			"$il_src" >"$il_w/digest" || return 1
	fi
	il_size=$(wc -c <"$il_src")

	debugfs -R "dump \"$il_p\" $il_w/data" "$il_img" 2>"$il_w/dump.err"
	cmp -s "$il_w/data" "$il_src" || {
		echo "$il_p: data differs: $(cmp "$il_w/data" "$il_src" 2>&1); $(grep -v '^debugfs [0-9]' "$il_w/dump.err")" >&2
		return 1
	}
	[ "$(inode_field "$il_img" "$il_p" Size)" = "$il_size" ] || { echo "$il_p: i_size changed" >&2; return 1; }
	il_flags=$(inode_flags "$il_img" "$il_p")
	[ $((il_flags & 0x100000)) -ne 0 ] || { echo "$il_p: no VERITY_FL ($il_flags)" >&2; return 1; }
	[ $((il_flags & 0x80000)) -ne 0 ] || { echo "$il_p: no EXTENTS_FL ($il_flags)" >&2; return 1; }

	if [ $((il_size % il_bs)) -ne 0 ]; then
		read_lblks "$il_img" "$il_p" "$il_bs" $((il_size / il_bs)) 1 "$il_w/last" || return 1
		[ "$(tail -c $((il_bs - il_size % il_bs)) "$il_w/last" | tr -d '\000' | wc -c)" -eq 0 ] ||
			{ echo "$il_p: non-zero bytes after EOF" >&2; return 1; }
	fi

	il_tree_size=$(wc -c <"$il_w/tree")
	il_sig=0
	[ -z "$CS_SIG" ] || il_sig=$(wc -c <"$CS_SIG")
	read -r il_mpos il_dpos il_end <<EOL
$(verity_layout "$il_size" "$il_tree_size" "$il_sig" "$il_bs")
EOL
	# nothing allocated between the data and the tree
	leaf_extents "$il_img" "$il_p" | awk -v lo=$(((il_size + il_bs - 1) / il_bs)) -v hi=$((il_mpos / il_bs)) '
		{ split($1, l, "-"); if (l[2] >= lo && l[1] < hi) bad = 1 } END { exit bad }' ||
		{ echo "$il_p: blocks allocated between EOF and the Merkle tree" >&2; return 1; }
	[ "$(last_lblk_end "$il_img" "$il_p")" -eq $((il_end / il_bs)) ] ||
		{ echo "$il_p: last extent ends at $(last_lblk_end "$il_img" "$il_p"), want $((il_end / il_bs))" >&2; return 1; }
	! leaf_extents "$il_img" "$il_p" | tail -n 1 | grep -q Uninit ||
		{ echo "$il_p: last extent is unwritten" >&2; return 1; }

	read_lblks "$il_img" "$il_p" "$il_bs" $((il_mpos / il_bs)) $(((il_end - il_mpos) / il_bs)) "$il_w/meta" || return 1
	{
		cat "$il_w/tree"
		head -c $((il_dpos - il_mpos - il_tree_size)) /dev/zero
		head -c 4 "$il_w/desc"
		le32 "$il_sig"
		tail -c +9 "$il_w/desc"
		[ -z "$CS_SIG" ] || cat "$CS_SIG"
		head -c $((il_end - il_dpos - 256 - il_sig - 4)) /dev/zero
		le32 $((256 + il_sig))
	} >"$il_w/expect"
	cmp -s "$il_w/meta" "$il_w/expect" || { echo "$il_p: metadata bytes differ from fsverity-utils'" >&2; return 1; }
	echo "$(cut -d' ' -f1 "$il_w/digest") $il_p"
}

# snapshot_cmds PATH...: the debugfs commands that snapshot reads (stat and ex of each path)
snapshot_cmds()
{
	for sc_p in "$@"; do
		printf 'stat "%s"\nex "%s"\n' "$sc_p" "$sc_p"
	done
}

# snapshot IMG CMDS: per path of CMDS (from snapshot_cmds), "PATH flags 0x..." and its extents,
# from one debugfs run
snapshot()
{
	debugfs -f "$2" "$1" 2>/dev/null |
		awk '/^debugfs: stat /{ f = $3; gsub(/"/, "", f) }
		     /Flags:/{ for (i = 1; i < NF; i++) if ($i == "Flags:") print f, "flags", $(i + 1) }
		     /^ *[0-9]+\/ *[0-9]+ /{ print f, $0 }'
}

# an awk function: whether an inode's flags, as debugfs prints them (0x...), have the verity flag
# (mawk has no strtonum)
AWK_SEALED='
	function sealed_flags(s,   v, i) {
		v = 0
		s = tolower(s)
		sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return int(v / 1048576) % 2
	}'

# snap_sealed_or_same REF CUT PATH...: each PATH of the snapshot CUT is sealed (the verity flag),
# or has exactly its lines of REF; prints how many are sealed, or fails saying which is neither
snap_sealed_or_same()
{
	ss_ref=$1 ss_cut=$2
	shift 2
	awk -v files="$*" "$AWK_SEALED"'
		FILENAME == ARGV[1] { ref[$1] = ref[$1] "\n" $0; next }
		{ cut[$1] = cut[$1] "\n" $0 }
		$2 == "flags" { flags[$1] = $3 }
		END {
			n = split(files, f, " ")
			for (i = 1; i <= n; i++) {
				p = f[i]
				if (sealed_flags(flags[p]))
					sealed++
				else if (cut[p] != ref[p]) {
					line = cut[p]
					gsub(/\n/, " | ", line)
					print p " neither sealed nor as it was:" line
					exit 1
				}
			}
			print sealed + 0
		}' "$ss_ref" "$ss_cut"
}

# dumps_setup PREFIX PATH...: the debugfs commands (PREFIX.cmds) that dump each PATH to
# PREFIX<PATH with / as _>, and what dumps_same compares those to: the sources' (src/PATH) sizes
# and their bytes one after another. The crash judges run after each of hundreds of cuts, where
# a process costs milliseconds: a few processes for all the files, not three for each.
dumps_setup()
{
	ds_p=$1
	shift
	: >"$ds_p.pairs"
	for ds_f in "$@"; do
		ds_o=$ds_p$(echo "$ds_f" | tr / _)
		printf 'dump "%s" "%s"\n' "$ds_f" "$ds_o"
		echo "src$ds_f $ds_o" >>"$ds_p.pairs"
	done >"$ds_p.cmds"
	# shellcheck disable=SC2046 # paths without blanks
	cat $(cut -d' ' -f1 "$ds_p.pairs") >"$ds_p.cat"
	# shellcheck disable=SC2046
	stat -c %s $(cut -d' ' -f1 "$ds_p.pairs") >"$ds_p.sizes"
}

# dumps_same PREFIX IMG: dump IMG's files as dumps_setup PREFIX said; true when each holds its
# source's bytes, else DUMPS_DIFF is the path of the first that does not
# shellcheck disable=SC2034 # DUMPS_DIFF: read by the caller
dumps_same()
{
	ds_outs=
	while read -r ds_s ds_o; do
		ds_outs="$ds_outs $ds_o"
	done <"$1.pairs"
	# none left from the judge before: a dump that fails must not leave its bytes to compare
	# shellcheck disable=SC2086 # paths without blanks
	rm -f $ds_outs
	debugfs -f "$1.cmds" "$2" >/dev/null 2>&1
	# shellcheck disable=SC2086 # paths without blanks
	if stat -c %s $ds_outs 2>/dev/null | cmp -s - "$1.sizes" &&
		cat $ds_outs | cmp -s - "$1.cat"; then
		return 0
	fi
	while read -r ds_s ds_o; do
		cmp -s "$ds_s" "$ds_o" || { DUMPS_DIFF=${ds_s#src}; return 1; }
	done <"$1.pairs"
	DUMPS_DIFF="(none, yet the bytes differ)"
	return 1
}

# fault_cut MODE N ARGS...: the fault helper ($FAULT) with ARGS, cut at write N in MODE. A kill
# runs the plain build's helper where the suite names one (E2V_PLAIN_BUILDDIR, as judge_e2verity):
# the run it cuts short is the start of the uncut one, which the sanitizers watched to its end, and
# their start-up costs more than the run (~100 ms a process on the CI's VM). A failing write and a
# signal take paths the uncut run does not: those run sanitized.
fault_cut()
{
	fc_mode=$1 fc_at=$2
	shift 2
	if [ "$fc_mode" = kill ] && [ -n "${E2V_PLAIN_BUILDDIR:-}" ] &&
		[ -x "$E2V_PLAIN_BUILDDIR/tests/helpers/e2verity-fault" ]; then
		E2VERITY_FAULT_AT=$fc_at E2VERITY_FAULT_MODE=kill \
			LD_LIBRARY_PATH=$E2V_PLAIN_BUILDDIR/lib/.libs \
			"$E2V_PLAIN_BUILDDIR/tests/helpers/e2verity-fault" "$@"
	else
		E2VERITY_FAULT_AT=$fc_at E2VERITY_FAULT_MODE=$fc_mode "$FAULT" "$@"
	fi
}

# The images whose judge passed, by their content, for one run of cut_writes or repair_cuts: a
# cut that leaves the bytes of one judged already (a kill just before a write that changes
# nothing, a SIGTERM that stops at the same safe point as the one before) passes as that one did,
# without a judge's ten processes: a judge is a function of the image, the mode and the exit
# status, which are the key. In the crash tests 56% of the cuts leave an image judged before.
CUT_DIGEST=${top_builddir:-.}/tests/helpers/image-digest

# cut_key MODE STATUS IMG: sets CUT_KEY, or empties it when there is no digest to take
cut_key()
{
	CUT_KEY=
	[ -x "$CUT_DIGEST" ] || return 0
	ck_d=$("$CUT_DIGEST" "$3") || return 0
	CUT_KEY="$1:$2:$ck_d"
}

# cut_judged: true when the image of CUT_KEY passed its judge in this run (CUT_SEEN, "KEY NAME" a
# line); CUT_SAME then names that cut
cut_judged()
{
	[ -n "$CUT_KEY" ] || return 1
	# by the shell's own matching: a cut is looked up hundreds of times a test, no process each
	case $CUT_SEEN in
	*"
$CUT_KEY "*) ;;
	*) return 1 ;;
	esac
	CUT_SAME=${CUT_SEEN#*"
$CUT_KEY "}
	CUT_SAME=${CUT_SAME%%"
"*}
}

# cut_judge JUDGE NAME ARGS...: JUDGE NAME ARGS..., or a pass of NAME when its image was judged
# before; an image is remembered when its judge adds no failure
cut_judge()
{
	cj_name=$2
	if cut_judged; then
		pass "$cj_name: the image of \"$CUT_SAME\", judged"
		return
	fi
	cj_failed=$T_FAILED
	"$@"
	[ -z "$CUT_KEY" ] || [ "$T_FAILED" -ne "$cj_failed" ] ||
		CUT_SEEN="$CUT_SEEN
$CUT_KEY $cj_name"
}

# cut_writes NAME IMG_BEFORE COMMAND...: COMMAND (an e2verity command line, run by
# tests/helpers/e2verity-fault on a copy of IMG_BEFORE with the paths of $FILES after it) cut at
# each of its writes, in each mode of CUT_MODES (default "kill fail"; see fault_io.c), every
# $CUT_STEP_<mode> writes (default 1; E2V_CRASH_STRIDE multiplies it, for slow builds such as the
# sanitizers'). After each cut, the test's `judge NAME IMG MODE STATUS` says what is left.
cut_writes()
{
	c_name=$1 c_before=$2
	shift 2
	cp "$c_before" count.img
	rm -f writes.log
	# shellcheck disable=SC2086 # FILES is a list of paths without blanks
	E2VERITY_FAULT_LOG=writes.log "$FAULT" "$@" count.img $FILES >/dev/null 2>&1 ||
		{ fail "$c_name: uncut run failed"; return; }
	judge "$c_name: uncut" count.img none 0
	c_total=$(tail -n 1 writes.log)
	[ "$c_total" -gt 10 ] || { fail "$c_name: only '$c_total' writes counted"; return; }
	CUT_SEEN=
	for c_mode in ${CUT_MODES:-kill fail}; do
		eval "c_step=\${CUT_STEP_$c_mode:-1}"
		c_step=$((c_step * ${E2V_CRASH_STRIDE:-1}))
		c_n=1
		while [ "$c_n" -le "$c_total" ]; do
			cp "$c_before" cut.img
			# shellcheck disable=SC2086
			fault_cut "$c_mode" "$c_n" "$@" cut.img $FILES >cut.out 2>cut.err
			c_rc=$?
			if [ "$c_mode" = fail ] && [ "$c_rc" -ne 1 ]; then
				fail "$c_name: write $c_n failing: exit $c_rc, want 1"
			elif [ "$c_mode" = fail ] && ! grep -q "cut.img" cut.err; then
				fail "$c_name: write $c_n failing: no message names the image: $(cat cut.err)"
			fi
			cut_key "$c_mode" "$c_rc" cut.img
			cut_judge judge "$c_name: $c_mode at write $c_n of $c_total" cut.img "$c_mode" "$c_rc"
			c_n=$((c_n + c_step))
		done
		echo "$c_name: $c_total cut points tried, $c_mode mode"
	done
}

# sig_judge NAME IMG DIR CERT PATH...: each PATH of IMG is signed with the bytes of DIR/PATH.sig
# (fsverity sign's) or not signed at all, never anything between, and check --cert=CERT passes;
# SIG_JUDGE_SIGNED says how many are signed
sig_judge()
{
	sj_name=$1 sj_img=$2 sj_dir=$3 sj_cert=$4
	shift 4
	SIG_JUDGE_SIGNED=0
	for sj_f in "$@"; do
		judge_e2verity dump "$sj_img" "$sj_f" signature >"$T_TMP/sig.out" 2>/dev/null || continue
		if ! cmp -s "$T_TMP/sig.out" "$sj_dir$sj_f.sig"; then
			fail "$sj_name: $sj_f: the stored signature is not fsverity sign's"
			return 1
		fi
		SIG_JUDGE_SIGNED=$((SIG_JUDGE_SIGNED + 1))
	done
	if ! judge_e2verity check --cert="$sj_cert" "$sj_img" >"$T_TMP/check.out" 2>&1; then
		fail "$sj_name: check --cert: $(cat "$T_TMP/check.out")"
		return 1
	fi
}

# sign_sources DIR KEY CERT PATH...: DIR/PATH.sig, fsverity sign's signature of src/PATH
sign_sources()
{
	ss_dir=$1 ss_key=$2 ss_cert=$3
	shift 3
	for ss_f in "$@"; do
		mkdir -p "$ss_dir$(dirname "$ss_f")"
		fsverity sign "src$ss_f" "$ss_dir$ss_f.sig" --key="$ss_key" --cert="$ss_cert" \
			>/dev/null || fail "fsverity sign $ss_f"
	done
}

# ima_files IMG PATH...: those PATHs whose inode has a security.ima attribute, one a line, from
# one debugfs run
ima_files()
{
	if_img=$1
	shift
	for if_p in "$@"; do
		printf 'ea_list "%s"\n' "$if_p"
	done >"$T_TMP/ea.cmds"
	debugfs -f "$T_TMP/ea.cmds" "$if_img" 2>/dev/null |
		awk '/^debugfs: ea_list /{ f = $3; gsub(/"/, "", f) } /^ *security\.ima /{ print f }'
}

# ima_judge NAME IMG SNAP MODE PATH...: after a cut of `seal --ima-key` (MODE seal) or of an
# unseal of such files (unseal), each file of SNAP (snapshot's lines) that is sealed has its
# security.ima and each that is not has none; after a cut of --ima-only (only) any attribute
# there is whole. Every present attribute must verify (check --ima-cert=ima.crt, made by the
# caller); an attribute block's other attribute (/ima-xattr-file's user.big, big.val) is intact.
ima_judge()
{
	ij_name=$1 ij_img=$2 ij_snap=$3 ij_mode=$4
	shift 4
	ima_files "$ij_img" "$@" >"$T_TMP/ima.has"
	# per file, in one awk: sealed with exactly one security.ima, or unsealed without any
	if [ "$ij_mode" != only ] && ! ij_why=$(awk -v files="$*" "$AWK_SEALED"'
		FILENAME == ARGV[1] { has[$0]++; next }
		$2 == "flags" { flags[$1] = $3 }
		END {
			n = split(files, f, " ")
			for (i = 1; i <= n; i++) {
				p = f[i]
				if (sealed_flags(flags[p]) && has[p] != 1) {
					print p " is sealed without its security.ima"
					exit 1
				}
				if (!sealed_flags(flags[p]) && has[p]) {
					print p " has a security.ima but is not sealed"
					exit 1
				}
			}
		}' "$T_TMP/ima.has" "$ij_snap"); then
		fail "$ij_name: $ij_why"
		return 1
	fi
	if [ -n "${IMA_XATTR_FILE:-}" ]; then
		rm -f "$T_TMP/got.val"
		debugfs -R "ea_get -f $T_TMP/got.val $IMA_XATTR_FILE user.big" "$ij_img" >/dev/null 2>&1
		cmp -s "$T_TMP/got.val" big.val || {
			fail "$ij_name: $IMA_XATTR_FILE lost its other attribute"
			return 1
		}
	fi
	if [ -s "$T_TMP/ima.has" ] && ! judge_e2verity check --ima-cert=ima.crt "$ij_img" \
		>"$T_TMP/ima.check" 2>&1; then
		fail "$ij_name: check --ima-cert: $(cat "$T_TMP/ima.check")"
		return 1
	fi
}

# undo_restored NAME IMG BEFORE [WINDOW]: after a cut run with -z u.undo, IMG is BEFORE again:
# through plain e2undo if there is an undo file, untouched if the run stopped before the undo file
# had its header (it takes its name then).  WINDOW=1: the cut fell in the one window the README
# names (between a superblock write and the header after it), where e2undo -f puts back every block
# but the superblock; such passes are counted in undo_windows.
undo_windows=0
undo_restored()
{
	rm -f u.undo.*
	if [ ! -e u.undo ]; then
		if cmp -s "$2" "$3"; then
			pass "$1 (no undo file: the image as it was)"
		else
			fail "$1: no undo file, and the image changed: $(cmp "$2" "$3" 2>&1 | head -1)"
		fi
		return
	fi
	if ! e2undo u.undo "$2" >e2undo.out 2>&1; then
		# e2undo -f marks the filesystem not clean (a new superblock): all but the
		# superblock is as it was
		if [ "${4:-0}" = 1 ] && grep -q "superblock doesn't match" e2undo.out &&
			e2undo -f u.undo "$2" >/dev/null 2>&1 && cmp -s -n 1024 "$2" "$3" &&
			cmp -s -i 2048 "$2" "$3"; then
			undo_windows=$((undo_windows + 1))
			pass "$1 (the window: e2undo -f)"
		else
			fail "$1: e2undo refuses: $(head -3 e2undo.out)"
		fi
	elif ! cmp -s "$2" "$3"; then
		fail "$1: after e2undo the image differs: $(cmp "$2" "$3" 2>&1 | head -1); $(head -3 e2undo.out)"
	else
		pass "$1"
	fi
}
