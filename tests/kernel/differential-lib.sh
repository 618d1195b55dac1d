# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# differential-lib.sh - the sealed files and the mutations of tests/kernel/differential.sh
#
# Source after tests/lib.sh and tests/kernel/kernel-lib.sh, in the test's work directory.  The
# template image holds every flavour of sealed file twice (other data in each copy), each in three
# sizes; a batch is a copy of it with one mutation applied to each of (up to) all its files.

# ---- the seeded generator: the same plan for the same seed, whatever the shell or awk ----------

# dl_rand N: a number in [0, N) in DL_V (not in $(...): the state DL_R must survive)
dl_rand()
{
	DL_R=$(((DL_R * 1103515245 + 12345) & 2147483647))
	DL_V=$(((DL_R >> 8) % $1))
}

# dl_pick WORD...: one of the words, in DL_W
dl_pick()
{
	dl_rand $#
	shift "$DL_V"
	DL_W=$1
}

# ---- the template -----------------------------------------------------------------------------

DL_FLAVOURS="e256 e512 esig eca k256 k512 ksig kca"
DL_SALT=5a17e2
# sizes: one block (no tree), 25 blocks (a one-block tree), 147 blocks (two levels)
DL_SIZES="s:3000 m:100000 l:600000"

# dl_template: template.img, the keys, the keyring (keyring.pem for check, *.der for the guest) and
# files.tsv: "NAME FLAVOUR SIZE ALG SIGNED DATA_SHA256 DIGEST TREE_SIZE" per sealed file
dl_template()
{
	self_signed signer.key signer.crt "e2verity differential signer" || return 1
	test_ca ca || return 1
	test_signer leaf ca || return 1
	cat signer.crt ca.crt >keyring.pem
	openssl x509 -in signer.crt -outform der -out signer.der &&
		openssl x509 -in ca.crt -outform der -out ca.der || return 1
	mkdir -p src sigs
	: >files.tsv
	: >klist
	_n=0
	_k=0
	for _f in $DL_FLAVOURS; do
		for _sz in $DL_SIZES; do
			# DL_DIRS: the files spread over that many directories (d0/, d1/...), both copies
			# of one flavour and size in one
			_dir=
			if [ "${DL_DIRS:-0}" -gt 0 ]; then
				_dir=d$((_k % DL_DIRS))/
				mkdir -p "src/$_dir" "sigs/$_dir"
			fi
			_k=$((_k + 1))
			for _c in 1 2; do
				_name=$_dir$_f-${_sz%%:*}-$_c
				_size=${_sz#*:}
				_n=$((_n + 1))
				seeded "src/$_name" "$_size" "$_n" || return 1
				_alg=sha256 _opts='' _signed=0
				case $_f in
				e512 | k512)
					_alg=sha512
					_opts="--hash-alg=sha512 --salt=$DL_SALT"
					;;
				esig | eca | ksig | kca) _signed=1 ;;
				esac
				# shellcheck disable=SC2086
				fsverity digest $_opts --out-merkle-tree=tree.tmp "src/$_name" >dg.tmp ||
					return 1
				echo "$_name $_f $_size $_alg $_signed $(sha256sum <"src/$_name" |
					cut -d' ' -f1) $(cut -d' ' -f1 dg.tmp) $(stat -c %s tree.tmp)" \
					>>files.tsv
				case $_f in
				k256) echo "/$_name" >>klist ;;
				k512) echo "/$_name $_opts" >>klist ;;
				ksig)
					fsverity sign "src/$_name" "sigs/$_name.sig" --key=signer.key \
						--cert=signer.crt >/dev/null || return 1
					echo "/$_name --signature=$PWD/sigs/$_name.sig" >>klist
					;;
				kca)
					# the CA-issued signer's certificate goes into the signature
					"$E2VERITY" sign "src/$_name" "sigs/$_name.sig" --key=leaf.key \
						--cert=leaf.crt >/dev/null || return 1
					echo "/$_name --signature=$PWD/sigs/$_name.sig" >>klist
					;;
				esac
			done
		done
	done
	rm -f tree.tmp dg.tmp
	[ "${DL_DIRS:-0}" -gt 0 ] && dl_fillers src/d0
	mke2fs -q -F -t ext4 -b 4096 -O verity -d src template.img 128M >/dev/null 2>&1 || return 1
	if [ "${DL_DIRS:-0}" -gt 0 ]; then
		dl_path_extras template.img || return 1
	fi
	# shellcheck disable=SC2046 # the names are separate words (no blanks in them)
	"$E2VERITY" seal -q template.img $(dl_names e256) &&
		"$E2VERITY" seal -q --hash-alg=sha512 --salt=$DL_SALT template.img $(dl_names e512) &&
		"$E2VERITY" seal -q --key=signer.key --cert=signer.crt template.img $(dl_names esig) &&
		"$E2VERITY" seal -q --key=leaf.key --cert=leaf.crt template.img $(dl_names eca) ||
		return 1
	kh_seal --cert=signer.der --cert=ca.der template.img klist >kernel-sealed.out
}

# dl_fillers DIR: 200 empty files with long names, so that DIR takes 3 blocks and e2fsck -D
# indexes it (a dx root block and its leaves on the path to the sealed files in it)
dl_fillers()
{
	_i=0
	while [ "$_i" -lt 200 ]; do
		: >"$1/filler-$_i-$(printf '%040d' "$_i")"
		_i=$((_i + 1))
	done
}

# dl_path_extras IMG: the directories indexed (e2fsck -fD) and an extended attribute on each sealed
# file: a small one in the inode (copy 1) or a large one in an xattr block (copy 2)
dl_path_extras()
{
	e2fsck -fyD "$1" >/dev/null 2>&1
	[ $? -lt 4 ] || return 1
	head -c 300 /dev/zero | tr '\0' x >big.val
	awk '{ print "/" $1 }' files.tsv | while read -r _p; do
		case $_p in
		*-1) echo "ea_set $_p user.small 12345678" ;;
		*) echo "ea_set -f big.val $_p user.big" ;;
		esac
	done | debugfs -w -f - "$1" >/dev/null 2>&1
	rm -f big.val
	e2fsck -fn "$1" >/dev/null 2>&1
}

# dl_names FLAVOUR: the paths of its files in the image
dl_names()
{
	awk -v f="$1" '$2 == f { print "/" $1 }' files.tsv
}

# dl_info NAME: the file's line of files.tsv in I_* variables, and its layout (FORMAT.md 3.1):
# I_MPOS tree, I_DPOS descriptor, I_LEVELS "blocks of level 0, level 1, ..." (the top level is
# stored first)
dl_info()
{
	# shellcheck disable=SC2034
	read -r I_NAME I_FLAV I_SIZE I_ALG I_SIGNED I_SHA I_DIGEST I_TREE <<EOF
$(awk -v n="$1" '$1 == n' files.tsv)
EOF
	I_DS=32
	[ "$I_ALG" = sha512 ] && I_DS=64
	I_MPOS=$(round_up "$I_SIZE" 65536)
	I_DPOS=$(round_up $((I_MPOS + I_TREE)) 4096)
	I_LEVELS=
	_h=$((4096 / I_DS))
	_b=$(((I_SIZE + 4095) / 4096))
	_t=0
	while [ "$_b" -gt 1 ]; do
		_b=$(((_b + _h - 1) / _h))
		I_LEVELS="$I_LEVELS $_b"
		_t=$((_t + _b))
	done
	[ $((_t * 4096)) -eq "$I_TREE" ] || {
		echo "dl_info: $1: levels $I_LEVELS do not make fsverity's $I_TREE-byte tree" >&2
		return 1
	}
}

# dl_sig_size IMG NAME: the descriptor's sig_size, as stored
dl_sig_size()
{
	_o=$(img_offset "$1" "/$2" $((I_DPOS + 4))) || return 1
	od -An -tu4 -j "$_o" -N4 "$1" | tr -d ' '
}

# dl_put_byte IMG NAME OFFSET VALUE: one byte of the file
dl_put_byte()
{
	_o=$(img_offset "$1" "/$2" "$3") || return 1
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' "$4")" | dd of="$1" bs=1 seek="$_o" conv=notrunc status=none
}

# dl_get_byte IMG NAME OFFSET
dl_get_byte()
{
	_o=$(img_offset "$1" "/$2" "$3") || return 1
	od -An -tu1 -j "$_o" -N1 "$1" | tr -d ' '
}

# dl_xor IMG NAME OFFSET: one byte changed to another random value
dl_xor()
{
	dl_rand 255
	flip "$1" "/$2" "$3" $((DL_V + 1))
}

# dl_put_sig IMG NAME SIGFILE: the signature after the descriptor, sig_size, zeros, the size word
dl_put_sig()
{
	_n=$(stat -c %s "$3")
	_end=$(round_up $((I_DPOS + 256 + _n + 4)) 4096)
	# only within the blocks the file has: a signature that needs another block is not written
	[ "$_end" -le "$(round_up $((I_DPOS + 256 + DL_SIG0 + 4)) 4096)" ] || return 1
	_o=$(img_offset "$1" "/$2" "$I_DPOS") || return 1
	head -c $((_end - I_DPOS - 256)) /dev/zero |
		dd of="$1" bs=1 seek=$((_o + 256)) conv=notrunc status=none
	dd if="$3" of="$1" bs=1 seek=$((_o + 256)) conv=notrunc status=none
	put_le32 "$1" $((_o + 4)) "$_n"
	_o=$(img_offset "$1" "/$2" $((_end - 4))) || return 1
	put_le32 "$1" "$_o" $((256 + _n))
}

# dl_get_sig IMG NAME OUT: the stored signature's bytes
dl_get_sig()
{
	_o=$(img_offset "$1" "/$2" $((I_DPOS + 256))) || return 1
	dd if="$1" of="$3" bs=1 skip="$_o" count="$DL_SIG0" status=none
}

# dl_iblock IMG NAME: the 15 words of i_block, in W0..W14
dl_iblock()
{
	_loc=$(debugfs -R "imap /$2" "$1" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$_loc" ] || return 1
	set -- "$1" $_loc
	_i=0
	for _w in $(od -An -tu4 -j $(($2 * 4096 + $3 + 40)) -N60 "$1"); do
		eval "W$_i=$_w"
		_i=$((_i + 1))
	done
}

# dl_sif IMG NAME FIELD VALUE...: set inode fields with debugfs, which keeps the checksum right
dl_sif()
{
	_img=$1 _nm=$2
	shift 2
	while [ $# -ge 2 ]; do
		echo "sif /$_nm $1 $2"
		shift 2
	done | debugfs -w -f - "$_img" >/dev/null 2>&1
}

# dl_group0 IMG RE: the number RE's group catches in the first dumpe2fs line that matches
dl_group0()
{
	dumpe2fs "$1" 2>/dev/null | sed -n "s/^ *$2/\\1/p" | head -n 1
}

# dl_system_block IMG: a block of the kernel's system zone, in DL_V
dl_system_block()
{
	dl_pick sb gdt bbitmap ibitmap itable journal
	case $DL_W in
	sb) DL_V=0 ;;
	gdt) DL_V=1 ;;
	bbitmap) DL_V=$(dl_group0 "$1" 'Block bitmap at \([0-9]*\).*') ;;
	ibitmap) DL_V=$(dl_group0 "$1" 'Inode bitmap at \([0-9]*\).*') ;;
	itable) DL_V=$(dl_group0 "$1" 'Inode table at \([0-9]*\)-.*') ;;
	journal) DL_V=$(debugfs -R "bmap <8> 0" "$1" 2>/dev/null) ;;
	esac
	DL_W="$DL_W:$DL_V"
}

# the mutation classes, and those that need a signature
# shellcheck disable=SC2034 # read by differential.sh
DL_CLASSES="data tree desc-version desc-hash desc-logbs desc-saltsize desc-sigsize desc-datasize \
desc-root desc-salt desc-reserved size-word pad-tail pad-desc isize flags ext-order ext-zero \
ext-overlap ext-dup ext-meta meta-swap sig-byte sig-trunc sig-append p7-edit p7-resign"

# the classes of differential-path.sh (issue 35): the structures the kernel reads on the way to a
# file's data, each mutated with its stored checksum left stale ("rot") or made to match ("edit":
# csum-fix rewrites it through libext2fs)
# shellcheck disable=SC2034 # read by differential.sh
DL_PATH_CLASSES="inode-rot inode-edit dir-rot dir-edit dir-inode-rot dir-inode-edit xattr-rot \
xattr-edit"

# the fields of the 256-byte on-disk inode (fs/ext4/ext4.h struct ext4_inode): NAME:OFFSET:LENGTH;
# a path mutation picks a field, then a byte of it.  "xattrs" is the in-inode xattr area after the
# 32 bytes of i_extra_isize.
DL_INODE_FIELDS="mode:0:2 uid:2:2 size_lo:4:4 atime:8:4 ctime:12:4 mtime:16:4 dtime:20:4 gid:24:2 \
links:26:2 blocks_lo:28:4 flags:32:4 version:36:4 block:40:60 generation:100:4 file_acl_lo:104:4 \
size_high:108:4 faddr:112:4 blocks_high:116:2 file_acl_high:118:2 uid_high:120:2 gid_high:122:2 \
csum_lo:124:2 reserved:126:2 extra_isize:128:2 csum_hi:130:2 ctime_extra:132:4 mtime_extra:136:4 \
atime_extra:140:4 crtime:144:4 crtime_extra:148:4 version_hi:152:4 projid:156:4 xattrs:160:96"

# dl_ino IMG PATH: the inode number, in DL_V
dl_ino()
{
	DL_V=$(debugfs -R "stat \"$2\"" "$1" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	[ -n "$DL_V" ]
}

# dl_inode_mutate IMG PATH FIX: one byte of one field of the inode of PATH changed; FIX=edit: its
# checksum made to match.  DL_DESC says what.
dl_inode_mutate()
{
	dl_ino "$1" "$2" || return 2
	_ino=$DL_V
	_loc=$(debugfs -R "imap <$_ino>" "$1" 2>/dev/null |
		sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$_loc" ] || return 2
	# shellcheck disable=SC2086
	dl_pick $DL_INODE_FIELDS
	_fld=$DL_W
	_len=${_fld##*:}
	_off=${_fld#*:}
	_off=${_off%:*}
	dl_rand "$_len"
	_byte=$((_off + DL_V))
	dl_rand 255
	DL_DESC="inode $_ino ${_fld%%:*} byte $_byte ^$((DL_V + 1))"
	# shellcheck disable=SC2086
	set -- "$1" "$2" "$3" $_loc
	flip_at "$1" $(($4 * 4096 + $5 + _byte)) $((DL_V + 1)) || return 2
	dl_csum_fix "$1" "$3" inode "$_ino"
}

# dl_csum_fix IMG FIX WHAT INO [BLOCK]: for FIX=edit, the checksum of the structure made to match
dl_csum_fix()
{
	[ "$2" = edit ] || return 0
	_img=$1
	shift 2
	"$DL_CSUMFIX" "$_img" "$@" >/dev/null 2>&1 || DL_DESC="$DL_DESC (the checksum could not be made)"
	return 0
}

# dl_siblings PATH: the other sealed files of PATH's directory, in DL_ALSO; status 1 if one of them
# is not in DL_UNUSED (already mutated in this batch)
dl_siblings()
{
	_d=${1%/*}
	DL_ALSO=
	for _s in $(awk -v d="$_d/" 'index($1, d) == 1 { print $1 }' files.tsv); do
		[ "$_s" = "$1" ] && continue
		case $DL_UNUSED in *" $_s "*) ;; *) return 1 ;; esac
		DL_ALSO="$DL_ALSO $_s"
	done
	DL_ALSO=${DL_ALSO# }
}

# dl_path_mutate IMG NAME CLASS: a class of DL_PATH_CLASSES (see dl_mutate)
dl_path_mutate()
{
	_fix=${3##*-}
	case $3 in
	inode-*)
		dl_inode_mutate "$1" "/$2" "$_fix"
		;;
	dir-inode-*)
		case $2 in */*) ;; *) return 1 ;; esac
		dl_siblings "$2" || return 1
		dl_inode_mutate "$1" "/${2%/*}" "$_fix"
		;;
	dir-*)
		case $2 in */*) ;; *) return 1 ;; esac
		dl_siblings "$2" || return 1
		dl_ino "$1" "/${2%/*}" || return 2
		_ino=$DL_V
		# shellcheck disable=SC2046
		set -- "$1" "$2" $(debugfs -R "blocks <$_ino>" "$1" 2>/dev/null)
		[ $# -gt 2 ] || return 2
		_img=$1
		shift 2
		dl_rand $#
		shift "$DL_V"
		_blk=$1
		dl_rand 4096
		_byte=$DL_V
		dl_rand 255
		DL_DESC="directory inode $_ino block $_blk byte $_byte ^$((DL_V + 1))"
		flip_at "$_img" $((_blk * 4096 + _byte)) $((DL_V + 1)) || return 2
		dl_csum_fix "$_img" "$_fix" dir "$_ino" "$_blk"
		;;
	xattr-*)
		dl_ino "$1" "/$2" || return 2
		_ino=$DL_V
		_blk=$(debugfs -R "stat <$_ino>" "$1" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
		[ -n "$_blk" ] || return 2
		[ "$_blk" -ne 0 ] || return 1
		# the header, the entries and the values: the block's used part and the rest alike
		dl_rand 4096
		_byte=$DL_V
		dl_rand 255
		DL_DESC="xattr block $_blk byte $_byte ^$((DL_V + 1))"
		flip_at "$1" $((_blk * 4096 + _byte)) $((DL_V + 1)) || return 2
		dl_csum_fix "$1" "$_fix" xattr "$_ino" "$_blk"
		;;
	*)
		echo "dl_mutate: no class $3" >&2
		return 2
		;;
	esac
}

# dl_mutate IMG NAME CLASS: apply it to the file; DL_DESC says what was done.  Status 1: the class
# does not apply to this file (nothing changed), 2: a tool failed.
dl_mutate()
{
	_img=$1 _nm=$2
	dl_info "$_nm" || return 2
	DL_SIG0=$(dl_sig_size "$_img" "$_nm") || return 2
	_end=$(round_up $((I_DPOS + 256 + DL_SIG0 + 4)) 4096)
	case $3 in
	data)
		dl_rand "$I_SIZE"
		DL_DESC="byte $DL_V"
		dl_xor "$_img" "$_nm" "$DL_V" || return 2
		;;
	tree)
		[ -n "$I_LEVELS" ] || return 1
		set -- $I_LEVELS
		dl_rand $#
		_lvl=$DL_V
		# level L is stored after the levels above it
		_off=$I_MPOS _i=0
		for _b in "$@"; do
			[ "$_i" -gt "$_lvl" ] && _off=$((_off + _b * 4096))
			_i=$((_i + 1))
		done
		eval "_nb=\${$((_lvl + 1))}"
		# shellcheck disable=SC2154 # _nb: set by the eval above
		dl_rand $((_nb * 4096))
		DL_DESC="level $_lvl byte $DL_V"
		dl_xor "$_img" "$_nm" $((_off + DL_V)) || return 2
		;;
	desc-version | desc-hash | desc-logbs | desc-saltsize)
		case $3 in
		desc-version) _f=0 ;;
		desc-hash) _f=1 ;;
		desc-logbs) _f=2 ;;
		desc-saltsize) _f=3 ;;
		esac
		dl_rand 255
		DL_DESC="^$((DL_V + 1))"
		flip "$_img" "/$_nm" $((I_DPOS + _f)) $((DL_V + 1)) || return 2
		;;
	desc-sigsize)
		dl_pick 1 2 4 16 128 256 1024 65536 16777216
		_v=$((DL_SIG0 ^ DL_W))
		DL_DESC="sig_size $_v"
		_o=$(img_offset "$_img" "/$_nm" $((I_DPOS + 4))) || return 2
		put_le32 "$_img" "$_o" "$_v"
		;;
	desc-datasize)
		dl_rand 8
		_b=$DL_V
		DL_DESC="byte $_b"
		dl_xor "$_img" "$_nm" $((I_DPOS + 8 + _b)) || return 2
		;;
	desc-root)
		dl_rand 64
		DL_DESC="byte $DL_V"
		dl_xor "$_img" "$_nm" $((I_DPOS + 16 + DL_V)) || return 2
		;;
	desc-salt)
		dl_rand 32
		DL_DESC="byte $DL_V"
		dl_xor "$_img" "$_nm" $((I_DPOS + 80 + DL_V)) || return 2
		;;
	desc-reserved)
		dl_rand 144
		DL_DESC="byte $DL_V"
		dl_xor "$_img" "$_nm" $((I_DPOS + 112 + DL_V)) || return 2
		;;
	size-word)
		dl_rand 4
		DL_DESC="byte $DL_V"
		dl_xor "$_img" "$_nm" $((_end - 4 + DL_V)) || return 2
		;;
	pad-tail)
		# after the data in its last block: hashed with it
		[ $((I_SIZE % 4096)) -ne 0 ] || return 1
		dl_rand $((4096 - I_SIZE % 4096))
		DL_DESC="byte $((I_SIZE + DL_V))"
		dl_xor "$_img" "$_nm" $((I_SIZE + DL_V)) || return 2
		;;
	pad-desc)
		# between the descriptor and signature and the size word
		_p=$((_end - 4 - I_DPOS - 256 - DL_SIG0))
		[ "$_p" -gt 0 ] || return 1
		dl_rand "$_p"
		DL_DESC="byte $((I_DPOS + 256 + DL_SIG0 + DL_V))"
		dl_xor "$_img" "$_nm" $((I_DPOS + 256 + DL_SIG0 + DL_V)) || return 2
		;;
	isize)
		dl_pick -4096 -1 1 4095 4096 65536 $((I_SIZE))
		_v=$((I_SIZE + DL_W))
		[ "$_v" -ge 0 ] || return 1
		DL_DESC="i_size $_v"
		dl_sif "$_img" "$_nm" size "$_v" || return 2
		;;
	flags)
		# clear extents, set inline data, encrypt, DAX, journal data, append, immutable, casefold
		dl_pick -0x80000 +0x10000000 +0x800 +0x2000000 +0x4000 +0x20 +0x10 +0x40000000 -0x100000
		_fl=$(debugfs -R "stat /$_nm" "$_img" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
		[ -n "$_fl" ] || return 2
		case $DL_W in
		-*) _v=$((_fl & ~${DL_W#-})) ;;
		+*) _v=$((_fl | ${DL_W#+})) ;;
		esac
		[ "$_v" -ne $((_fl)) ] || return 1
		DL_DESC="flags $DL_W"
		dl_sif "$_img" "$_nm" flags "$_v" || return 2
		;;
	ext-order | ext-zero | ext-overlap | ext-dup | ext-meta)
		dl_iblock "$_img" "$_nm" || return 2
		# a root with its leaves in the inode: magic f30a, depth 0, two entries or more
		_entries=$((W0 >> 16)) _depth=$((W1 >> 16))
		[ $((W0 & 65535)) -eq 62218 ] && [ "$_depth" -eq 0 ] && [ "$_entries" -ge 2 ] || return 1
		case $3 in
		ext-order)
			DL_DESC="entries 0 and 1 swapped"
			dl_sif "$_img" "$_nm" 'block[3]' "$W6" 'block[4]' "$W7" 'block[5]' "$W8" \
				'block[6]' "$W3" 'block[7]' "$W4" 'block[8]' "$W5" || return 2
			;;
		ext-zero)
			dl_rand "$_entries"
			DL_DESC="entry $DL_V length 0"
			eval "_w=\$W$((4 + 3 * DL_V))"
			dl_sif "$_img" "$_nm" "block[$((4 + 3 * DL_V))]" $((_w & ~65535)) || return 2
			;;
		ext-overlap)
			# entry 1 starts inside entry 0
			_len=$((W4 & 32767))
			DL_DESC="entry 1 from logical $((W3 + _len - 1))"
			dl_sif "$_img" "$_nm" 'block[6]' $((W3 + _len - 1)) || return 2
			;;
		ext-dup)
			DL_DESC="entry 1 from logical $W3"
			dl_sif "$_img" "$_nm" 'block[6]' "$W3" || return 2
			;;
		ext-meta)
			# one more extent, between the data and the tree, over filesystem metadata
			[ "$_entries" -lt 4 ] || return 1
			_first=$(((I_SIZE + 4095) / 4096)) _gap=$((I_MPOS / 4096 - (I_SIZE + 4095) / 4096))
			[ "$_gap" -gt 0 ] || return 1
			dl_rand "$_gap"
			_lb=$((_first + DL_V))
			dl_system_block "$_img"
			_pb=$DL_V
			[ -n "$_pb" ] || return 2
			DL_DESC="logical $_lb -> $DL_W"
			# the entries after the new one move up by one; the new one goes where it belongs
			_k=0
			while [ "$_k" -lt "$_entries" ]; do
				eval "_lb0=\$W$((3 + 3 * _k))"
				# shellcheck disable=SC2154 # _lb0: set by the eval above
				[ "$_lb0" -gt "$_lb" ] && break
				_k=$((_k + 1))
			done
			_args=
			_j=$_entries
			while [ "$_j" -gt "$_k" ]; do
				for _x in 0 1 2; do
					eval "_args=\"\$_args block[$((3 + 3 * _j + _x))] \$W$((3 + 3 * (_j - 1) + _x))\""
				done
				_j=$((_j - 1))
			done
			_args="$_args block[$((3 + 3 * _k))] $_lb block[$((4 + 3 * _k))] $((1 | (_pb >> 32) << 16))"
			_args="$_args block[$((5 + 3 * _k))] $((_pb & 4294967295)) block[0] $((W0 + 65536))"
			# shellcheck disable=SC2086
			dl_sif "$_img" "$_nm" $_args || return 2
			;;
		esac
		;;
	meta-swap)
		# a tree block, or the descriptor block, exchanged with the other copy's
		_other=${_nm%-*}-$((3 - ${_nm##*-}))
		dl_pick tree desc
		[ "$DL_W" = tree ] && [ -z "$I_LEVELS" ] && DL_W=desc
		if [ "$DL_W" = tree ]; then
			dl_rand $((I_TREE / 4096))
			_off=$((I_MPOS + DL_V * 4096))
		else
			_off=$I_DPOS
		fi
		DL_DESC="$DL_W block at $_off with /$_other"
		_a=$(img_offset "$_img" "/$_nm" "$_off") && _b=$(img_offset "$_img" "/$_other" "$_off") ||
			return 2
		dd if="$_img" of=swap.a bs=4096 skip=$((_a / 4096)) count=1 status=none
		dd if="$_img" of=swap.b bs=4096 skip=$((_b / 4096)) count=1 status=none
		dd if=swap.b of="$_img" bs=4096 seek=$((_a / 4096)) conv=notrunc status=none
		dd if=swap.a of="$_img" bs=4096 seek=$((_b / 4096)) conv=notrunc status=none
		# shellcheck disable=SC2034 # read by differential.sh
		DL_ALSO=$_other
		;;
	sig-byte)
		[ "$DL_SIG0" -gt 0 ] || return 1
		dl_rand "$DL_SIG0"
		DL_DESC="byte $DL_V"
		dl_xor "$_img" "$_nm" $((I_DPOS + 256 + DL_V)) || return 2
		;;
	sig-trunc | sig-append)
		[ "$DL_SIG0" -gt 0 ] || return 1
		dl_get_sig "$_img" "$_nm" sig.old || return 2
		dl_pick 1 2 3 8 64
		if [ "$3" = sig-trunc ]; then
			head -c $((DL_SIG0 - DL_W)) sig.old >sig.new
			DL_DESC="$DL_W bytes off"
		else
			cp sig.old sig.new
			_i=0
			while [ "$_i" -lt "$DL_W" ]; do
				dl_rand 256
				# shellcheck disable=SC2059
				printf "$(printf '\\%03o' "$DL_V")" >>sig.new
				_i=$((_i + 1))
			done
			DL_DESC="$DL_W bytes after"
		fi
		dl_put_sig "$_img" "$_nm" sig.new || return 1
		;;
	p7-edit)
		[ "$DL_SIG0" -gt 0 ] || return 1
		dl_get_sig "$_img" "$_nm" sig.old || return 2
		dl_p7_edit
		DL_DESC=$DL_W
		"$DL_P7EDIT" sig.old sig.new $DL_W 2>/dev/null || return 1
		dl_put_sig "$_img" "$_nm" sig.new || return 1
		;;
	p7-resign)
		[ "$DL_SIG0" -gt 0 ] || return 1
		dl_p7_resign "src/$_nm" sig.new || return 2
		dl_put_sig "$_img" "$_nm" sig.new || return 1
		;;
	*)
		dl_path_mutate "$_img" "$_nm" "$3"
		;;
	esac
}

# dl_p7_edit: one rewrite of a PKCS#7 field (tests/helpers/pkcs7-edit.c), in DL_W
dl_p7_edit()
{
	dl_pick sd-version si-version digest-oid pkey-oid content-type outer-type digest-set \
		digest-set-seq digest-params pkey-params trailing signerinfos-seq content unauth-attr \
		dup-signer crl certs-seq certs-drop skid ber
	case $DL_W in
	sd-version) dl_pick sd-version=0 sd-version=2 sd-version=3 sd-version=4 sd-version=255 \
		sd-version-raw=0001 ;;
	si-version) dl_pick si-version=0 si-version=2 si-version=3 si-version=4 ;;
	digest-oid)
		# unknown, MD5, SHA-1, SHA-224, SHA-384, SHA-512, SHA3-256, SM3
		dl_pick digest-oid=1.2.3.4 digest-oid=1.2.840.113549.2.5 digest-oid=1.3.14.3.2.26 \
			digest-oid=2.16.840.1.101.3.4.2.4 digest-oid=2.16.840.1.101.3.4.2.2 \
			digest-oid=2.16.840.1.101.3.4.2.3 digest-oid=2.16.840.1.101.3.4.2.8 \
			digest-oid=1.2.156.10197.1.401
		;;
	pkey-oid)
		# unknown, sha256WithRSAEncryption, ecdsa-with-SHA256, RSASSA-PSS
		dl_pick pkey-oid=1.2.3.4 pkey-oid=1.2.840.113549.1.1.11 pkey-oid=1.2.840.10045.4.3.2 \
			pkey-oid=1.2.840.113549.1.1.10
		;;
	content-type)
		dl_pick content-type=1.2.840.113549.1.7.2 content-type=1.3.6.1.4.1.311.2.1.4 \
			content-type=1.2.3.4
		;;
	outer-type) DL_W=outer-type=1.2.840.113549.1.7.1 ;;
	digest-set)
		dl_pick digest-set= digest-set=1.2.3.4 digest-set=2.16.840.1.101.3.4.2.3 \
			digest-set=2.16.840.1.101.3.4.2.1:0200 \
			digest-set=2.16.840.1.101.3.4.2.1,2.16.840.1.101.3.4.2.1 ;;
	digest-params) dl_pick digest-params=- digest-params=0200 digest-params=0400 \
		digest-params=020105 digest-params=3000 ;;
	pkey-params) dl_pick pkey-params=- pkey-params=0200 pkey-params=0403010203 ;;
	trailing) dl_pick trailing=00 trailing=0000 trailing=deadbeef trailing=3000 ;;
	content) DL_W=content=00 ;;
	unauth-attr) DL_W=unauth-attr=1.2.3.4:0500 ;;
	crl) DL_W=crl=3000 ;;
	ber)
		# an indefinite length, a length in one octet more (three: beyond the kernel's decoder,
		# for the root and the signer), a SEQUENCE tag in its primitive form
		dl_pick ber-indefinite=root ber-indefinite=signed-data ber-indefinite=signer \
			ber-long=root ber-long=signer ber-prim=signer ber-prim=signed-data
		;;
	skid)
		# the CMS form: version 3, the signer named by subject key identifier
		_cert=signer.crt
		[ "$I_FLAV" = eca ] || [ "$I_FLAV" = kca ] && _cert=leaf.crt
		DL_W="sd-version=3 si-version=3 sid-skid=$(openssl x509 -in $_cert -noout -ext \
			subjectKeyIdentifier | tail -n 1 | tr -d ' :' | tr A-F a-f)"
		;;
	esac
}

# dl_p7_resign SRC OUT: a new signature by the file's own signer, made by openssl with another
# digest or signed attributes; DL_DESC says which
dl_p7_resign()
{
	_key=signer.key _cert=signer.crt
	case $I_FLAV in eca | kca) _key=leaf.key _cert=leaf.crt ;; esac
	# shellcheck disable=SC2086,SC2046 # the options are separate words
	hex2bin "$(fsverity digest --compact --for-builtin-sig $([ "$I_ALG" = sha512 ] &&
		echo "--hash-alg=sha512 --salt=$DL_SALT") "$1")" >signed.bin
	dl_pick "smime -noattr -md sha1" "smime -noattr -md md5" "smime -noattr -md sha224" \
		"smime -noattr -md sha384" "smime -noattr -md sha512" "smime -noattr -md sha3-256" \
		"smime -md sha256" "smime -nosmimecap -md sha256" "cms -nosmimecap -md sha256" \
		"cms -noattr -keyid -md sha256"
	# shellcheck disable=SC2034 # read by differential.sh
	DL_DESC="openssl $DL_W"
	# shellcheck disable=SC2086
	openssl $DL_W -sign -binary -outform der -signer "$_cert" -inkey "$_key" -in signed.bin \
		-out "$2" 2>/dev/null
}
