/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e2verity_core.h - the filesystem-agnostic half of libe2verity: hashes, Merkle
 * trees, descriptors and signatures, usable without libext2fs' headers
 */
#ifndef E2VERITY_CORE_H
#define E2VERITY_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <et/com_err.h>

#include "e2verity_err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Hash algorithm numbers, as stored in fsverity_descriptor.hash_algorithm */
#define E2VERITY_HASH_SHA256 1
#define E2VERITY_HASH_SHA512 2

#define E2VERITY_MAX_DIGEST_SIZE 64
#define E2VERITY_MAX_SALT_SIZE 32
#define E2VERITY_DESCRIPTOR_SIZE 256
/* FS_VERITY_MAX_DESCRIPTOR_SIZE: descriptor plus built-in signature */
#define E2VERITY_MAX_DESCRIPTOR_SIZE 16384
#define E2VERITY_MAX_SIGNATURE_SIZE (E2VERITY_MAX_DESCRIPTOR_SIZE - E2VERITY_DESCRIPTOR_SIZE)
/* the kernel's FS_VERITY_MAX_LEVELS, and the range of Merkle tree block sizes it reads */
#define E2VERITY_MAX_LEVELS 8
#define E2VERITY_MIN_BLOCK_SIZE 1024
#define E2VERITY_MAX_BLOCK_SIZE 65536
/*
 * With E2VERITY_PARAMS_HOST_DIGEST, the block sizes `fsverity digest` takes:
 * powers of 2 from twice the digest size (64 for SHA-256, 128 for SHA-512)
 * to E2VERITY_HOST_MAX_BLOCK_SIZE, in trees of up to E2VERITY_HOST_MAX_LEVELS
 * levels (libfsverity's bound; 64-byte blocks of 2^64 bytes need 58).
 */
#define E2VERITY_HOST_MAX_BLOCK_SIZE (1u << 30)
#define E2VERITY_HOST_MAX_LEVELS 64
#define E2VERITY_DEFAULT_BLOCK_SIZE 4096
/* ext4 puts the Merkle tree at round_up(i_size, 64 KiB) */
#define E2VERITY_EXT4_METADATA_ALIGN 65536
/* "FSVerity" + le16 algorithm + le16 digest size + digest */
#define E2VERITY_FORMATTED_DIGEST_MAX (12 + E2VERITY_MAX_DIGEST_SIZE)

/**
 * e2verity_init() - register the library's com_err table
 *
 * Call once before using error_message() on codes returned by the library.
 * Safe to call more than once.
 */
void e2verity_init(void);

/*
 * Receives what the library knows about a failure beyond its error code:
 * @object is the file (or the step) that failed, @detail the reasons of the
 * library below it (OpenSSL's error queue), or NULL.  @err is the code the
 * failing call returns.  Called on the failing thread, before that return.
 *
 * There is no callback for the process: the loaders of keys and
 * certificates take one as an argument, and an image has its own
 * (e2verity_image_set_log_callback() in e2verity.h).  The library never
 * prints.
 */
typedef void (*e2verity_log_fn)(void *ctx, errcode_t err, const char *object, const char *detail);

/* ---- hash -------------------------------------------------------------- */

struct e2verity_hash_alg {
	const char *name;	  /* "sha256", "sha512" */
	unsigned int num;	  /* E2VERITY_HASH_* */
	unsigned int digest_size; /* bytes */
	unsigned int block_size;  /* the hash function's input block size */
};

/**
 * e2verity_hash_alg_by_num() - look up a hash algorithm by descriptor number
 * @num: E2VERITY_HASH_*
 *
 * Return: the algorithm, or NULL if unknown.
 */
const struct e2verity_hash_alg *e2verity_hash_alg_by_num(unsigned int num);

/**
 * e2verity_hash_alg_by_name() - look up a hash algorithm by name
 * @name: "sha256" or "sha512"
 *
 * Return: the algorithm, or NULL if unknown.
 */
const struct e2verity_hash_alg *e2verity_hash_alg_by_name(const char *name);

/**
 * e2verity_hash_buf() - plain (unsalted) hash of a buffer
 * @alg: E2VERITY_HASH_*
 * @data: buffer
 * @len: its size
 * @out: digest_size bytes
 *
 * Return: 0 or an error code.
 */
errcode_t e2verity_hash_buf(unsigned int alg, const void *data, size_t len, uint8_t *out);

/* ---- hashing threads ------------------------------------------------------ */

/* Threads that hash data blocks, kept for many files; used by one caller at a time. */
struct e2verity_workers;

/**
 * e2verity_workers_new() - start a pool of hashing threads
 * @nthreads: threads in all, counting the caller's (1 starts none)
 * @ret: the pool
 *
 * Return: 0 or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_workers_new(unsigned int nthreads, struct e2verity_workers **ret);

/**
 * e2verity_workers_free() - stop and release a pool of hashing threads
 * @w: pool or NULL
 */
void e2verity_workers_free(struct e2verity_workers *w);

/* ---- tree parameters and geometry --------------------------------------- */

/*
 * How many threads hash, in every option structure that hashes
 * (e2verity_params, e2verity_check_opts, e2verity_repair_opts): the one place.
 */
struct e2verity_threads {
	unsigned int count; /* 0 or 1: the calling thread only */
	/* threads started already (e2verity_workers_new()) to reuse, or NULL: @count are started */
	struct e2verity_workers *workers;
};

struct e2verity_params {
	unsigned int hash_alg;	 /* E2VERITY_HASH_*; 0 means SHA-256 */
	unsigned int block_size; /* Merkle tree block size; 0 means 4096 */
	const uint8_t *salt;
	unsigned int salt_size;
	struct e2verity_threads threads; /* hashing threads */
	uint64_t flags;			 /* E2VERITY_PARAMS_*; other bits must be zero */
	/*
	 * Must be zero: room for the fields of later versions, whose zero keeps
	 * this version's behaviour (E2VERITY_ET_RESERVED_NOT_ZERO otherwise).
	 */
	uint64_t reserved[5];
};

/*
 * The block sizes of `fsverity digest` (E2VERITY_HOST_MAX_BLOCK_SIZE), not
 * only those a kernel reads: for digests of host files, never for a tree
 * that is stored.  Without it, E2VERITY_MIN_BLOCK_SIZE..E2VERITY_MAX_BLOCK_SIZE.
 */
#define E2VERITY_PARAMS_HOST_DIGEST 0x1

/**
 * e2verity_params_validate() - check tree parameters and fill in defaults
 * @p: parameters; zero hash_alg and block_size are replaced by the defaults
 *
 * The block size must be a power of 2 from E2VERITY_MIN_BLOCK_SIZE to
 * E2VERITY_MAX_BLOCK_SIZE, what a kernel reads; with
 * E2VERITY_PARAMS_HOST_DIGEST in @p->flags, from twice the digest size to
 * E2VERITY_HOST_MAX_BLOCK_SIZE, what `fsverity digest` takes.
 *
 * Return: 0, E2VERITY_ET_BAD_HASH_ALG, E2VERITY_ET_BAD_BLOCK_SIZE,
 * E2VERITY_ET_SALT_TOO_LONG or E2VERITY_ET_RESERVED_NOT_ZERO (reserved
 * fields or unknown flags set).
 */
errcode_t e2verity_params_validate(struct e2verity_params *p);

/* a Linux version as e2verity_kernel_min() returns it: 6.3 is E2VERITY_KERNEL_VERSION(6, 3) */
#define E2VERITY_KERNEL_VERSION(major, minor) (((major) << 16) | ((minor) << 8))

unsigned int e2verity_kernel_min(unsigned int fs_block_size, unsigned int tree_block_size,
				 unsigned int page_size);

struct e2verity_geometry {
	unsigned int num_levels; /* 0 when the data fits in one block */
	/* level 0 holds the hashes of the data blocks */
	uint64_t level_blocks[E2VERITY_MAX_LEVELS];
	/* first block of each level in the stored tree (root level first) */
	uint64_t level_start[E2VERITY_MAX_LEVELS];
	uint64_t data_blocks;
	uint64_t tree_blocks;
	uint64_t tree_size; /* bytes */
};

/**
 * e2verity_geometry() - shape of the Merkle tree for a data size
 * @p: validated parameters
 * @data_size: file size in bytes
 * @g: result
 *
 * Return: 0 or E2VERITY_ET_TOO_MANY_LEVELS (more than E2VERITY_MAX_LEVELS
 * levels, which @g cannot hold, even with E2VERITY_PARAMS_HOST_DIGEST).
 */
errcode_t e2verity_geometry(const struct e2verity_params *p, uint64_t data_size,
			    struct e2verity_geometry *g);

/* ---- descriptor ---------------------------------------------------------- */

/* struct fsverity_descriptor, decoded to host byte order */
struct e2verity_descriptor {
	uint8_t version;
	uint8_t hash_algorithm;
	uint8_t log_blocksize;
	uint8_t salt_size;
	uint32_t sig_size;
	uint64_t data_size;
	uint8_t root_hash[64];
	uint8_t salt[32];
};

/**
 * e2verity_descriptor_encode() - write the 256 on-disk bytes of a descriptor
 * @d: descriptor
 * @out: E2VERITY_DESCRIPTOR_SIZE bytes, little-endian fields
 */
void e2verity_descriptor_encode(const struct e2verity_descriptor *d, uint8_t *out);

/**
 * e2verity_descriptor_decode() - parse and validate an on-disk descriptor
 * @buf: the descriptor bytes (at least E2VERITY_DESCRIPTOR_SIZE)
 * @len: bytes available in @buf, including any signature after the descriptor
 * @d: result
 *
 * Checks each field as the kernel does on open and returns the error for the
 * first bad one; @d is filled in even then, as far as the bytes allow.
 *
 * Return: 0 or an E2VERITY_ET_DESC_* error code.
 */
errcode_t e2verity_descriptor_decode(const uint8_t *buf, size_t len, struct e2verity_descriptor *d);

/**
 * e2verity_descriptor_digest() - the fs-verity file digest
 * @d: descriptor (its sig_size is ignored: the kernel hashes it as 0)
 * @out: digest_size bytes of the descriptor's hash algorithm
 *
 * Return: 0 or an error code.
 */
errcode_t e2verity_descriptor_digest(const struct e2verity_descriptor *d, uint8_t *out);

/**
 * e2verity_formatted_digest() - the struct fsverity_formatted_digest that
 * built-in signatures sign
 * @alg: E2VERITY_HASH_*
 * @digest: file digest
 * @out: at least E2VERITY_FORMATTED_DIGEST_MAX bytes
 * @out_len: bytes written
 *
 * Return: 0 or E2VERITY_ET_BAD_HASH_ALG.
 */
errcode_t e2verity_formatted_digest(unsigned int alg, const uint8_t *digest, uint8_t *out,
				    size_t *out_len);

/* ---- Merkle tree ----------------------------------------------------------- */

/*
 * Reads exactly @count bytes of file data at @offset into @buf.  Holes read as
 * zeros.  @count is never beyond the data size given to e2verity_compute().
 */
typedef errcode_t (*e2verity_read_fn)(void *ctx, void *buf, size_t count, uint64_t offset);

/*
 * Receives one Merkle tree block of block_size bytes at byte @offset of the
 * stored tree (root level first, the layout of FS_IOC_READ_VERITY_METADATA).
 * Blocks arrive in the order they are completed, not in offset order.
 */
typedef errcode_t (*e2verity_tree_fn)(void *ctx, const void *block, size_t size, uint64_t offset);

struct e2verity_result {
	struct e2verity_descriptor desc; /* sig_size 0 */
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
	/*
	 * A tree of more than E2VERITY_MAX_LEVELS levels (tiny blocks with
	 * E2VERITY_PARAMS_HOST_DIGEST) leaves num_levels 0 and the levels
	 * empty here; data_blocks, tree_blocks and tree_size still hold.
	 */
	struct e2verity_geometry geo;
};

/**
 * e2verity_compute() - stream a file's data through the Merkle tree builder
 * @p: parameters (validated and defaulted here)
 * @data_size: file size in bytes
 * @read: data source
 * @read_ctx: passed to @read
 * @tree: tree block sink, or NULL when only the digest is wanted
 * @tree_ctx: passed to @tree
 * @res: descriptor, file digest and geometry
 *
 * Memory use is bounded by the tree height, not the file size: about
 * 1 MiB, or a block per level for blocks larger than that.
 *
 * Return: 0, an error from @read or @tree, or a library error code.
 */
errcode_t e2verity_compute(const struct e2verity_params *p, uint64_t data_size,
			   e2verity_read_fn read, void *read_ctx, e2verity_tree_fn tree,
			   void *tree_ctx, struct e2verity_result *res);

/*
 * Sets *@data to the offset of the first byte at or after @offset that may
 * not be zero, or to any offset at or past the data size when none may.
 * Answering @offset itself is always right: skipping holes only saves work.
 */
typedef errcode_t (*e2verity_seek_data_fn)(void *ctx, uint64_t offset, uint64_t *data);

/**
 * e2verity_compute_sparse() - e2verity_compute() that skips the holes of the data
 * @p: parameters (validated and defaulted here)
 * @data_size: file size in bytes
 * @read: data source
 * @seek: where the next data after an offset may be (lseek's SEEK_DATA)
 * @read_ctx: passed to @read and @seek
 * @tree: tree block sink, or NULL when only the digest is wanted
 * @tree_ctx: passed to @tree
 * @res: descriptor, file digest and geometry
 *
 * Blocks inside holes are never read: the hash of an all-zero block, and of
 * a tree block of such hashes at each level, is computed once, so the work is
 * bounded by the data the file really has (and, with @tree, by the size of
 * the tree, whose every block is still handed to @tree).
 *
 * Return: 0, an error from @read, @seek or @tree, or a library error code.
 */
errcode_t e2verity_compute_sparse(const struct e2verity_params *p, uint64_t data_size,
				  e2verity_read_fn read, e2verity_seek_data_fn seek, void *read_ctx,
				  e2verity_tree_fn tree, void *tree_ctx,
				  struct e2verity_result *res);

/* ---- signatures ------------------------------------------------------------- */

struct e2verity_signer;

/**
 * e2verity_signer_load() - load a private key and its X.509 certificate
 * @keyfile: PEM private key, or an OpenSSL store URI ("file:...", "pkcs11:...")
 * @certfile: PEM certificate or bundle, or a store URI; NULL means @keyfile
 * @key_pass: pass phrase of an encrypted key, or NULL
 * @log: told which file failed and why (e2verity_log_fn), or NULL
 * @log_ctx: passed to @log
 * @ret: the signer
 *
 * The key may be PKCS#8 or a traditional RSA/EC key, encrypted or not; other
 * PEM blocks in the files are skipped.  A name that is not an existing file but
 * starts with a URI scheme is opened through OSSL_STORE (a provider such as
 * pkcs11-provider serves "pkcs11:" URIs); without @certfile the certificate may
 * come from the key's store.  The library never prompts: an encrypted key
 * without @key_pass gives E2VERITY_ET_KEY_PASS_NEEDED, and the caller may ask
 * the user and call again.
 *
 * The certificate that matches the key is the signer's; any others of
 * @certfile are its chain.  A signer whose certificate is not self-signed
 * puts it and the chain into each signature (see e2verity_signer_set_embed()),
 * so that the kernel can chain it to a CA in its .fs-verity keyring.
 *
 * Return: 0, an errno value if a file cannot be opened (EISDIR for a
 * directory), E2VERITY_ET_KEY_LOAD, E2VERITY_ET_KEY_PASS_NEEDED,
 * E2VERITY_ET_KEY_BAD_PASS, E2VERITY_ET_CERT_LOAD or
 * E2VERITY_ET_KEY_CERT_MISMATCH.
 */
errcode_t e2verity_signer_load(const char *keyfile, const char *certfile, const char *key_pass,
			       e2verity_log_fn log, void *log_ctx, struct e2verity_signer **ret);

/**
 * e2verity_signer_set_embed() - whether signatures carry the certificates
 * @s: signer
 * @embed: 1: the signer's certificate and chain go into each signature;
 *         0: none, as `fsverity sign` makes them (the keyring must hold the
 *         signer's own certificate)
 *
 * The default, set by e2verity_signer_load(), is 1 exactly when the signer's
 * certificate is not self-signed.
 */
void e2verity_signer_set_embed(struct e2verity_signer *s, int embed);

/**
 * e2verity_signer_embeds() - whether signatures carry the certificates
 * @s: signer
 *
 * Return: 1 or 0.
 */
int e2verity_signer_embeds(const struct e2verity_signer *s);

/**
 * e2verity_signer_kernel_can_chain() - can the kernel chain the embedded
 * certificates to a CA in its keyring
 * @s: signer
 *
 * The kernel finds the CA that issued the last non-self-signed certificate of
 * the signature only through that certificate's Authority Key Identifier.
 *
 * Return: 0 if the signatures embed certificates and that one has none, else 1.
 */
int e2verity_signer_kernel_can_chain(const struct e2verity_signer *s);

/**
 * e2verity_sign_digest() - PKCS#7 signature of a file digest, as `fsverity sign`
 * @s: signer
 * @alg: the file's hash algorithm
 * @digest: file digest
 * @sig: DER signature, allocated; free() it
 * @sig_size: its size
 *
 * Signs the struct fsverity_formatted_digest with a detached PKCS#7 SignedData
 * that has no signed attributes and no certificates, and the file's hash as its
 * digest algorithm: for the same key, certificate and digest the bytes are
 * those of `fsverity sign` (RSA signatures are deterministic, ECDSA are not).
 *
 * With e2verity_signer_embeds(), the message also carries the signer's
 * certificate and chain.
 *
 * Return: 0, E2VERITY_ET_BAD_HASH_ALG, E2VERITY_ET_SIGN,
 * E2VERITY_ET_SIG_TOO_LARGE, E2VERITY_ET_CHAIN_TOO_LARGE (the certificates
 * make it too large) or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_sign_digest(const struct e2verity_signer *s, unsigned int alg,
			       const uint8_t *digest, uint8_t **sig, size_t *sig_size);

/**
 * e2verity_signer_free() - release a signer
 * @s: signer or NULL
 */
void e2verity_signer_free(struct e2verity_signer *s);

/* what built-in signatures are verified against, loaded once for many files */
struct e2verity_verifier;

/**
 * e2verity_verifier_load() - load the certificate and CA that signatures must match
 * @certfile: PEM certificate (or store URI) of the signer, or NULL to take the
 *            signer's certificate from each signature (then @cafile is needed)
 * @cafile: PEM file of CA certificates the signer must chain to, or NULL
 * @log: told which file failed and why (e2verity_log_fn), or NULL
 * @log_ctx: passed to @log
 * @ret: the verifier
 *
 * Reads both files now, so that a wrong name is reported before any image is
 * read; the file that failed goes to @log as its object.  Each
 * certificate is read as the kernel reads it when keyctl adds it to the
 * .fs-verity keyring: the keyring is @cafile's certificates, or @certfile
 * alone.
 *
 * Return: 0, an errno value if a file cannot be opened (EISDIR for a
 * directory), E2VERITY_ET_CERT_LOAD (@certfile holds no certificate, or both
 * are NULL), E2VERITY_ET_CA_LOAD (@cafile holds none),
 * E2VERITY_ET_CERT_UNSUPPORTED (a certificate the kernel cannot load) or
 * E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_verifier_load(const char *certfile, const char *cafile, e2verity_log_fn log,
				 void *log_ctx, struct e2verity_verifier **ret);

/**
 * e2verity_verifier_verify() - check a built-in signature against a digest
 * @v: verifier
 * @alg: the file's hash algorithm
 * @digest: file digest
 * @sig: DER PKCS#7 signature
 * @sig_size: its size
 *
 * As e2verity_verify_signature() with the verifier's files.  A verifier may
 * be used by several threads at once.
 *
 * Return: 0, E2VERITY_ET_SIG_MALFORMED, E2VERITY_ET_SIG_REFUSED,
 * E2VERITY_ET_SIG_INVALID, E2VERITY_ET_SIGNER_NOT_FOUND,
 * E2VERITY_ET_CERT_UNTRUSTED, E2VERITY_ET_BAD_HASH_ALG or
 * E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_verifier_verify(const struct e2verity_verifier *v, unsigned int alg,
				   const uint8_t *digest, const uint8_t *sig, size_t sig_size);

/**
 * e2verity_verifier_free() - release a verifier
 * @v: verifier or NULL
 */
void e2verity_verifier_free(struct e2verity_verifier *v);

/**
 * e2verity_verify_signature() - check a built-in signature against a digest
 * @alg: the file's hash algorithm
 * @digest: file digest
 * @sig: DER PKCS#7 signature
 * @sig_size: its size
 * @certfile: PEM certificate of the signer, or NULL (then @cafile is needed)
 * @cafile: PEM certificates trusted as the kernel's .fs-verity keyring, or NULL
 *
 * Judges the signature as Linux 6.1 to 6.12 judge it when they open the file
 * (crypto/asymmetric_keys/: their BER decoder, versions, algorithms, signed
 * attributes, signer lookup and trust), with a keyring of @cafile's
 * certificates, or of @certfile alone.  With both, the file must also be
 * signed by @certfile.  What one of those kernels refuses is refused;
 * validity dates are ignored, as the kernel ignores them.
 *
 * Return: 0, E2VERITY_ET_SIG_MALFORMED (the kernel cannot decode it),
 * E2VERITY_ET_SIG_REFUSED (a version, content type, algorithm, signed
 * attribute or carried certificate the kernel refuses),
 * E2VERITY_ET_SIG_INVALID (not a signature of @digest by the key that should
 * have made it), E2VERITY_ET_CERT_UNTRUSTED (no certificate of the keyring is
 * the signer or links to it), E2VERITY_ET_SIGNER_NOT_FOUND (no @certfile,
 * and the message does not carry its signer's certificate), an errno value if
 * @certfile cannot be opened, E2VERITY_ET_CERT_LOAD, E2VERITY_ET_CA_LOAD (any
 * problem reading @cafile), E2VERITY_ET_CERT_UNSUPPORTED (a certificate the
 * kernel cannot load) or E2VERITY_ET_BAD_HASH_ALG.
 */
errcode_t e2verity_verify_signature(unsigned int alg, const uint8_t *digest, const uint8_t *sig,
				    size_t sig_size, const char *certfile, const char *cafile);

/**
 * e2verity_signature_parse() - is this a built-in signature the kernel can take
 * @sig: DER PKCS#7 signature
 * @sig_size: its size
 *
 * Checks what the kernel checks before it looks at keys (the form, versions,
 * content type, algorithms and signed attributes), not what it signs: for
 * signatures made elsewhere when no certificate is at hand to verify them.
 *
 * Return: 0, E2VERITY_ET_SIG_MALFORMED or E2VERITY_ET_SIG_REFUSED.
 */
errcode_t e2verity_signature_parse(const uint8_t *sig, size_t sig_size);

/* ---- IMA signatures (security.ima) ---------------------------------------- */

/*
 * The kernel's IMA appraises a file under a policy rule such as `appraise
 * func=FILE_CHECK digest_type=verity appraise_type=sigv3` by its security.ima
 * extended attribute: an "fs-verity signature" (IMA_VERITY_DIGSIG, format
 * version 3) of the file's fs-verity digest, by a key of the .ima keyring.
 * The value is a 9-byte header (type 6, version 3, the kernel's number of the
 * hash algorithm, a big-endian 32-bit key id, the big-endian signature size)
 * and the signature.  What is signed is the hash, with the digest's own
 * algorithm, of the bytes e2verity_ima_file_id() gives.
 */
#define E2VERITY_IMA_VERITY_DIGSIG 6 /* security.ima's first byte: an fs-verity signature */
#define E2VERITY_IMA_SIG_VERSION 3
#define E2VERITY_IMA_HEADER_SIZE 9
/* the longest signature written or accepted, as ima-evm-utils' */
#define E2VERITY_IMA_MAX_SIG_SIZE 1024
#define E2VERITY_IMA_MAX_SIZE (E2VERITY_IMA_HEADER_SIZE + E2VERITY_IMA_MAX_SIG_SIZE)
/* type, hash algorithm, digest: struct ima_file_id without its unused tail */
#define E2VERITY_IMA_FILE_ID_MAX (2 + E2VERITY_MAX_DIGEST_SIZE)

/* A security.ima value, decoded by e2verity_ima_parse() */
struct e2verity_ima_sig {
	uint8_t type; /* E2VERITY_IMA_VERITY_DIGSIG, or another kind of security.ima */
	uint8_t version;
	uint8_t hash_algo; /* the kernel's enum hash_algo: sha256 4, sha512 6 */
	uint32_t key_id;   /* as the kernel looks it up: "id:%08x" */
	uint16_t sig_size;
	const uint8_t *sig; /* into the value parsed */
};

/**
 * e2verity_ima_hash_algo() - the kernel's number of a file's hash algorithm
 * @alg: E2VERITY_HASH_*
 *
 * Return: 4 for SHA-256, 6 for SHA-512 (enum hash_algo), or -1 if unknown.
 */
int e2verity_ima_hash_algo(unsigned int alg);

/**
 * e2verity_ima_hash_algo_name() - the name of a hash algorithm of enum hash_algo
 * @kernel_alg: the number a security.ima header carries
 *
 * Return: "sha256", "sha512", ..., or NULL for a number the kernel does not know.
 */
const char *e2verity_ima_hash_algo_name(unsigned int kernel_alg);

/**
 * e2verity_ima_file_id() - the bytes an IMA fs-verity signature covers
 * @alg: the file's hash algorithm, E2VERITY_HASH_*
 * @digest: its fs-verity digest
 * @out: at least E2VERITY_IMA_FILE_ID_MAX bytes
 * @out_len: bytes written: 2 plus the digest size
 *
 * { IMA_VERITY_DIGSIG, the kernel's number of @alg, the digest }: the used
 * part of the kernel's struct ima_file_id.  The signature is made over the
 * hash of these bytes with @alg, as `openssl dgst -sha256 -sign` makes it.
 *
 * Return: 0 or E2VERITY_ET_BAD_HASH_ALG.
 */
errcode_t e2verity_ima_file_id(unsigned int alg, const uint8_t *digest, uint8_t *out,
			       size_t *out_len);

/**
 * e2verity_ima_parse() - decode a security.ima value
 * @value: the attribute's bytes
 * @len: their number
 * @s: the header, and where the signature is in @value
 *
 * Checks what the kernel checks before it looks for the key: the type and
 * version, a signature of exactly the size the header says, a hash algorithm
 * the kernel knows.
 *
 * Return: 0, E2VERITY_ET_IMA_NOT_VERITY (another kind of security.ima: only
 * @s->type is set) or E2VERITY_ET_IMA_MALFORMED.
 */
errcode_t e2verity_ima_parse(const uint8_t *value, size_t len, struct e2verity_ima_sig *s);

struct e2verity_ima_signer;

/**
 * e2verity_ima_signer_load() - load a key that signs security.ima values
 * @keyfile: PEM private key (RSA or ECDSA), or an OpenSSL store URI, as for
 *           e2verity_signer_load()
 * @certfile: its X.509 certificate (PEM or store URI), or NULL
 * @key_pass: pass phrase of an encrypted key, or NULL
 * @log: told which file failed and why (e2verity_log_fn), or NULL
 * @log_ctx: passed to @log
 * @ret: the signer
 *
 * The key id is the last four bytes of the subject key identifier of the
 * certificate that matches the key: from @certfile, or without it from the
 * key file or store if one is there.  Without a certificate, or one without
 * that extension, it is derived as ima-evm-utils derives it: the last four
 * bytes of the SHA-1 of the public key's bits (what OpenSSL puts in the
 * subject key identifier it makes).
 *
 * Return: 0, an errno value if a file cannot be opened, E2VERITY_ET_KEY_LOAD,
 * E2VERITY_ET_KEY_PASS_NEEDED, E2VERITY_ET_KEY_BAD_PASS,
 * E2VERITY_ET_CERT_LOAD, E2VERITY_ET_KEY_CERT_MISMATCH (@certfile has no
 * certificate of this key), E2VERITY_ET_IMA_KEY_TYPE or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_ima_signer_load(const char *keyfile, const char *certfile, const char *key_pass,
				   e2verity_log_fn log, void *log_ctx,
				   struct e2verity_ima_signer **ret);

/**
 * e2verity_ima_signer_key_id() - the key id the signer's values carry
 * @s: signer
 * @from_cert: set to 1 if it is a certificate's subject key identifier, or NULL
 *
 * Return: the key id.
 */
uint32_t e2verity_ima_signer_key_id(const struct e2verity_ima_signer *s, int *from_cert);

/**
 * e2verity_ima_signer_max_size() - the largest value the signer makes
 * @s: signer
 *
 * Return: E2VERITY_IMA_HEADER_SIZE plus the largest signature of the key.
 */
size_t e2verity_ima_signer_max_size(const struct e2verity_ima_signer *s);

/**
 * e2verity_ima_sign() - the security.ima value of a file, as `evmctl sign_hash --veritysig`
 * @s: signer
 * @alg: the file's hash algorithm
 * @digest: its fs-verity digest
 * @value: the value, allocated; free() it
 * @len: its size
 *
 * RSA signatures (PKCS#1 v1.5) are deterministic: for the same key and
 * digest the bytes are those of ima-evm-utils 1.5; ECDSA signatures are not.
 * A signer may be used by several threads at once.
 *
 * Return: 0, E2VERITY_ET_BAD_HASH_ALG, E2VERITY_ET_SIGN,
 * E2VERITY_ET_SIG_TOO_LARGE or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_ima_sign(const struct e2verity_ima_signer *s, unsigned int alg,
			    const uint8_t *digest, uint8_t **value, size_t *len);

/**
 * e2verity_ima_signer_verify() - is a value one this signer's key made for a digest
 * @s: signer
 * @alg: the file's hash algorithm
 * @digest: its fs-verity digest
 * @value: a security.ima value
 * @len: its size
 *
 * Return: 0, or an error of e2verity_ima_verify().
 */
errcode_t e2verity_ima_signer_verify(const struct e2verity_ima_signer *s, unsigned int alg,
				     const uint8_t *digest, const uint8_t *value, size_t len);

/**
 * e2verity_ima_signer_free() - release a signer
 * @s: signer or NULL
 */
void e2verity_ima_signer_free(struct e2verity_ima_signer *s);

/* the certificates security.ima values are verified against: a keyring */
struct e2verity_ima_verifier;

/**
 * e2verity_ima_verifier_load() - load the certificates of an .ima keyring
 * @certfile: PEM file of one or more certificates, or a store URI
 * @log: told why @certfile failed (e2verity_log_fn), or NULL
 * @log_ctx: passed to @log
 * @ret: the verifier
 *
 * A value's key id finds its certificate as the kernel's keyring search
 * does: by the last four bytes of the subject key identifier, or of the
 * issuer and serial number id.
 *
 * Return: 0, an errno value if @certfile cannot be opened, E2VERITY_ET_CERT_LOAD
 * (it holds no certificate) or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_ima_verifier_load(const char *certfile, e2verity_log_fn log, void *log_ctx,
				     struct e2verity_ima_verifier **ret);

/**
 * e2verity_ima_verify() - check a security.ima value against a file's digest
 * @v: verifier
 * @alg: the file's hash algorithm
 * @digest: its fs-verity digest
 * @value: the security.ima value
 * @len: its size
 *
 * What the kernel's appraisal does with an fs-verity signature: the header
 * is checked, the key found by its id, and the signature verified over the
 * hash of e2verity_ima_file_id().  A verifier may be used by several threads
 * at once.
 *
 * Return: 0, E2VERITY_ET_IMA_NOT_VERITY, E2VERITY_ET_IMA_MALFORMED,
 * E2VERITY_ET_IMA_UNKNOWN_KEY (no certificate has the key id),
 * E2VERITY_ET_IMA_MISMATCH (the signature is not of this digest by that key),
 * E2VERITY_ET_BAD_HASH_ALG or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_ima_verify(const struct e2verity_ima_verifier *v, unsigned int alg,
			      const uint8_t *digest, const uint8_t *value, size_t len);

/**
 * e2verity_ima_from_raw() - a security.ima value around a bare signature made elsewhere
 * @v: the certificates, one of whose keys made it
 * @alg: the file's hash algorithm
 * @digest: its fs-verity digest
 * @sig: an RSA (PKCS#1 v1.5) or ECDSA (DER) signature of the hash of
 *       e2verity_ima_file_id(), as `openssl dgst -sha256 -sign KEY` makes it
 * @sig_len: its size
 * @value: the value, allocated; free() it
 * @len: its size
 *
 * The certificate whose key verifies the signature gives the key id, as
 * the kernel will look it up.
 *
 * Return: 0, E2VERITY_ET_IMA_MISMATCH (no certificate's key verifies it),
 * E2VERITY_ET_BAD_HASH_ALG or E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_ima_from_raw(const struct e2verity_ima_verifier *v, unsigned int alg,
				const uint8_t *digest, const uint8_t *sig, size_t sig_len,
				uint8_t **value, size_t *len);

/**
 * e2verity_ima_verifier_free() - release a verifier
 * @v: verifier or NULL
 */
void e2verity_ima_verifier_free(struct e2verity_ima_verifier *v);

/* ---- problems found by check: one table, also for tools without a filesystem ---- */

enum e2verity_severity {
	E2VERITY_SEV_WARNING = 1, /* unusual, but the kernel accepts the file */
	E2VERITY_SEV_ERROR = 2,	  /* the kernel would refuse the file or fail a read of it */
};

/*
 * Problem codes.  The numbers and the short ids are stable: scripts may rely
 * on them.  The high byte groups them: 01 the inode, 02 where the metadata
 * is, 03 the descriptor, 04 the Merkle tree, 05 the signature, 06 the
 * extent tree, 08 the IMA signature (security.ima), 09 what a manifest of the build says
 * (check --manifest).
 */
enum e2verity_problem_code {
	E2VERITY_PR_NO_VERITY_FEATURE = 0x0101,
	E2VERITY_PR_NOT_REGULAR = 0x0102,
	E2VERITY_PR_NOT_SEALED = 0x0103,
	E2VERITY_PR_ENCRYPTED = 0x0104,
	E2VERITY_PR_INLINE_DATA = 0x0105,
	E2VERITY_PR_NO_EXTENTS_FLAG = 0x0106,
	E2VERITY_PR_EXTENTS_UNREADABLE = 0x0107,
	E2VERITY_PR_NO_EXTENT = 0x0108,
	E2VERITY_PR_LAST_EXTENT_UNWRITTEN = 0x0109,
	E2VERITY_PR_SIZE_TOO_LARGE = 0x010a,
	E2VERITY_PR_ENCRYPT_NO_FEATURE = 0x010b,
	E2VERITY_PR_CASEFOLD_NO_FEATURE = 0x010c,
	E2VERITY_PR_INODE_EXTRA_ISIZE = 0x010d,
	E2VERITY_PR_INODE_CHECKSUM = 0x010e,
	E2VERITY_PR_INODE_LINKS_ZERO = 0x010f,
	E2VERITY_PR_INODE_INDEX_FLAG = 0x0110,
	E2VERITY_PR_INODE_XATTR_BAD = 0x0111,
	E2VERITY_PR_INODE_FILE_ACL = 0x0112,
	E2VERITY_PR_INODE_EA_INODE_FLAG = 0x0113,
	E2VERITY_PR_DIR_BLOCK_CHECKSUM = 0x0114,
	E2VERITY_PR_VERITY_NOT_FILE = 0x0115,
	E2VERITY_PR_DIR_INODE_REFUSED = 0x0116,
	E2VERITY_PR_PATH_LOOKUP_FAILED = 0x0117,

	E2VERITY_PR_SIZE_WORD_BAD = 0x0201,
	E2VERITY_PR_NO_DESCRIPTOR = 0x0202,
	E2VERITY_PR_BLOCKS_PAST_METADATA = 0x0203,
	E2VERITY_PR_METADATA_TRUNCATED = 0x0204,
	E2VERITY_PR_METADATA_LAYOUT = 0x0205,
	E2VERITY_PR_TAIL_NOT_ZERO = 0x0206,
	E2VERITY_PR_GAP_NOT_ZERO = 0x0207,
	E2VERITY_PR_SIZE_WORD_UNUSUAL = 0x0208,
	E2VERITY_PR_TREE_PAST_DESCRIPTOR = 0x0209,
	E2VERITY_PR_TREE_HOLE = 0x020a,
	E2VERITY_PR_METADATA_NOT_OWN = 0x020b,

	E2VERITY_PR_DESC_BAD_VERSION = 0x0301,
	E2VERITY_PR_DESC_BAD_HASH_ALG = 0x0302,
	E2VERITY_PR_DESC_BAD_LOG_BLOCKSIZE = 0x0303,
	E2VERITY_PR_DESC_BLOCK_TOO_LARGE = 0x0304,
	E2VERITY_PR_DESC_BAD_SALT_SIZE = 0x0305,
	E2VERITY_PR_DESC_BAD_SIG_SIZE = 0x0306,
	E2VERITY_PR_DESC_RESERVED_SET = 0x0307,
	E2VERITY_PR_DESC_BAD_DATA_SIZE = 0x0308,
	E2VERITY_PR_DESC_TOO_MANY_LEVELS = 0x0309,
	E2VERITY_PR_DESC_ROOT_PADDING = 0x030a,
	E2VERITY_PR_DESC_SALT_PADDING = 0x030b,

	E2VERITY_PR_DATA_MISMATCH = 0x0401,
	E2VERITY_PR_TREE_MISMATCH = 0x0402,
	E2VERITY_PR_ROOT_MISMATCH = 0x0403,
	E2VERITY_PR_TREE_PARAMS_MISMATCH = 0x0404,

	E2VERITY_PR_SIG_MALFORMED = 0x0501,
	E2VERITY_PR_SIG_MISMATCH = 0x0502,
	E2VERITY_PR_SIG_UNTRUSTED = 0x0503,
	E2VERITY_PR_UNSIGNED = 0x0504,
	E2VERITY_PR_SIG_NO_SIGNER = 0x0505,
	E2VERITY_PR_SIG_CONTENT_TYPE = 0x0506,
	E2VERITY_PR_SIG_VERSION = 0x0507,
	E2VERITY_PR_SIG_SIGNER_VERSION = 0x0508,
	E2VERITY_PR_SIG_DIGEST_ALG = 0x0509,
	E2VERITY_PR_SIG_PKEY_ALG = 0x050a,
	E2VERITY_PR_SIG_ATTRIBUTES = 0x050b,
	E2VERITY_PR_SIG_BAD_CERT = 0x050c,
	E2VERITY_PR_SIG_DIGEST_SET = 0x050d,
	E2VERITY_PR_SIG_ALG_PARAMS = 0x050e,
	E2VERITY_PR_SIG_TRAILING_DATA = 0x050f,
	E2VERITY_PR_SIG_NOT_DER = 0x0510,

	E2VERITY_PR_EXTENT_BAD_MAGIC = 0x0601,
	E2VERITY_PR_EXTENT_BAD_DEPTH = 0x0602,
	E2VERITY_PR_EXTENT_TOO_DEEP = 0x0603,
	E2VERITY_PR_EXTENT_BAD_MAX = 0x0604,
	E2VERITY_PR_EXTENT_BAD_ENTRIES = 0x0605,
	E2VERITY_PR_EXTENT_EMPTY_INDEX = 0x0606,
	E2VERITY_PR_EXTENT_INDEX_MISMATCH = 0x0607,
	E2VERITY_PR_EXTENT_ZERO_LENGTH = 0x0608,
	E2VERITY_PR_EXTENT_LBLK_OVERFLOW = 0x0609,
	E2VERITY_PR_EXTENT_OUTSIDE_FS = 0x060a,
	E2VERITY_PR_EXTENT_IN_SYSTEM_ZONE = 0x060b,
	E2VERITY_PR_EXTENT_OUT_OF_ORDER = 0x060c,
	E2VERITY_PR_EXTENT_DUPLICATE = 0x060d,
	E2VERITY_PR_EXTENT_OVERLAP = 0x060e,
	E2VERITY_PR_EXTENT_INDEX_ORDER = 0x060f,
	E2VERITY_PR_EXTENT_BAD_CHECKSUM = 0x0610,
	E2VERITY_PR_EXTENT_PAST_INDEX = 0x0611,

	/* what the kernel named by e2verity_check_opts.min_kernel cannot read */
	E2VERITY_PR_KERNEL_FS_BLOCK = 0x0701,
	E2VERITY_PR_KERNEL_TREE_BLOCK = 0x0702,

	/* 08: the IMA signature, security.ima (with e2verity_check_opts' IMA options) */
	E2VERITY_PR_IMA_MISSING = 0x0801,
	E2VERITY_PR_IMA_MALFORMED = 0x0802,
	E2VERITY_PR_IMA_NOT_VERITY = 0x0803,
	E2VERITY_PR_IMA_UNKNOWN_KEY = 0x0804,
	E2VERITY_PR_IMA_MISMATCH = 0x0805,
	E2VERITY_PR_IMA_UNREADABLE = 0x0806,

	E2VERITY_PR_MANIFEST_MISSING = 0x0901,
	E2VERITY_PR_MANIFEST_NOT_SEALED = 0x0902,
	E2VERITY_PR_MANIFEST_DIGEST = 0x0903,
	E2VERITY_PR_MANIFEST_HASH_ALG = 0x0904,
	E2VERITY_PR_MANIFEST_BLOCK_SIZE = 0x0905,
	E2VERITY_PR_MANIFEST_SALT = 0x0906,
	E2VERITY_PR_MANIFEST_EXTRA = 0x0907,
	E2VERITY_PR_MANIFEST_MALFORMED = 0x0908,
	E2VERITY_PR_MANIFEST_DUPLICATE = 0x0909,

	/* 0a: a store of files named by their digests (composefs objects/XX/REST), check --digest-names */
	E2VERITY_PR_DIGEST_NAME_FORM = 0x0a01,
	E2VERITY_PR_DIGEST_NAME_MISMATCH = 0x0a02,
};

/* e2verity_problem.fields: which members of struct e2verity_finding a problem reports */
#define E2VERITY_FIELD_VALUE 0x001	   /* value (%v, %h) */
#define E2VERITY_FIELD_EXPECTED 0x002	   /* expected (%x) */
#define E2VERITY_FIELD_OFFSET 0x004	   /* offset (%o) */
#define E2VERITY_FIELD_BLOCK 0x008	   /* block (%b) */
#define E2VERITY_FIELD_COUNT 0x010	   /* count (%n) */
#define E2VERITY_FIELD_LEVEL 0x020	   /* level (%l) */
#define E2VERITY_FIELD_STORED 0x040	   /* stored (%S) */
#define E2VERITY_FIELD_COMPUTED 0x080	   /* computed (%C) */
#define E2VERITY_FIELD_ERR 0x100	   /* err (%e) */
#define E2VERITY_FIELD_EXPECTED_HASH 0x200 /* expected_hash (%E) */

/*
 * One row of the problem table.  The message template is expanded by
 * e2verity_finding_format(): %v value, %x expected value, %h value in hex,
 * %o byte offset, %b block index, %l tree level, %n count, %S stored hash,
 * %C computed hash, %E expected hash, %e the error message of the finding's
 * error code, %% a %.
 * The library owns the rows: members are only ever added at the end.
 */
struct e2verity_problem {
	unsigned int code;
	const char *id; /* e.g. "DESC_BAD_VERSION" */
	enum e2verity_severity severity;
	const char *message;
	unsigned int fields; /* E2VERITY_FIELD_*: what the template prints, for structured output */
};

/**
 * e2verity_problem_lookup() - the table row of a problem code
 * @code: E2VERITY_PR_*
 *
 * Return: the row, or NULL for an unknown code.
 */
const struct e2verity_problem *e2verity_problem_lookup(unsigned int code);

/**
 * e2verity_problem_by_id() - the table row of a short id
 * @id: e.g. "DATA_MISMATCH"
 *
 * Return: the row, or NULL for an unknown id.
 */
const struct e2verity_problem *e2verity_problem_by_id(const char *id);

/**
 * e2verity_problem_table() - the whole problem table, in code order
 * @count: number of rows
 *
 * Return: the first row.
 */
const struct e2verity_problem *e2verity_problem_table(size_t *count);

/**
 * e2verity_severity_name() - "warning" or "error"
 * @sev: severity
 *
 * Return: a static string.
 */
const char *e2verity_severity_name(enum e2verity_severity sev);

#ifdef __cplusplus
}
#endif

#endif /* E2VERITY_CORE_H */
