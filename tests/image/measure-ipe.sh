#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# measure-ipe.sh - issue 38: `measure --format=ipe` prints an IPE policy that lets exactly the
# sealed files execute: one rule a name, whose fsverity_digest is what fsverity-utils computes for
# the file's data (SHA-256 and SHA-512 with a salt), and which security/ipe/policy_parser.c would
# parse (ipe_check below follows ipe_parse_policy() rule by rule; it refuses six known-bad policies
# first, so that it is known to refuse).  Names with blanks, '#' and a line break stay in their
# comment.  Oracles: fsverity digest, the kernel parser's rules.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/image/image-lib.sh"
require_cmd fsverity
t_tmpdir
cd "$T_TMP" || exit 1

# ipe_check FILE: status 0 if the kernel's parser (security/ipe/policy_parser.c) takes the policy;
# else the reason on stderr.  Lines: what follows '#' removed, trailing blanks removed, empty
# lines skipped (ipe_parse_policy); the first is the header (parse_header: policy_name= then
# policy_version= with three numbers up to 65535), the others rules (parse_rule: an optional
# DEFAULT, an op=, properties, the last token an action=; a DEFAULT has no property and comes once
# for all operations and once for each); at the end a default for all, or for each of the seven
# operations (validate_policy).  fsverity_digest=ALG:HEX needs the ':' and an even number of hex
# digits (ipe_digest_parse, hex2bin).
ipe_check()
{
	awk '
	function bad(why) { print "line " NR ": " why > "/dev/stderr"; failed = 1; exit 1 }
	BEGIN {
		split("EXECUTE FIRMWARE KMODULE KEXEC_IMAGE KEXEC_INITRAMFS POLICY X509_CERT", o, " ")
		for (i in o) op_ok["op=" o[i]] = 1
		nops = 7
	}
	{
		line = $0
		sub(/#.*/, "", line)
		sub(/[ \t\r\n\v\f]+$/, "", line)
		if (line == "")
			next
		n = split(line, t, /[ \t]+/)
		k = 0
		for (i = 1; i <= n; i++)
			if (t[i] != "")
				w[++k] = t[i]
		if (!header) {
			if (k != 2 || w[1] !~ /^policy_name=./ || w[2] !~ /^policy_version=/)
				bad("not a header: " line)
			v = substr(w[2], 16)
			if (split(v, p, ".") != 3)
				bad("version " v ": not three numbers")
			for (i = 1; i <= 3; i++)
				if (p[i] !~ /^[0-9]+$/ || p[i] + 0 > 65535)
					bad("version " v ": " p[i] " is no u16")
			header = 1
			next
		}
		if (w[k] != "action=ALLOW" && w[k] != "action=DENY")
			bad("the last token is no action: " w[k])
		i = 1
		dflt = 0
		if (w[1] == "DEFAULT") {
			dflt = 1
			i = 2
		}
		op = ""
		if (i < k) {
			if (!(w[i] in op_ok))
				bad("no operation: " w[i])
			op = w[i++]
		} else if (!dflt)
			bad("a rule without an operation")
		for (; i < k; i++) {
			if (dflt)
				bad("a DEFAULT with a property: " w[i])
			if (w[i] ~ /^(boot_verified|dmverity_signature|fsverity_signature)=(TRUE|FALSE)$/)
				continue
			if (w[i] !~ /^(dmverity_roothash|fsverity_digest)=./)
				bad("no property: " w[i])
			val = w[i]
			sub(/^[a-z_]*=/, "", val)
			c = index(val, ":")
			hex = substr(val, c + 1)
			if (!c || length(hex) % 2 || hex !~ /^[0-9a-fA-F]*$/)
				bad("no ALG:HEX digest: " val)
		}
		if (dflt && op == "") {
			if (global++)
				bad("a second DEFAULT for all operations")
		} else if (dflt && opdef[op]++)
			bad("a second DEFAULT for " op)
	}
	END {
		if (failed)
			exit 1
		if (!header) {
			print "no header" > "/dev/stderr"
			exit 1
		}
		if (!global) {
			d = 0
			for (x in opdef)
				d++
			if (d < nops) {
				print "no default for every operation" > "/dev/stderr"
				exit 1
			}
		}
	}' "$1"
}

ipe_refuses()
{
	! ipe_check "$1" 2>/dev/null
}

# the checker refuses what the kernel refuses
hdr='policy_name=t policy_version=0.0.1'
for b in "policy_version=1.0.0 policy_name=t|DEFAULT action=ALLOW" \
	"policy_name=t policy_version=1.0|DEFAULT action=ALLOW" \
	"$hdr|DEFAULT op=EXECUTE action=DENY" \
	"$hdr|DEFAULT action=ALLOW|op=EXECUTE fsverity_digest=sha256:abc action=ALLOW" \
	"$hdr|DEFAULT action=ALLOW|DEFAULT fsverity_signature=TRUE action=DENY" \
	"$hdr|DEFAULT action=ALLOW|op=EXECUTE fsverity_digest=sha256:00 action=MAYBE"; do
	echo "$b" | tr '|' '\n' >bad.pol
	check "the checker refuses: $b" ipe_refuses bad.pol
done
printf '%s\n' "$hdr  # comment" "" "DEFAULT action=ALLOW" \
	"op=KMODULE boot_verified=TRUE action=ALLOW" >good.pol
check "the checker takes a policy with a comment and a blank line" ipe_check good.pol

mkdir src
seeded src/a 100000 1
seeded src/b 3000 2
seeded src/s512 70000 3
seeded "src/we ird#na
me" 5000 4
seeded src/plain 4096 5
ln src/a src/a-link
mkimg img src 16M -b 4096 -O verity
"$E2VERITY" seal -q img /a /b "/we ird#na
me" || fail "seal"
"$E2VERITY" seal -q --hash-alg=sha512 --salt=00ff img /s512 || fail "seal --hash-alg=sha512"

"$E2VERITY" measure --format=ipe img --all >all.pol 2>err
check "measure --format=ipe --all exits 0" test $? -eq 0
check "nothing on stderr" test ! -s err
check "the kernel's parser takes the policy" ipe_check all.pol
same "the header names the image, version 0.0.0" "$(head -n 1 all.pol)" \
	"policy_name=img policy_version=0.0.0"
same "every other operation allowed, EXECUTE denied by default" "$(sed -n 2,3p all.pol | tr '\n' '|')" \
	"DEFAULT action=ALLOW|DEFAULT op=EXECUTE action=DENY|"

# each rule's digest is fsverity-utils', for the name its comment gives
want() # NAME [OPTIONS...]: the rule fsverity digest makes for src/NAME
{
	w_name=$1
	shift
	echo "op=EXECUTE fsverity_digest=$(fsverity digest "$@" "src/$w_name" | head -n 1 | cut -d" " -f1) action=ALLOW"
}
{
	echo "# /a"
	want a
	echo "# /a-link"
	want a
	echo "# /b"
	want b
	echo "# /s512"
	want s512 --hash-alg=sha512 --salt=00ff
	printf '%s\n' '# /we ird#na\nme'
	want "we ird#na
me"
} >want.rules
tail -n +4 all.pol >got.rules
check "one rule a sealed name, fsverity digest's digests, the unsealed file left out" \
	cmp want.rules got.rules

"$E2VERITY" measure --format=ipe --policy-name=rootfs-v2 --policy-version=2.65535.0 img /b >one.pol
check "measure --format=ipe of one named file exits 0" test $? -eq 0
check "the kernel's parser takes it" ipe_check one.pol
same "--policy-name and --policy-version in the header" "$(head -n 1 one.pol)" \
	"policy_name=rootfs-v2 policy_version=2.65535.0"
same "one rule" "$(grep -c '^op=' one.pol)" 1

# a name the parser would split or cut is made one word
cp img "my image#1.img"
"$E2VERITY" measure --format=ipe "my image#1.img" /b | head -n 1 >hdr.out
same "the default name has no blank and no '#'" "$(cat hdr.out)" \
	"policy_name=my_image_1.img policy_version=0.0.0"

# the other formats by name are the options'
"$E2VERITY" measure --json img --all >j1
"$E2VERITY" measure --format=json img --all >j2
check "--format=json is --json" cmp j1 j2
"$E2VERITY" measure --compact img --all >c1
"$E2VERITY" measure --format=compact img --all >c2
check "--format=compact is --compact" cmp c1 c2
"$E2VERITY" measure img --all >t1
"$E2VERITY" measure --format=text img --all >t2
check "--format=text is the default" cmp t1 t2

# usage errors: exit 2, nothing on stdout, the reason named
usage() # WHAT ARGS...
{
	u_what=$1
	shift
	"$E2VERITY" measure "$@" >u.out 2>u.err
	u_st=$?
	same "$u_what: exit 2" "$u_st" 2
	check "$u_what: nothing on stdout" test ! -s u.out
	check "$u_what: the option named" grep -q -- "${1%%=*}" u.err
}
usage "a name with a blank" --format=ipe "--policy-name=a b" img --all
usage "a name with '#'" --format=ipe "--policy-name=a#b" img --all
usage "an empty name" --format=ipe --policy-name= img --all
usage "a version of two numbers" --format=ipe --policy-version=1.2 img --all
usage "a version number past 65535" --format=ipe --policy-version=1.2.65536 img --all
usage "a version with a sign" --format=ipe --policy-version=1.-2.3 img --all
usage "--policy-name without --format=ipe" --policy-name=x img --all
usage "an unknown format" --format=xml img --all
finish
