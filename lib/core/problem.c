// SPDX-License-Identifier: GPL-2.0-or-later
/* problem.c - the table of problems check reports, and their message templates */
#include "config.h"

#include <string.h>

#include "core.h"

#define W E2VERITY_SEV_WARNING
#define E E2VERITY_SEV_ERROR
/* the finding's fields each row reports, as its template prints them */
#define V E2VERITY_FIELD_VALUE
#define X E2VERITY_FIELD_EXPECTED
#define O E2VERITY_FIELD_OFFSET
#define B E2VERITY_FIELD_BLOCK
#define N E2VERITY_FIELD_COUNT
#define L E2VERITY_FIELD_LEVEL
#define S E2VERITY_FIELD_STORED
#define C E2VERITY_FIELD_COMPUTED
#define R E2VERITY_FIELD_ERR
#define H E2VERITY_FIELD_EXPECTED_HASH

/* Sorted by code: e2verity_problem_lookup() searches it by halves. */
static const struct e2verity_problem e2v_problems[] = {
	{ E2VERITY_PR_NO_VERITY_FEATURE, "NO_VERITY_FEATURE", E,
	  "has the verity flag but the filesystem lacks the verity feature: the kernel reads it, "
	  "but cannot measure it",
	  0 },
	{ E2VERITY_PR_NOT_REGULAR, "NOT_REGULAR", E,
	  "has the verity flag but is not a regular file (mode %h)", V },
	{ E2VERITY_PR_NOT_SEALED, "NOT_SEALED", E, "is not sealed with fs-verity", 0 },
	{ E2VERITY_PR_ENCRYPTED, "ENCRYPTED", W,
	  "is encrypted: its verity metadata cannot be checked without the key", 0 },
	{ E2VERITY_PR_INLINE_DATA, "INLINE_DATA", E,
	  "keeps its data inline in the inode; the kernel needs extents for fs-verity", 0 },
	{ E2VERITY_PR_NO_EXTENTS_FLAG, "NO_EXTENTS_FLAG", E,
	  "is block-mapped (no extents flag); the kernel refuses such verity files", 0 },
	{ E2VERITY_PR_EXTENTS_UNREADABLE, "EXTENTS_UNREADABLE", E, "extent tree cannot be read: %e",
	  R },
	{ E2VERITY_PR_NO_EXTENT, "NO_EXTENT", E,
	  "has no extents, so the kernel cannot find its verity descriptor", 0 },
	{ E2VERITY_PR_LAST_EXTENT_UNWRITTEN, "LAST_EXTENT_UNWRITTEN", E,
	  "last extent (logical block %b) is unwritten, so the descriptor size word reads as 0",
	  B },
	{ E2VERITY_PR_SIZE_TOO_LARGE, "SIZE_TOO_LARGE", E,
	  "i_size %v exceeds %x, the largest size a file of this filesystem can have", V | X },
	{ E2VERITY_PR_ENCRYPT_NO_FEATURE, "ENCRYPT_NO_FEATURE", E,
	  "has the encrypt flag but the filesystem lacks the encrypt feature: nothing in it can be "
	  "encrypted, and the flag would hide it from checking",
	  0 },
	{ E2VERITY_PR_CASEFOLD_NO_FEATURE, "CASEFOLD_NO_FEATURE", E,
	  "has the casefold flag but the filesystem lacks the casefold feature: the kernel refuses "
	  "to load the inode",
	  0 },
	{ E2VERITY_PR_INODE_EXTRA_ISIZE, "INODE_EXTRA_ISIZE", E,
	  "i_extra_isize is %v, not a multiple of 4 up to %x (the inode size less 128): the kernel "
	  "refuses to load the inode",
	  V | X },
	{ E2VERITY_PR_INODE_CHECKSUM, "INODE_CHECKSUM", E,
	  "inode checksum is 0x%S, should be 0x%C (metadata_csum): the kernel refuses to load the "
	  "inode",
	  S | C },
	{ E2VERITY_PR_INODE_LINKS_ZERO, "INODE_LINKS_ZERO", E,
	  "has a link count of 0: the kernel takes the inode as deleted and refuses to load it",
	  0 },
	{ E2VERITY_PR_INODE_INDEX_FLAG, "INODE_INDEX_FLAG", E,
	  "has the htree index flag on a filesystem with metadata_csum but without dir_index "
	  "(flags %h): the kernel refuses to load the inode",
	  V },
	{ E2VERITY_PR_INODE_XATTR_BAD, "INODE_XATTR_BAD", E,
	  "in-inode extended attribute at byte %v of the %x-byte inode runs past it or is "
	  "malformed: the kernel refuses to load the inode",
	  V | X },
	{ E2VERITY_PR_INODE_FILE_ACL, "INODE_FILE_ACL", E,
	  "extended attribute block %v is outside the filesystem (%x blocks) or in its metadata: "
	  "the kernel refuses to load the inode",
	  V | X },
	{ E2VERITY_PR_INODE_EA_INODE_FLAG, "INODE_EA_INODE_FLAG", E,
	  "has the EA_INODE flag of an extended attribute's value inode (flags %h): the kernel "
	  "refuses to load it as a file",
	  V },
	{ E2VERITY_PR_DIR_BLOCK_CHECKSUM, "DIR_BLOCK_CHECKSUM", E,
	  "directory inode %v on the path to it fails the checksum of its logical block %b "
	  "(metadata_csum): the kernel's lookup of the path fails",
	  V | B },
	{ E2VERITY_PR_VERITY_NOT_FILE, "VERITY_NOT_FILE", W,
	  "has the verity flag but is a directory or a symbolic link (mode %h): the kernel lists "
	  "or follows it all the same, and nothing measures it",
	  V },
	{ E2VERITY_PR_DIR_INODE_REFUSED, "DIR_INODE_REFUSED", E,
	  "directory inode %v on the path to it breaks a rule of the kernel's inode load "
	  "(its checksum, extra size, extended attributes, attribute block, link count or flags): "
	  "the kernel's lookup of the path fails",
	  V },
	{ E2VERITY_PR_PATH_LOOKUP_FAILED, "PATH_LOOKUP_FAILED", E,
	  "directory inode %v on its path is damaged (%e): the lookup of the path fails, the "
	  "kernel's too",
	  V | R },

	{ E2VERITY_PR_SIZE_WORD_BAD, "SIZE_WORD_BAD", E,
	  "descriptor size word at offset %o reads %v, should be %x", V | X | O },
	{ E2VERITY_PR_NO_DESCRIPTOR, "NO_DESCRIPTOR", E,
	  "cannot find the fs-verity descriptor: the size word at offset %o reads %v", V | O },
	{ E2VERITY_PR_BLOCKS_PAST_METADATA, "BLOCKS_PAST_METADATA", E,
	  "%n blocks are allocated after the verity metadata, which ends at offset %x; the kernel "
	  "looks for the descriptor size in the last block",
	  X | N },
	{ E2VERITY_PR_METADATA_TRUNCATED, "METADATA_TRUNCATED", E,
	  "extents end at offset %v, short of the verity metadata, which reaches offset %x at "
	  "least",
	  V | X },
	{ E2VERITY_PR_METADATA_LAYOUT, "METADATA_LAYOUT", W,
	  "verity metadata ends at offset %v, not at offset %x where ext4 ends it (descriptor at "
	  "offset %o)",
	  V | X | O },
	{ E2VERITY_PR_TAIL_NOT_ZERO, "TAIL_NOT_ZERO", E,
	  "byte at offset %o, after the end of the data in its last block, is %h, not 0; the "
	  "kernel hashes the whole block",
	  V | O },
	{ E2VERITY_PR_GAP_NOT_ZERO, "GAP_NOT_ZERO", W,
	  "byte at offset %o, between the end of the data and the Merkle tree, is %h, not 0",
	  V | O },
	{ E2VERITY_PR_SIZE_WORD_UNUSUAL, "SIZE_WORD_UNUSUAL", W,
	  "descriptor size word at offset %o reads %v, not %x (256 plus the signature size); the "
	  "kernel accepts it",
	  V | X | O },
	{ E2VERITY_PR_TREE_PAST_DESCRIPTOR, "TREE_PAST_DESCRIPTOR", E,
	  "the descriptor's Merkle tree of %v bytes, from offset %o, runs past the descriptor at "
	  "offset %x",
	  V | X | O },
	{ E2VERITY_PR_TREE_HOLE, "TREE_HOLE", E,
	  "Merkle tree block at offset %o is not allocated (%n of the tree's %v filesystem blocks "
	  "are missing): the kernel reads zeros there and fails every read it checks with them",
	  V | O | N },
	/* what the kernel refuses of it is an EXTENT_* error; the rest it reads */
	{ E2VERITY_PR_METADATA_NOT_OWN, "METADATA_NOT_OWN", W,
	  "%e; unseal and seal --force would refuse to free them", R },

	{ E2VERITY_PR_DESC_BAD_VERSION, "DESC_BAD_VERSION", E,
	  "descriptor version is %v, should be 1", V },
	{ E2VERITY_PR_DESC_BAD_HASH_ALG, "DESC_BAD_HASH_ALG", E,
	  "descriptor hash algorithm %v is unknown (1 sha256, 2 sha512)", V },
	{ E2VERITY_PR_DESC_BAD_LOG_BLOCKSIZE, "DESC_BAD_LOG_BLOCKSIZE", E,
	  "descriptor log_blocksize %v is unsupported (10 to 16)", V },
	{ E2VERITY_PR_DESC_BLOCK_TOO_LARGE, "DESC_BLOCK_TOO_LARGE", E,
	  "Merkle tree block size %v exceeds the filesystem block size %x", V | X },
	{ E2VERITY_PR_DESC_BAD_SALT_SIZE, "DESC_BAD_SALT_SIZE", E,
	  "descriptor salt size %v exceeds 32", V },
	{ E2VERITY_PR_DESC_BAD_SIG_SIZE, "DESC_BAD_SIG_SIZE", E,
	  "descriptor sig_size %v overflows the %x bytes stored after the descriptor", V | X },
	{ E2VERITY_PR_DESC_RESERVED_SET, "DESC_RESERVED_SET", E,
	  "descriptor reserved byte at offset %o is %h, should be 0", V | O },
	{ E2VERITY_PR_DESC_BAD_DATA_SIZE, "DESC_BAD_DATA_SIZE", E,
	  "descriptor data_size %v differs from i_size %x", V | X },
	{ E2VERITY_PR_DESC_TOO_MANY_LEVELS, "DESC_TOO_MANY_LEVELS", E,
	  "descriptor describes a Merkle tree of more than 8 levels", 0 },
	{ E2VERITY_PR_DESC_ROOT_PADDING, "DESC_ROOT_PADDING", W,
	  "descriptor byte at offset %o, after the root hash, is %h, should be 0", V | O },
	{ E2VERITY_PR_DESC_SALT_PADDING, "DESC_SALT_PADDING", W,
	  "descriptor byte at offset %o, after the salt, is %h, should be 0", V | O },

	{ E2VERITY_PR_DATA_MISMATCH, "DATA_MISMATCH", E,
	  "data block %b (offset %o) does not match its hash in the Merkle tree: computed %C, "
	  "stored %S (%n data blocks differ)",
	  O | B | N | S | C },
	{ E2VERITY_PR_TREE_MISMATCH, "TREE_MISMATCH", E,
	  "Merkle tree level %l block %b does not match its hash in the level above: computed %C, "
	  "stored %S (%n blocks of level %l differ)",
	  B | N | L | S | C },
	{ E2VERITY_PR_ROOT_MISMATCH, "ROOT_MISMATCH", E,
	  "top of the Merkle tree hashes to %C, but the descriptor's root hash is %S", S | C },
	{ E2VERITY_PR_TREE_PARAMS_MISMATCH, "TREE_PARAMS_MISMATCH", E,
	  "no data or tree block matches its stored hash: the descriptor's salt or hash "
	  "parameters do not fit the Merkle tree",
	  0 },

	{ E2VERITY_PR_SIG_MALFORMED, "SIG_MALFORMED", E,
	  "built-in signature (%v bytes) is not a valid PKCS#7 message", V },
	{ E2VERITY_PR_SIG_MISMATCH, "SIG_MISMATCH", E,
	  "built-in signature does not match the file digest and the certificate", 0 },
	{ E2VERITY_PR_SIG_UNTRUSTED, "SIG_UNTRUSTED", E,
	  "built-in signature's certificate does not chain to the CA", 0 },
	{ E2VERITY_PR_UNSIGNED, "UNSIGNED", E,
	  "has no built-in signature, and signatures are required", 0 },
	{ E2VERITY_PR_SIG_NO_SIGNER, "SIG_NO_SIGNER", E,
	  "built-in signature does not carry its signer's certificate, and no --cert was given",
	  0 },
	{ E2VERITY_PR_SIG_CONTENT_TYPE, "SIG_CONTENT_TYPE", E,
	  "built-in signature signs content of another type than id-data, which the kernel refuses",
	  0 },
	{ E2VERITY_PR_SIG_VERSION, "SIG_VERSION", E,
	  "built-in signature's SignedData version is %v; the kernel takes 1 or 3", V },
	{ E2VERITY_PR_SIG_SIGNER_VERSION, "SIG_SIGNER_VERSION", E,
	  "built-in signature's SignerInfo version is %v under SignedData version %x; the kernel "
	  "takes 1 under 1 naming the signer by issuer and serial number, or 3 under 3 naming it by "
	  "subject key identifier",
	  V | X },
	{ E2VERITY_PR_SIG_DIGEST_ALG, "SIG_DIGEST_ALG", E,
	  "built-in signature's signer %v uses a digest algorithm that a kernel from 6.1 on "
	  "refuses (they all take SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512)",
	  V },
	{ E2VERITY_PR_SIG_PKEY_ALG, "SIG_PKEY_ALG", E,
	  "built-in signature's signer %v names a public-key algorithm the kernel refuses for it "
	  "(rsaEncryption for an RSA key, ecdsa-with-SHA* for an EC key)",
	  V },
	{ E2VERITY_PR_SIG_ATTRIBUTES, "SIG_ATTRIBUTES", E,
	  "built-in signature's signer %v has signed attributes the kernel refuses (S/MIME "
	  "capabilities, a repeated or missing attribute, a content type other than id-data, a "
	  "message digest or signing time it cannot use)",
	  V },
	{ E2VERITY_PR_SIG_BAD_CERT, "SIG_BAD_CERT", E,
	  "certificate %v in the built-in signature is refused by the kernel (its form, key, "
	  "signature algorithm, dates, or a signature that fails its issuer's key)",
	  V },
	{ E2VERITY_PR_SIG_DIGEST_SET, "SIG_DIGEST_SET", W,
	  "built-in signature's outer digestAlgorithms set does not list just its signers' digest "
	  "algorithms; the kernel ignores it, other verifiers may refuse it",
	  0 },
	{ E2VERITY_PR_SIG_ALG_PARAMS, "SIG_ALG_PARAMS", W,
	  "built-in signature's signer algorithms have parameters other than NULL; the kernel "
	  "ignores them",
	  0 },
	{ E2VERITY_PR_SIG_TRAILING_DATA, "SIG_TRAILING_DATA", W,
	  "%v bytes follow the built-in signature's PKCS#7 message; the kernel ignores them", V },
	{ E2VERITY_PR_SIG_NOT_DER, "SIG_NOT_DER", W,
	  "built-in signature is not DER (an indefinite or long length, another tag form, a "
	  "SEQUENCE for a SET); the kernel decodes it, other verifiers may not",
	  0 },

	/* fs/ext4/extents.c __ext4_ext_check(); node block 0 is the root, in the inode */
	{ E2VERITY_PR_EXTENT_BAD_MAGIC, "EXTENT_BAD_MAGIC", E,
	  "extent tree node in block %b has magic %h, not 0xf30a", V | B },
	{ E2VERITY_PR_EXTENT_BAD_DEPTH, "EXTENT_BAD_DEPTH", E,
	  "extent tree node in block %b says it is at depth %v; its index entry puts it at depth "
	  "%x",
	  V | X | B },
	{ E2VERITY_PR_EXTENT_TOO_DEEP, "EXTENT_TOO_DEEP", E,
	  "extent tree has depth %v; the kernel reads trees of depth %x at most", V | X },
	{ E2VERITY_PR_EXTENT_BAD_MAX, "EXTENT_BAD_MAX", E,
	  "extent tree node in block %b claims room for %v entries; it has room for 1 to %x",
	  V | X | B },
	{ E2VERITY_PR_EXTENT_BAD_ENTRIES, "EXTENT_BAD_ENTRIES", E,
	  "extent tree node in block %b holds %v entries, more than its room for %x", V | X | B },
	{ E2VERITY_PR_EXTENT_EMPTY_INDEX, "EXTENT_EMPTY_INDEX", E,
	  "extent tree index node in block %b has no entries", B },
	{ E2VERITY_PR_EXTENT_INDEX_MISMATCH, "EXTENT_INDEX_MISMATCH", E,
	  "extent tree node in block %b begins at logical block %v, but its index entry says %x",
	  V | X | B },
	{ E2VERITY_PR_EXTENT_ZERO_LENGTH, "EXTENT_ZERO_LENGTH", E,
	  "extent at logical block %v (tree node in block %b) has length 0", V | B },
	{ E2VERITY_PR_EXTENT_LBLK_OVERFLOW, "EXTENT_LBLK_OVERFLOW", E,
	  "extent at logical block %v of %n blocks runs past logical block 4294967294, the last "
	  "a file has",
	  V | N },
	{ E2VERITY_PR_EXTENT_OUTSIDE_FS, "EXTENT_OUTSIDE_FS", E,
	  "extent tree entry at logical block %v names %n blocks from block %x, not all between "
	  "the first data block and the end of the filesystem",
	  V | X | N },
	{ E2VERITY_PR_EXTENT_IN_SYSTEM_ZONE, "EXTENT_IN_SYSTEM_ZONE", E,
	  "extent tree entry at logical block %v names block %x, which is filesystem metadata "
	  "(superblock, group descriptors, a bitmap, the inode table or the journal)",
	  V | X },
	{ E2VERITY_PR_EXTENT_OUT_OF_ORDER, "EXTENT_OUT_OF_ORDER", E,
	  "extent at logical block %v follows the extent at logical block %x (tree node in block "
	  "%b): out of order",
	  V | X | B },
	{ E2VERITY_PR_EXTENT_DUPLICATE, "EXTENT_DUPLICATE", E,
	  "two extents begin at logical block %v (tree node in block %b)", V | B },
	{ E2VERITY_PR_EXTENT_OVERLAP, "EXTENT_OVERLAP", E,
	  "extent at logical block %v begins inside the extent before it, which ends at logical "
	  "block %x (tree node in block %b)",
	  V | X | B },
	{ E2VERITY_PR_EXTENT_INDEX_ORDER, "EXTENT_INDEX_ORDER", E,
	  "extent index entry at logical block %v does not follow the one before it, at logical "
	  "block %x (tree node in block %b)",
	  V | X | B },
	{ E2VERITY_PR_EXTENT_BAD_CHECKSUM, "EXTENT_BAD_CHECKSUM", E,
	  "extent tree node in block %b fails its checksum", B },
	{ E2VERITY_PR_EXTENT_PAST_INDEX, "EXTENT_PAST_INDEX", W,
	  "extent tree entry at logical block %v is not all before logical block %x, where the "
	  "range of its index entry ends: the kernel never reads it there",
	  V | X },

	/* what the kernel named by --min-kernel cannot read */
	{ E2VERITY_PR_KERNEL_FS_BLOCK, "KERNEL_FS_BLOCK", E,
	  "is on a filesystem of %v-byte blocks, which the kernel it is for does not mount with "
	  "fs-verity: before Linux 6.3 the block size must be the page size (%x bytes), and it "
	  "can never exceed it",
	  V | X },
	{ E2VERITY_PR_KERNEL_TREE_BLOCK, "KERNEL_TREE_BLOCK", E,
	  "has %v-byte Merkle tree blocks, which the kernel it is for does not read: before Linux "
	  "6.3 they must be the page size (%x bytes), and they can never exceed it",
	  V | X },

	/* security/integrity/ima/ima_appraise.c xattr_verify(), digsig_asymmetric.c */
	{ E2VERITY_PR_IMA_MISSING, "IMA_MISSING", E,
	  "has no security.ima, and IMA signatures are required: an IMA appraisal policy "
	  "refuses the file",
	  0 },
	{ E2VERITY_PR_IMA_MALFORMED, "IMA_MALFORMED", E,
	  "security.ima (%v bytes) is not a well-formed fs-verity signature (type 6, version 3, "
	  "a hash algorithm the kernel knows, the signature size its header gives): the kernel "
	  "refuses the file",
	  V },
	{ E2VERITY_PR_IMA_NOT_VERITY, "IMA_NOT_VERITY", E,
	  "security.ima holds IMA data of type %v, not an fs-verity signature (type 6): a policy "
	  "with digest_type=verity refuses the file",
	  V },
	{ E2VERITY_PR_IMA_UNKNOWN_KEY, "IMA_UNKNOWN_KEY", E,
	  "security.ima is signed by key id %h, which no certificate of --ima-cert has: the "
	  "kernel finds no key for it",
	  V },
	{ E2VERITY_PR_IMA_MISMATCH, "IMA_MISMATCH", E,
	  "security.ima signature of key id %h does not match the file's fs-verity digest", V },
	{ E2VERITY_PR_IMA_UNREADABLE, "IMA_UNREADABLE", E, "extended attributes cannot be read: %e",
	  R },

	/* check --manifest: the image against what the build recorded */
	{ E2VERITY_PR_MANIFEST_MISSING, "MANIFEST_MISSING", E,
	  "is listed in the manifest but is not in the image", 0 },
	{ E2VERITY_PR_MANIFEST_NOT_SEALED, "MANIFEST_NOT_SEALED", E,
	  "is listed in the manifest but is not a sealed regular file", 0 },
	{ E2VERITY_PR_MANIFEST_DIGEST, "MANIFEST_DIGEST", E, "digest %S is not the manifest's %E",
	  S | H },
	{ E2VERITY_PR_MANIFEST_HASH_ALG, "MANIFEST_HASH_ALG", E,
	  "hash algorithm is %v, the manifest's is %x (1 sha256, 2 sha512)", V | X },
	{ E2VERITY_PR_MANIFEST_BLOCK_SIZE, "MANIFEST_BLOCK_SIZE", E,
	  "Merkle tree block size is %v, the manifest's is %x", V | X },
	{ E2VERITY_PR_MANIFEST_SALT, "MANIFEST_SALT", E,
	  "salt (%v bytes) is not the manifest's (%x bytes)", V | X },
	{ E2VERITY_PR_MANIFEST_EXTRA, "MANIFEST_EXTRA", E,
	  "is sealed but the manifest does not list it", 0 },
	{ E2VERITY_PR_MANIFEST_MALFORMED, "MANIFEST_MALFORMED", E, "manifest line %v is malformed",
	  V },
	{ E2VERITY_PR_MANIFEST_DUPLICATE, "MANIFEST_DUPLICATE", E,
	  "manifest line %v lists a path that line %x lists already", V | X },

	/* check --digest-names=DIR: every file under DIR is named by its digest */
	{ E2VERITY_PR_DIGEST_NAME_FORM, "DIGEST_NAME_FORM", E,
	  "is in a store of files named by their digests, but its name there is not XX/REST, the "
	  "%v lowercase hex digits of a digest of its hash algorithm",
	  V },
	{ E2VERITY_PR_DIGEST_NAME_MISMATCH, "DIGEST_NAME_MISMATCH", E,
	  "is named for digest %E, but its fs-verity digest is %S", S | H },
};

#undef W
#undef E
#undef V
#undef X
#undef O
#undef B
#undef N
#undef L
#undef S
#undef C
#undef R
#undef H

const struct e2verity_problem *e2verity_problem_lookup(unsigned int code)
{
	size_t lo = 0, hi = E2V_ARRAY_SIZE(e2v_problems);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e2v_problems[mid].code == code)
			return &e2v_problems[mid];
		if (e2v_problems[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct e2verity_problem *e2verity_problem_by_id(const char *id)
{
	for (size_t i = 0; i < E2V_ARRAY_SIZE(e2v_problems); i++)
		if (strcmp(e2v_problems[i].id, id) == 0)
			return &e2v_problems[i];
	return NULL;
}

const struct e2verity_problem *e2verity_problem_table(size_t *count)
{
	*count = E2V_ARRAY_SIZE(e2v_problems);
	return e2v_problems;
}

const char *e2verity_severity_name(enum e2verity_severity sev)
{
	return sev == E2VERITY_SEV_ERROR ? "error" : "warning";
}
