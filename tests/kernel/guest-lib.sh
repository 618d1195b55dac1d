# SPDX-License-Identifier: GPL-2.0-or-later
# guest-lib.sh - functions for guest test scripts: one output line per check, parsed by the host
# shellcheck shell=sh
#
# /init sources this before /test.sh. Every function prints lines "TAG <path> <result...>" on
# stdout (the harness channel, ttyS1). Paths must not contain white space. Errors are reported
# with an errno name (EIO, ENOKEY, EUCLEAN, ...) followed by the tool's own message.
# Functions that take PATH... read the paths from stdin when given none.

# e2v_errno MESSAGE - the errno name for a glibc/busybox strerror text inside MESSAGE
e2v_errno()
{
	case $1 in
	*"Input/output error"* | *"I/O error"*) echo EIO ;;
	*"Required key not available"*) echo ENOKEY ;;
	*"Key was rejected by service"*) echo EKEYREJECTED ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"Structure needs cleaning"*) echo EUCLEAN ;;
	*"Invalid argument"*) echo EINVAL ;;
	*"Bad message"*) echo EBADMSG ;;
	*"Message too long"*) echo EMSGSIZE ;;
	*"File too large"*) echo EFBIG ;;
	*"Operation not supported"* | *"Not supported"*) echo EOPNOTSUPP ;;
	*"No such file or directory"*) echo ENOENT ;;
	*"No data available"*) echo ENODATA ;;
	*"File exists"*) echo EEXIST ;;
	*"Text file busy"*) echo ETXTBSY ;;
	*"Read-only file system"*) echo EROFS ;;
	*"No space left on device"*) echo ENOSPC ;;
	*"Permission denied"*) echo EACCES ;;
	*"Inappropriate ioctl"*) echo ENOTTY ;;
	*"Is a directory"*) echo EISDIR ;;
	*"Value too large"*) echo EOVERFLOW ;;
	*"Out of memory"* | *"Cannot allocate memory"*) echo ENOMEM ;;
	*"Invalid or incomplete multibyte"*) echo EILSEQ ;;
	*) echo EOTHER ;;
	esac
}

# e2v_paths [PATH...] - the arguments one per line, or stdin when there are none
e2v_paths()
{
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
	else
		cat
	fi
}

# e2v_oneline TEXT - TEXT on one line (newlines to spaces)
e2v_oneline()
{
	printf '%s' "$1" | tr '\n' ' ' | sed 's/ *$//'
}

# mount_image DEV DIR [MOUNT_OPTIONS] -> "MOUNT <dev> OK" | "MOUNT <dev> ERR <ERRNO> <msg>"
mount_image()
{
	mkdir -p "$2"
	if _m=$(mount -t ext4 ${3:+-o "$3"} "$1" "$2" 2>&1); then
		echo "MOUNT $1 OK"
	else
		echo "MOUNT $1 ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		return 1
	fi
}

# umount_image DIR -> "UMOUNT <dir> OK" | "UMOUNT <dir> ERR <ERRNO> <msg>"
umount_image()
{
	if _m=$(umount "$1" 2>&1); then
		echo "UMOUNT $1 OK"
	else
		echo "UMOUNT $1 ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		return 1
	fi
}

# enable PATH [fsverity enable options] -> "ENABLE <path> OK" | "ENABLE <path> ERR <ERRNO> <msg>"
enable()
{
	_p=$1
	shift
	if _m=$(fsverity enable "$_p" "$@" 2>&1); then
		echo "ENABLE $_p OK"
	else
		echo "ENABLE $_p ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		return 1
	fi
}

# e2v_with_list FN [PATH...] - FN with the paths (e2v_paths) as its arguments, when there are any.
# A path is one word: the list is split at newlines only (a path may have blanks: the sample
# image's do), without globbing.
e2v_with_list()
{
	_fn=$1
	shift
	e2v_paths "$@" >/tmp/e2v.todo
	set -f
	IFS='
'
	# shellcheck disable=SC2046 # split at newlines (IFS), unglobbed
	set -- $(cat /tmp/e2v.todo)
	unset IFS
	set +f
	[ $# -eq 0 ] || "$_fn" "$@"
}

# e2v_walk OUT FOUND MISSING PATH... - for each PATH in order: "FOUND PATH VALUE" when OUT's next
# line is "VALUE PATH" (a tool's line for each file it could read, in the order of its
# arguments), else "MISSING PATH" (the file alone, for what went wrong)
e2v_walk()
{
	_found=$2 _missing=$3
	exec 3<"$1"
	shift 3
	read -r _v _q <&3 || _q=
	for _p in "$@"; do
		if [ "$_q" = "$_p" ]; then
			"$_found" "$_p" "$_v"
			read -r _v _q <&3 || _q=
		else
			"$_missing" "$_p"
		fi
	done
	exec 3<&-
}

# measure_all [PATH...] -> "MEASURE <path> <alg>:<hex>" | "MEASURE <path> ERR <ERRNO> <msg>"
# One fsverity process for many files: under TCG a start of fsverity (libcrypto's relocations)
# costs 70-110 ms, more than a file's read. fsverity measure stops at the first file it cannot
# measure: that one is reported with its error, and a new run takes the rest.
measure_all()
{
	e2v_with_list e2v_measure_list "$@"
}

e2v_measure_list()
{
	while [ $# -gt 0 ]; do
		_rc=0
		fsverity measure "$@" >/tmp/e2v.m 2>/tmp/e2v.err || _rc=$?
		# its lines "<alg>:<hex> <path>", in the order of the arguments
		while read -r _d _; do
			echo "MEASURE $1 $_d"
			shift
		done </tmp/e2v.m
		[ "$_rc" -ne 0 ] && [ $# -gt 0 ] || break
		_m=$(cat /tmp/e2v.err)
		echo "MEASURE $1 ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		shift
	done
}

# hash_one PATH - read PATH to the end with 4096-byte reads:
#   "SHA256 <path> <hex>"
#   "OPENERR <path> <ERRNO> <msg>"            open() failed
#   "READERR <path> <ERRNO> <block> <msg>"    read() failed; <block> = index of the first 4096-byte
#                                             block that could not be read
hash_one()
{
	_p=$1
	_s=$( (dd if="$_p" bs=4096 2>/tmp/e2v.err; echo $? >/tmp/e2v.rc) | sha256sum)
	_m=$(cat /tmp/e2v.err)
	if [ "$(cat /tmp/e2v.rc)" = 0 ]; then
		echo "SHA256 $_p ${_s%% *}"
	else
		case $_m in
		*"can't open"*)
			echo "OPENERR $_p $(e2v_errno "$_m") $(e2v_oneline "$_m")" ;;
		*)
			# The blocks before the bad one are in the page cache now: count them.
			_n=$(dd if="$_p" bs=4096 2>/dev/null | wc -c)
			echo "READERR $_p $(e2v_errno "$_m") $((_n / 4096)) $(e2v_oneline "$_m")" ;;
		esac
	fi
}

# hash_all [PATH...] - hash_one for each path: one sha256sum reads them all (a process a file costs
# more than the file under TCG), and a file it could not read is read again alone by hash_one,
# which says where the reads stop
hash_all()
{
	e2v_with_list e2v_hash_list "$@"
}

e2v_hash_list()
{
	# its lines "<hex>  <path>", in the order of the arguments, none for a file it could not read
	sha256sum "$@" >/tmp/e2v.sums 2>/dev/null
	e2v_walk /tmp/e2v.sums e2v_hashed hash_one "$@"
}

# e2v_hashed PATH HEX - hash_one's line for a file read whole
e2v_hashed()
{
	echo "SHA256 $1 $2"
}

# expect_eio [PATH...] -> "EXPECT_EIO <path> OK <block>" when reading fails with EIO (at <block>),
#                         "EXPECT_EIO <path> FAIL <what hash_one said>" otherwise
expect_eio()
{
	e2v_paths "$@" | while read -r _p; do
		_r=$(hash_one "$_p")
		# shellcheck disable=SC2086 # split the result into words
		set -- $_r
		if [ "$1" = READERR ] && [ "$3" = EIO ]; then
			echo "EXPECT_EIO $_p OK $4"
		else
			echo "EXPECT_EIO $_p FAIL $_r"
		fi
	done
}

# read_block PATH N -> "BLOCK <path> <n> <sha256 of the 4096-byte block>" | "BLOCK <path> <n> ERR <ERRNO> <msg>"
read_block()
{
	_s=$( (dd if="$1" bs=4096 skip="$2" count=1 2>/tmp/e2v.err; echo $? >/tmp/e2v.rc) | sha256sum)
	_m=$(cat /tmp/e2v.err)
	if [ "$(cat /tmp/e2v.rc)" = 0 ]; then
		echo "BLOCK $1 $2 ${_s%% *}"
	else
		echo "BLOCK $1 $2 ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
	fi
}

# flags_all [PATH...] -> "FLAGS <path> <lsattr flags> verity=yes|no immutable=yes|no"
#                        | "FLAGS <path> ERR <ERRNO> <msg>"
# One lsattr for them all; a file it has no line for is asked alone, for its error
flags_all()
{
	e2v_with_list e2v_flags_list "$@"
}

e2v_flags_list()
{
	# its lines "<flags> <path>", in the order of the arguments
	lsattr -d "$@" >/tmp/e2v.flags 2>/dev/null
	e2v_walk /tmp/e2v.flags e2v_flags_line e2v_flags_one "$@"
}

# e2v_flags_one PATH - lsattr of PATH alone: its flags line, or its error
e2v_flags_one()
{
	if _m=$(lsattr -d "$1" 2>&1); then
		e2v_flags_line "$1" "${_m%% *}"
	else
		echo "FLAGS $1 ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
	fi
}

# e2v_flags_line PATH FLAGS - the FLAGS line of PATH, with lsattr's flags FLAGS
e2v_flags_line()
{
	_fv=no
	_fi=no
	case $2 in *V*) _fv=yes ;; esac
	case $2 in *i*) _fi=yes ;; esac
	echo "FLAGS $1 $2 verity=$_fv immutable=$_fi"
}

# size_all [PATH...] -> "SIZE <path> <st_size>" | "SIZE <path> ERR <ERRNO> <msg>"
size_all()
{
	e2v_paths "$@" | while read -r _p; do
		if _m=$(stat -c %s "$_p" 2>&1); then
			echo "SIZE $_p $_m"
		else
			echo "SIZE $_p ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		fi
	done
}

# metadata_all TYPE [PATH...] - TYPE is merkle_tree, descriptor or signature (fsverity dump_metadata)
#   -> "METADATA <path> <type> <bytes> <sha256>" | "METADATA <path> <type> ERR <ERRNO> <msg>"
metadata_all()
{
	_t=$1
	shift
	e2v_paths "$@" | while read -r _p; do
		if fsverity dump_metadata "$_t" "$_p" >/tmp/e2v.md 2>/tmp/e2v.err; then
			_s=$(sha256sum </tmp/e2v.md)
			echo "METADATA $_p $_t $(wc -c </tmp/e2v.md) ${_s%% *}"
		else
			_m=$(cat /tmp/e2v.err)
			echo "METADATA $_p $_t ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		fi
		rm -f /tmp/e2v.md
	done
}

# load_cert DER_FILE -> "CERT <file> OK <key id>" | "CERT <file> ERR <ERRNO> <msg>"
# Adds an X.509 certificate (DER) to the .fs-verity keyring.
load_cert()
{
	if _m=$(keyctl padd asymmetric '' %keyring:.fs-verity <"$1" 2>&1); then
		echo "CERT $1 OK $_m"
	else
		echo "CERT $1 ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		return 1
	fi
}

# require_signatures 0|1 -> "SYSCTL require_signatures <value now>" | "... ERR <ERRNO> <msg>"
require_signatures()
{
	if _m=$( (echo "$1" >/proc/sys/fs/verity/require_signatures) 2>&1); then
		echo "SYSCTL require_signatures $(cat /proc/sys/fs/verity/require_signatures)"
	else
		echo "SYSCTL require_signatures ERR $(e2v_errno "$_m") $(e2v_oneline "$_m")"
		return 1
	fi
}

# kmsg ERE - "KMSG <line>" for each kernel log line matching the extended regular expression
kmsg()
{
	dmesg | grep -E -e "$1" | sed 's/^/KMSG /'
}
