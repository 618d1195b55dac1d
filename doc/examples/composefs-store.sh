#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# composefs-store.sh - a composefs object store in an ext4 image, every object sealed and named by
# its SHA-512 fs-verity digest, proven by check
#
#   composefs-store.sh TREE IMAGE
#
# composefs (and bootc, which builds on it) keeps the files of its images in an object store,
# objects/XX/REST, where XX and REST together are the object's fs-verity digest in lowercase hex;
# composefs-rs 0.9 and later use SHA-512 with 4096-byte blocks ("fsverity-sha512-12").  At boot
# the kernel must find each object sealed with that very digest.  Without a running kernel the
# build does it on the image:
#   1. every regular file of TREE goes into the store under the name of its digest
#      (`e2verity digest`, as `fsverity digest` computes it); a content met twice is stored once;
#   2. the store becomes an ext4 image (mke2fs -d);
#   3. every object is sealed with SHA-512 (e2verity seal -r);
#   4. check proves the store: every file under /objects sealed, named by its own digest.
set -eu
E2VERITY=${E2VERITY:-e2verity}
[ $# -eq 2 ] || { echo "usage: $0 TREE IMAGE" >&2; exit 2; }
tree=$1 img=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/objects"

# 1. the store; the compact form prints the digest alone
find "$tree" -type f | while IFS= read -r f; do
	d=$("$E2VERITY" digest --hash-alg=sha512 --compact "$f")
	mkdir -p "$work/objects/${d%"${d#??}"}"
	[ -e "$work/objects/${d%"${d#??}"}/${d#??}" ] || cp "$f" "$work/objects/${d%"${d#??}"}/${d#??}"
done

# 2. the image, with room for the trees
kb=$(du -sk "$work" | cut -f1)
mke2fs -q -F -t ext4 -b 4096 -O verity -d "$work" "$img" "$((kb * 2 + 8192))K" >/dev/null

# 3. every object sealed, as composefs-rs enables them
"$E2VERITY" seal -q -r --hash-alg=sha512 "$img" /objects

# 4. the store as the kernel will open it
"$E2VERITY" check --digest-names=/objects "$img"
