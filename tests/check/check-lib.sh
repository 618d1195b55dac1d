# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# check-lib.sh - sealed files made by an independent oracle (fsverity-utils + debugfs)
#
# Source after tests/lib.sh.  A sealed file is assembled without e2verity: the Merkle tree and
# descriptor of `fsverity digest --out-merkle-tree --out-descriptor`, laid out past the data as ext4
# does (doc/format.md section 3: tree at round_up(size, 64K), descriptor at the next fs block, le32
# size in the last 4 bytes of the last block), written with `debugfs write`, then i_size and the
# verity flag set with `sif`.

require_cmd fsverity debugfs mke2fs e2fsck dumpe2fs od dd truncate cmp

# seal_oracle IMG SRC NAME [--extra-block] [--sig=SIGFILE] [fsverity digest options...]
# Writes host file SRC into IMG as /NAME, sealed.  --extra-block allocates one more written block
# after the metadata (which the kernel refuses); --sig stores a built-in signature (made by
# `fsverity sign`) after the descriptor.  Prints nothing; fails if a tool fails.
seal_oracle()
{
	_img=$1 _src=$2 _name=$3
	shift 3
	_extra=0
	_sig=
	while :; do
		case ${1:-} in
		--extra-block) _extra=1 ;;
		--sig=*) _sig=${1#--sig=} ;;
		*) break ;;
		esac
		shift
	done
	_sigsize=0
	[ -n "$_sig" ] && _sigsize=$(stat -c %s "$_sig")
	_w=$T_TMP/seal.$$
	fsverity digest "$@" --out-merkle-tree="$_w.tree" --out-descriptor="$_w.desc" "$_src" \
		>/dev/null || return 1
	_bs=$(fs_block_size "$_img")
	_size=$(stat -c %s "$_src")
	_tsize=$(stat -c %s "$_w.tree")
	read -r _mpos _dpos _end <<EOL
$(verity_layout "$_size" "$_tsize" "$_sigsize" "$_bs")
EOL
	cp "$_src" "$_w.comp" || return 1
	truncate -s "$((_end + _extra * _bs))" "$_w.comp"
	if [ "$_tsize" -gt 0 ]; then
		dd if="$_w.tree" of="$_w.comp" bs=1024 seek=$((_mpos / 1024)) conv=notrunc \
			status=none || return 1
	fi
	dd if="$_w.desc" of="$_w.comp" bs=256 seek=$((_dpos / 256)) conv=notrunc status=none ||
		return 1
	if [ -n "$_sig" ]; then
		# ext4 keeps the signature's length in the descriptor's sig_size field
		put_le32 "$_w.comp" $((_dpos + 4)) "$_sigsize"
		dd if="$_sig" of="$_w.comp" bs=1 seek=$((_dpos + 256)) conv=notrunc status=none
	fi
	put_le32 "$_w.comp" $((_end - 4)) $((256 + _sigsize))
	[ "$_extra" -eq 1 ] && printf 'x' | dd of="$_w.comp" bs=1 seek="$_end" conv=notrunc status=none
	debugfs -w -R "write $_w.comp \"$_name\"" "$_img" >/dev/null 2>&1 || return 1
	debugfs -w -f - "$_img" >/dev/null 2>&1 <<EOF || return 1
sif "/$_name" size $_size
sif "/$_name" flags 0x180000
EOF
	rm -f "$_w.tree" "$_w.desc" "$_w.comp"
}

# write_plain IMG SRC NAME: an ordinary, unsealed copy
write_plain()
{
	debugfs -w -R "write $2 $3" "$1" >/dev/null 2>&1
}

# oracle_digest SRC [fsverity digest options...]: "alg:hex"
oracle_digest()
{
	_f=$1
	shift
	fsverity digest "$@" "$_f" | cut -d' ' -f1
}

# SALT used by the sample images
SALT=00112233445566778899aabbccddeeff

# fixture NAME IMG SRCDIR: IMG and SRCDIR copied from the fixture NAME that make check made once
# for the run (tests/check/make-fixtures.sh, in $E2V_FIXTURES); fails when there is none
fixture()
{
	[ -n "${E2V_FIXTURES:-}" ] && [ -f "$E2V_FIXTURES/$1/img" ] || return 1
	mkdir -p "$3" && cp "$E2V_FIXTURES/$1/img" "$2" && cp -R "$E2V_FIXTURES/$1/src/." "$3/"
}

# make_sample IMG SRCDIR: a 4 KiB-block image with sealed files of every shape, and a plain file.
# SRCDIR receives the host copies; SRCDIR/list has "NAME fsverity-digest-options" per sealed file.
# The run's fixture when there is one (its bytes are fixed: cases-lib.sh's det_data)
make_sample()
{
	_img=$1 _d=$2
	fixture sample "$_img" "$_d" && return 0
	mkdir -p "$_d"
	make_data "$_d/a" 600000
	printf 'hello\n' >"$_d/hello"
	: >"$_d/empty"
	make_data "$_d/exact64k" 65536
	make_data "$_d/big3" $((1024 * 1024 + 1))
	make_sparse "$_d/sparse" $((5 * 1024 * 1024 + 7))
	make_data "$_d/nested" 10000
	make_data "$_d/plain" 5000
	cat >"$_d/list" <<EOL
a
hello
empty
exact64k
big3 --hash-alg=sha512 --block-size=1024 --salt=$SALT
sparse
dir/sub/nested file --hash-alg=sha256 --salt=ab
EOL
	mke2fs -q -F -t ext4 -b 4096 -O verity "$_img" 32M >/dev/null || return 1
	debugfs -w -R "mkdir dir" "$_img" >/dev/null 2>&1
	debugfs -w -R "mkdir dir/sub" "$_img" >/dev/null 2>&1
	seal_list "$_img" "$_d" || return 1
	write_plain "$_img" "$_d/plain" plain
}

# list_entry LINE: a line of SRCDIR/list split into _n (the name in the image), _opts (the
# fsverity digest options) and _h (the host copy's name in SRCDIR)
list_entry()
{
	case $1 in
	"dir/sub/nested file"*)
		_n="dir/sub/nested file"
		_opts=${1#"dir/sub/nested file"}
		_h=nested
		;;
	*)
		_n=${1%% *}
		_opts=${1#"$_n"}
		_h=$_n
		;;
	esac
}

# seal_list IMG SRCDIR: seal every file of SRCDIR/list (NAME [options]; "nested file" is a name
# with a space: the host copy of "dir/sub/nested file" is SRCDIR/nested)
seal_list()
{
	while read -r _line; do
		list_entry "$_line"
		# shellcheck disable=SC2086
		seal_oracle "$1" "$2/$_h" "$_n" $_opts || return 1
	done <"$2/list"
}

# expected_lines SRCDIR: "alg:hex /NAME" per sealed file, as fsverity digest computes them
expected_lines()
{
	while read -r _line; do
		list_entry "$_line"
		# shellcheck disable=SC2086
		echo "$(oracle_digest "$1/$_h" $_opts) /$_n"
	done <"$1/list"
}
