/* SPDX-License-Identifier: GPL-2.0-or-later */
/* e2verity.h - public interface of libe2verity, offline fs-verity for ext4 images (all of it) */
#ifndef E2VERITY_H
#define E2VERITY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <ext2fs/ext2fs.h>

/* hashes, trees, descriptors and signatures: what needs no filesystem */
#include "e2verity_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ext4 placement -------------------------------------------------------- */

/* Where ext4 keeps a verity file's metadata, as byte offsets in the file */
struct e2verity_ext4_layout {
	uint64_t merkle_pos; /* round_up(i_size, 64 KiB): the tree, root level first */
	uint64_t desc_pos;   /* next fs block after the tree: descriptor, then signature */
	uint32_t desc_size;  /* 256 + signature size */
	uint64_t size_pos;   /* le32 desc_size: the last 4 bytes of the last block */
	uint64_t end;	     /* size_pos + 4, a multiple of the fs block size */
};

/* ---- findings of check (the problem table is in e2verity_core.h) ------------ */

/* One problem found in one inode: the table row and the values of its template */
struct e2verity_finding {
	const struct e2verity_problem *problem;
	ext2_ino_t ino;
	uint64_t value;	    /* %v, %h */
	uint64_t expected;  /* %x */
	uint64_t offset;    /* %o: byte offset in the file */
	uint64_t block;	    /* %b */
	uint64_t count;	    /* %n */
	unsigned int level; /* %l */
	unsigned int hash_size;
	uint8_t stored[E2VERITY_MAX_DIGEST_SIZE];   /* %S */
	uint8_t computed[E2VERITY_MAX_DIGEST_SIZE]; /* %C */
	errcode_t err;				    /* %e */
	/* what another source says the hash is: a manifest (%E, hash_size bytes) */
	uint8_t expected_hash[E2VERITY_MAX_DIGEST_SIZE];
};

/**
 * e2verity_finding_format() - expand a finding's message template
 * @f: finding
 * @buf: output, always NUL-terminated when @size > 0
 * @size: bytes available in @buf
 *
 * Return: the length of the full message, as snprintf() counts it.
 */
size_t e2verity_finding_format(const struct e2verity_finding *f, char *buf, size_t size);

/* ---- checking sealed files ---------------------------------------------------- */

/* What check learned about one verity inode */
struct e2verity_check_file {
	ext2_ino_t ino;
	uint64_t data_size;
	unsigned int errors;
	unsigned int warnings;
	int skipped;	     /* not checked (encrypted) */
	int have_descriptor; /* @desc and @digest are valid */
	struct e2verity_descriptor desc;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
	int signed_file;	/* has a built-in signature */
	int signature_verified; /* and it was verified against the certificate */
	/* security.ima, looked at with the IMA options: E2VERITY_CHECK_IMA_* */
	int ima;
	uint32_t ima_key_id; /* of an fs-verity signature */
	int ima_verified;    /* it was verified against the IMA certificates */
};

/* e2verity_check_file.ima */
#define E2VERITY_CHECK_IMA_NONE 0      /* none, or not looked at */
#define E2VERITY_CHECK_IMA_VERITY 1    /* an fs-verity signature (checked: see the findings) */
#define E2VERITY_CHECK_IMA_OTHER 2     /* another kind of IMA data */
#define E2VERITY_CHECK_IMA_MALFORMED 3 /* not one the kernel can read */

struct e2verity_check_stats {
	uint64_t files; /* verity inodes looked at */
	uint64_t passed;
	uint64_t failed;
	uint64_t skipped;
	uint64_t signed_files;
	uint64_t bytes_hashed;
	uint64_t errors;
	uint64_t warnings;
	uint64_t ima_files; /* with an fs-verity signature in security.ima */
};

struct e2verity_owners;

struct e2verity_check_opts {
	struct e2verity_threads threads; /* hashing threads, reused for every file */
	const char *certfile;		 /* verify built-in signatures against this PEM cert */
	/* require it to chain to this PEM CA; alone, the signature's own certificate is used */
	const char *cafile;
	/* or both loaded already (e2verity_verifier_load()); then @certfile, @cafile unused */
	const struct e2verity_verifier *verifier;
	/*
	 * e2verity_owners_scan()'s map, to prove every file's blocks past EOF its
	 * own (METADATA_NOT_OWN); or NULL: e2verity_check_image() makes one, and
	 * e2verity_check_inode() proves them only for the first damaged files.
	 */
	const struct e2verity_owners *owners;
	int require_signatures;
	/* Called for every finding; a non-zero return stops the check with that error. */
	errcode_t (*finding)(void *ctx, const struct e2verity_finding *f);
	/* Called once per verity inode, after its findings. */
	errcode_t (*file_done)(void *ctx, const struct e2verity_check_file *file);
	/* Hashing progress: @done of @total data bytes (of the whole image for check_image). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	/*
	 * The oldest kernel the image is for (E2VERITY_KERNEL_VERSION()), or 0:
	 * a file that kernel cannot read is an error (KERNEL_FS_BLOCK,
	 * KERNEL_TREE_BLOCK), as e2verity_kernel_min() tells.
	 */
	uint32_t min_kernel;
	uint32_t kernel_page_size; /* that kernel's page size; 0 means 4096 */
	/*
	 * security.ima, as the kernel's IMA appraisal judges it under a policy
	 * with digest_type=verity appraise_type=sigv3: verified against these
	 * certificates (a PEM file or store URI, loaded once by
	 * e2verity_check_image()), or against @ima_verifier; NULL for neither
	 */
	const char *ima_certfile;
	const struct e2verity_ima_verifier *ima_verifier;
	/* a sealed file without security.ima is an error (IMA_MISSING); its form is checked */
	int require_ima;
	/*
	 * Or NULL: once *@cancel is non-zero, e2verity_check_image() stops
	 * before the next file with E2VERITY_ET_CANCELLED, as sealing does,
	 * and e2verity_check_inode() returns it before it starts
	 */
	const volatile sig_atomic_t *cancel;
	/* must be zero, as e2verity_params.reserved */
	uint64_t reserved[3];
};

/**
 * e2verity_check_inode() - check one inode's fs-verity metadata and data
 * @fs: open filesystem (read-only is enough; nothing is written)
 * @ino: inode; one without the verity flag is reported as NOT_SEALED
 * @opts: options and callbacks
 * @stats: totals, added to (zero it first)
 *
 * Finds the descriptor as the kernel does, validates every field, re-hashes
 * the data and compares each stored Merkle tree block with its parent hash,
 * the way the kernel verifies reads, and checks the built-in signature when
 * asked.  Problems go to @opts->finding, never to an error return.
 *
 * Return: 0, an error from a callback, or an operational error (e.g. a read
 * of the image failed).
 */
errcode_t e2verity_check_inode(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_check_opts *opts,
			       struct e2verity_check_stats *stats);

/**
 * e2verity_lookup_path() - find a file by its path as the Linux kernel does
 * @fs: open filesystem
 * @path: absolute path; the last component is not followed if a symlink
 * @ino: set to the inode found
 * @dir: if not NULL, set where damage stops the walk: the directory whose
 *       inode or block the kernel refuses
 *
 * In an indexed directory the kernel reads only the blocks the name's hash
 * leads to, verifying each; ext2fs_namei() reads every block and fails on
 * damage the kernel never reads.  This walks the kernel's route with the
 * rules of e2verity_check_path(); a caller tries it where ext2fs_namei()
 * fails on damage, and names the file the kernel would open.
 *
 * Return: 0; EXT2_ET_FILE_NOT_FOUND where the walk finds no file (a name
 * not there, a symlink or ".." on the way); where damage on the route stops
 * it as it stops the kernel, EXT2_ET_INODE_CORRUPTED (a directory's inode,
 * DIR_INODE_REFUSED) or EXT2_ET_DIR_CSUM_INVALID (a directory block); or
 * an operational error.
 */
errcode_t e2verity_lookup_path(ext2_filsys fs, const char *path, ext2_ino_t *ino, ext2_ino_t *dir);

/**
 * e2verity_check_path() - e2verity_check_inode() of a file named by its path
 * @fs: open filesystem
 * @path: the path from the root by which @ino was found
 * @ino: the inode @path names
 * @opts: options and callbacks
 * @stats: totals, added to
 *
 * As e2verity_check_inode(), and first the lookup of @path as the kernel
 * makes it: each directory on the way must load as the kernel loads an
 * inode (DIR_INODE_REFUSED), and with metadata_csum each directory block it
 * reads must pass its checksum (DIR_BLOCK_CHECKSUM); findings of @ino.
 *
 * Return: as e2verity_check_inode().
 */
errcode_t e2verity_check_path(ext2_filsys fs, const char *path, ext2_ino_t ino,
			      const struct e2verity_check_opts *opts,
			      struct e2verity_check_stats *stats);

/**
 * e2verity_check_image() - check every inode with the verity flag
 * @fs: open filesystem
 * @opts: options and callbacks
 * @stats: totals, added to (zero it first)
 *
 * @opts->certfile and @opts->cafile, without @opts->verifier, are loaded once
 * first: a file that cannot be loaded fails the call before any inode is read.
 *
 * Return: 0, an error from a callback, an error of e2verity_verifier_load(),
 * or an operational error.
 */
errcode_t e2verity_check_image(ext2_filsys fs, const struct e2verity_check_opts *opts,
			       struct e2verity_check_stats *stats);

/**
 * e2verity_list_verity_inodes() - every in-use inode with the verity flag
 * @fs: open filesystem
 * @inos: malloc()ed array in inode order; free() it
 * @count: its length
 *
 * Return: 0 or an error code.
 */
errcode_t e2verity_list_verity_inodes(ext2_filsys fs, ext2_ino_t **inos, size_t *count);

/* One entry of a directory, as e2verity_walk() meets it */
struct e2verity_walk_entry {
	/* absolute ("/etc/passwd"); NULL for a name no path can hold ('/' or NUL in it) */
	const char *path;
	const char *dir_path; /* the directory's path; NULL when @err is the directory's own */
	const char *name;     /* the entry's bytes, NUL-terminated (a NUL may be among them) */
	int name_len;
	ext2_ino_t ino;
	/* EXT2_FT_*: the entry's, or the inode's when the directory records none */
	unsigned int type;
	/*
	 * Non-zero: a directory (type EXT2_FT_DIR) that could not be read, its
	 * entries unseen; or, in a directory without file types, the entry's
	 * inode that could not be read (type EXT2_FT_UNKNOWN).
	 */
	errcode_t err;
};

#define E2VERITY_WALK_NEXT 0 /* go on, into the entry when it is a directory */
#define E2VERITY_WALK_SKIP 1 /* go on, but not into this directory */
#define E2VERITY_WALK_STOP 2 /* end the walk (e2verity_walk() returns 0) */

typedef int (*e2verity_walk_fn)(void *ctx, const struct e2verity_walk_entry *e);

/**
 * e2verity_walk() - every entry under a directory, depth first, each directory in name order
 * @fs: open filesystem
 * @dir: the directory to start from (EXT2_ROOT_INO for all)
 * @path: its absolute path ("/"), the prefix of every path given to @fn
 * @fn: called for each entry but "." and "..", in byte order of the names; a
 *      directory's entries follow it at once unless @fn returned
 *      E2VERITY_WALK_SKIP for it
 * @ctx: passed to @fn
 *
 * The one walk of the library and the command: a hard-linked file is met
 * under the same name first wherever it is walked.  Each directory is read
 * once, however often a damaged image links it.  A directory that cannot be
 * read is given to @fn again with @err set, and the walk goes on.
 *
 * Return: 0, E2VERITY_ET_NO_MEMORY, or an error of libext2fs' bitmaps.
 */
errcode_t e2verity_walk(ext2_filsys fs, ext2_ino_t dir, const char *path, e2verity_walk_fn fn,
			void *ctx);

/**
 * e2verity_inode_paths() - absolute paths of inodes, by one walk of the directories
 * @fs: open filesystem
 * @inos: inodes to name
 * @count: how many
 * @paths: out, @count malloc()ed strings; NULL where no name was found (free each)
 *
 * A file with several links gets the first name e2verity_walk() meets (the
 * name `seal -a` and `measure --all` give it too).  The
 * paths are the names' bytes, unescaped.  A directory entry whose name
 * cannot be part of a path (a '/' or a NUL in it, "." or ".." out of place)
 * is never joined into one: the file keeps another name, or none.
 *
 * Return: 0 or an error code.
 */
errcode_t e2verity_inode_paths(ext2_filsys fs, const ext2_ino_t *inos, size_t count, char **paths);

/* ---- reading stored metadata -------------------------------------------------- */

/* What e2verity_measure_inode() reads from a sealed inode */
struct e2verity_measurement {
	struct e2verity_descriptor desc; /* as stored: sig_size is the signature's length */
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
	struct e2verity_ext4_layout layout;
};

/**
 * e2verity_measure_inode() - the file digest, from the stored descriptor only
 * @fs: open filesystem
 * @ino: a sealed inode
 * @m: descriptor and digest
 *
 * What FS_IOC_MEASURE_VERITY returns on a mounted filesystem: the data is not
 * read.  Use e2verity_check_inode() to know whether the data matches.
 *
 * Return: 0, E2VERITY_ET_NOT_SEALED, E2VERITY_ET_NOT_REGULAR, an
 * E2VERITY_ET_EXTENT_* error (an extent tree the kernel refuses), an
 * E2VERITY_ET_DESC_* error, E2VERITY_ET_NO_DESCRIPTOR or E2VERITY_ET_CORRUPT.
 */
errcode_t e2verity_measure_inode(ext2_filsys fs, ext2_ino_t ino, struct e2verity_measurement *m);

/*
 * e2verity_measure_inodes()' callback: the measurement of @inos[@index], or
 * the error e2verity_measure_inode() would return for it (then @m is zeroed)
 */
typedef void (*e2verity_measure_fn)(void *ctx, size_t index, errcode_t err,
				    const struct e2verity_measurement *m);

/**
 * e2verity_measure_inodes() - e2verity_measure_inode() of many inodes at once
 * @fs: open filesystem
 * @inos: the inodes (one may come more than once)
 * @count: how many
 * @fn: called once for each index, in the order the files are read
 * @ctx: for @fn
 *
 * The same results, in fewer reads: the descriptors of a batch of files are
 * read together, in the order they lie in the image, where a small file's
 * descriptor is a read of its own.  On a filesystem opened read-write, the
 * inodes are measured one by one, through libext2fs' cache.
 *
 * Return: 0, or E2VERITY_ET_NO_MEMORY before @fn was called.
 */
errcode_t e2verity_measure_inodes(ext2_filsys fs, const ext2_ino_t *inos, size_t count,
				  e2verity_measure_fn fn, void *ctx);

/* e2verity_read_metadata() types: the numbers of FS_VERITY_METADATA_TYPE_* */
#define E2VERITY_METADATA_MERKLE_TREE 1
#define E2VERITY_METADATA_DESCRIPTOR 2
#define E2VERITY_METADATA_SIGNATURE 3

/**
 * e2verity_read_metadata() - read stored verity metadata, as FS_IOC_READ_VERITY_METADATA
 * @fs: open filesystem
 * @ino: a sealed inode
 * @type: E2VERITY_METADATA_*
 * @offset: byte offset in that metadata
 * @buf: output
 * @len: bytes wanted
 * @got: bytes read; fewer than @len only at the end, 0 past it
 *
 * The Merkle tree comes root level first; the descriptor is its 256 bytes
 * with sig_size zeroed; the signature is the DER bytes after it.
 *
 * Return: 0, E2VERITY_ET_NO_SIGNATURE for a file without one, an error of
 * e2verity_measure_inode(), or a read error.
 */
errcode_t e2verity_read_metadata(ext2_filsys fs, ext2_ino_t ino, unsigned int type, uint64_t offset,
				 void *buf, size_t len, size_t *got);

/* ---- the library's state of one image ------------------------------------------ */

/*
 * What the library keeps about one open filesystem between calls: the file
 * it is read from (e2verity_set_image_source()), its log callback, its open
 * transaction.  Nothing per image is kept in a process global: two images,
 * each with its own handle, may be worked on at once (each by one thread at
 * a time, as an ext2_filsys is).
 */
struct e2verity_image;

/**
 * e2verity_image_attach() - give an open filesystem the library's state
 * @fs: open filesystem, its @fs->priv_data NULL
 * @ret: the image, attached to @fs
 *
 * The library owns @fs->priv_data from e2verity_image_attach() until
 * e2verity_image_detach(): the functions that take an ext2_filsys find the
 * image there, and libext2fs' allocation callbacks find the transaction
 * through it.  Do not set @fs->priv_data meanwhile, nor hand the library a
 * filesystem whose priv_data is the application's.  Without an image the
 * functions that only read work as before (no image source, no log); a
 * transaction needs one (e2verity_txn_begin(), and the writing drivers
 * that begin their own, return E2VERITY_ET_NO_IMAGE).
 *
 * Return: 0, E2VERITY_ET_PRIV_DATA_BUSY (@fs->priv_data is not NULL) or
 * E2VERITY_ET_NO_MEMORY.
 */
errcode_t e2verity_image_attach(ext2_filsys fs, struct e2verity_image **ret);

/**
 * e2verity_image_detach() - release the library's state of a filesystem
 * @img: image of e2verity_image_attach(), or NULL
 *
 * Sets @fs->priv_data back to NULL and closes the library's duplicate of
 * the image source.  Call it before ext2fs_close(), after
 * e2verity_txn_end().
 *
 * Return: 0, or E2VERITY_ET_TXN_BUSY (a transaction is open on the image:
 * nothing was released).
 */
errcode_t e2verity_image_detach(struct e2verity_image *img);

/**
 * e2verity_image_set_log_callback() - where the library reports which file or step failed
 * @img: image
 * @fn: the callback, or NULL for none (the default)
 * @ctx: passed to @fn
 *
 * What the calls on @img's filesystem know about a failure beyond its error
 * code (e2verity_log_fn): the block and the inodes of a damaged attribute
 * block, the file whose certificate could not be read.
 */
void e2verity_image_set_log_callback(struct e2verity_image *img, e2verity_log_fn fn, void *ctx);

/* ---- where the image is read from --------------------------------------------- */

/**
 * e2verity_set_image_source() - name the file that holds a filesystem, for fast reads
 * @fs: open filesystem
 * @fd: a readable descriptor of the file (or device) that holds @fs; the
 *      library keeps a duplicate, the caller keeps @fd.  -1 forgets the
 *      source named before.
 * @offset: the byte offset of the filesystem in that file
 *
 * Hashing ahead (e2verity_seal_batch_new(), e2verity_check_image()) and
 * check's reads of large files read file data with pread() straight from
 * the image, past libext2fs' io channel.  Without a source,
 * the library opens @fs->device_name, which names the file only for the
 * unix io manager (with e2fsprogs' "FILE?offset=BYTES" form); with another
 * io manager these fast paths are simply not taken.  The source is the
 * image's (e2verity_image_attach()): e2verity_image_detach() forgets it.
 *
 * Return: 0, E2VERITY_ET_IMAGE_SOURCE when @fd does not hold @fs at
 * @offset (its superblock and UUID), E2VERITY_ET_NO_IMAGE (no image is
 * attached to @fs and @fd is not -1), or errno of dup().
 */
errcode_t e2verity_set_image_source(ext2_filsys fs, int fd, uint64_t offset);

/* ---- all-or-nothing writes ---------------------------------------------------- */

struct e2verity_txn;

/**
 * e2verity_fs_health() - whether a filesystem is fit to be written to
 * @fs: open filesystem
 *
 * Return: 0, E2VERITY_ET_NEEDS_RECOVERY, E2VERITY_ET_FS_ERRORS, or
 * E2VERITY_ET_FS_UNCLEAN (not cleanly unmounted, an interrupted write, or
 * inodes left on the orphan list).
 */
errcode_t e2verity_fs_health(ext2_filsys fs);

/**
 * e2verity_txn_begin() - make the writes that follow all-or-nothing
 * @fs: filesystem opened read-write, borrowed; nothing written to it yet
 * @txn: the transaction, for e2verity_txn_commit() and e2verity_txn_end()
 *
 * With an internal ext4 journal, every metadata write through @fs->io is held
 * in memory from here on (reads see it) and reaches the disk only through the
 * journal, as a jbd2 transaction, at e2verity_txn_commit(); the library's own
 * data writes (Merkle trees, descriptors) go straight to blocks that nothing
 * references until the commit.  Blocks freed in a transaction are not handed
 * out again before it commits.  An interrupted run leaves the image as of the
 * last commit, or with a committed transaction that the kernel's mount and
 * e2fsck replay.
 *
 * Without a journal, the superblock's clean state is cleared now and set
 * again by e2verity_txn_end(), so an interrupted run shows.
 *
 * One transaction per image at a time; two images (each attached, see
 * e2verity_image_attach()) may each have one at once.
 *
 * Return: 0, E2VERITY_ET_NO_IMAGE (no image is attached to @fs),
 * E2VERITY_ET_TXN_BUSY, E2VERITY_ET_NEEDS_RECOVERY, E2VERITY_ET_JOURNAL_*
 * for a journal this cannot write, or an error from libext2fs.
 */
errcode_t e2verity_txn_begin(ext2_filsys fs, struct e2verity_txn **txn);

/**
 * e2verity_txn_commit() - make what was written so far durable, as one unit
 * @txn: the transaction
 *
 * Flushes the in-memory metadata of the filesystem into the transaction,
 * writes it to the journal with its commit block, then in place, then empties
 * the journal.  On failure the transaction is abandoned (see
 * e2verity_txn_abort()); the image holds the previous commit or this one.
 *
 * Return: 0, E2VERITY_ET_JOURNAL_FULL, E2VERITY_ET_TXN_ABORTED or a write error.
 */
errcode_t e2verity_txn_commit(struct e2verity_txn *txn);

/**
 * e2verity_txn_abort() - abandon what was written since the last commit
 * @txn: the transaction
 *
 * With a journal, nothing written through @fs->io reaches the disk any more:
 * the in-memory state of the filesystem no longer matches it, so close the
 * filesystem after this.  Without a journal, the clean state stays cleared.
 */
void e2verity_txn_abort(struct e2verity_txn *txn);

/**
 * e2verity_txn_room() - journal blocks left in the open transaction
 * @txn: the transaction
 *
 * Return: blocks that more metadata writes may take before a commit is due;
 * UINT64_MAX without a journal.
 */
uint64_t e2verity_txn_room(const struct e2verity_txn *txn);

/* 1 if @txn writes through the journal, 0 if the image has none */
int e2verity_txn_journaled(const struct e2verity_txn *txn);

/**
 * e2verity_txn_end() - commit what is pending and free @txn
 * @txn: the transaction, or NULL
 *
 * Return: 0 or the commit's error.
 */
errcode_t e2verity_txn_end(struct e2verity_txn *txn);

/* ---- removing fs-verity ------------------------------------------------------- */

/* Which blocks the inodes of a filesystem use, from one scan of them all */
struct e2verity_owners;

/**
 * e2verity_owners_scan() - one scan of every inode, for unsealing many files
 * @fs: open filesystem (its bitmaps are read if they are not loaded)
 * @ret: the map; free it with e2verity_owners_free()
 *
 * Proving that a file's blocks are its own needs every inode's map; with
 * this, unsealing N files costs one scan instead of N.  It stays valid while
 * blocks are only freed (unsealing), not allocated.  It also records which
 * inodes name each extended attribute block: a block is let go only when
 * its reference count is their number (E2VERITY_ET_XATTR_REFCOUNT if not),
 * and the seals and unseals given the map update that record as they move
 * files off a block, so one map serves one writer at a time.
 *
 * An inode whose map cannot be read may name any block: the scan goes on,
 * and every later proof with this map fails with E2VERITY_ET_META_UNPROVEN.
 *
 * Return: 0, E2VERITY_ET_NO_MEMORY or an error from libext2fs.
 */
errcode_t e2verity_owners_scan(ext2_filsys fs, struct e2verity_owners **ret);

/**
 * e2verity_owners_free() - release e2verity_owners_scan()'s map
 * @o: map or NULL
 */
void e2verity_owners_free(struct e2verity_owners *o);

/**
 * e2verity_unseal_check() - whether e2verity_unseal_inode() may proceed
 * @fs: open filesystem
 * @ino: a sealed inode
 * @owners: e2verity_owners_scan()'s map, or NULL to scan every inode here
 *
 * Everything e2verity_unseal_inode() validates before it writes: the flags,
 * i_size, that every block past the data is provably the file's own
 * (inside the filesystem, not its metadata, in use, used by no other inode),
 * and that an fs-verity signature in security.ima can be removed with it.
 * Reads the bitmaps; writes nothing.
 *
 * Return: 0, E2VERITY_ET_NOT_SEALED, E2VERITY_ET_NOT_REGULAR,
 * E2VERITY_ET_SIZE_TOO_LARGE, an E2VERITY_ET_EXTENT_* error (an extent tree
 * the kernel refuses, or one it reads otherwise than libext2fs),
 * E2VERITY_ET_META_*, E2VERITY_ET_IMA_SHARED_BLOCK, E2VERITY_ET_IMA_EA_INODE,
 * E2VERITY_ET_XATTR_REFCOUNT (the attribute block security.ima would leave
 * has a count other than the inodes that name it) or an error from libext2fs.
 */
errcode_t e2verity_unseal_check(ext2_filsys fs, ext2_ino_t ino,
				const struct e2verity_owners *owners);

/**
 * e2verity_unseal_inode() - remove a file's fs-verity metadata
 * @fs: filesystem opened read-write, borrowed
 * @ino: a sealed inode
 * @freed: blocks released, or NULL
 *
 * Runs the checks of e2verity_unseal_check() and writes nothing unless they
 * pass.  Then clears the verity and immutable flags, writes the inode, and
 * frees every block past the end of the data (the Merkle tree, descriptor
 * and size word).  A security.ima holding an IMA fs-verity signature is
 * removed too (it would sign what the file no longer is); another kind stays.
 * The data, i_size and the timestamps stay as they were; the filesystem's
 * verity feature stays set (other files may use it).
 *
 * Return: 0, an error of e2verity_unseal_check(), or an error from libext2fs.
 */
errcode_t e2verity_unseal_inode(ext2_filsys fs, ext2_ino_t ino, blk64_t *freed);

/**
 * e2verity_unseal_inode_with() - e2verity_unseal_inode() with a map of the owners
 * @fs: filesystem opened read-write, borrowed
 * @ino: a sealed inode
 * @owners: e2verity_owners_scan()'s map (made before this run of unseals), or NULL
 * @freed: blocks released, or NULL
 *
 * Return: as e2verity_unseal_inode().
 */
errcode_t e2verity_unseal_inode_with(ext2_filsys fs, ext2_ino_t ino,
				     const struct e2verity_owners *owners, blk64_t *freed);

/* ---- security.ima -------------------------------------------------------------- */

/**
 * e2verity_ima_get() - an inode's security.ima extended attribute
 * @fs: open filesystem
 * @ino: the inode
 * @value: its bytes, malloc()ed; free() them
 * @len: their number
 *
 * Return: 0, E2VERITY_ET_IMA_NONE for an inode without one, or an error of
 * libext2fs (an attribute block that cannot be read).
 */
errcode_t e2verity_ima_get(ext2_filsys fs, ext2_ino_t ino, uint8_t **value, size_t *len);

/**
 * e2verity_ima_set() - set or remove an inode's security.ima
 * @fs: filesystem opened read-write, borrowed
 * @ino: the inode
 * @value: the new value (e2verity_ima_sign() makes one), or NULL to remove it
 * @len: its size
 *
 * Through libext2fs' extended attribute handles: in the inode's body if it
 * fits there, else in an extended attribute block.  A block the inode has is
 * never written in place: its attributes move to a new one, so that inside
 * a transaction (e2verity_txn_begin()) the inode's one write switches them,
 * with or without a journal.  The quota is charged for a block gained.
 * Nothing is written when the value cannot be stored.
 *
 * Return: 0, E2VERITY_ET_IMA_NO_ROOM (the inode's other attributes leave no
 * room), E2VERITY_ET_IMA_SHARED_BLOCK (a block shared with other inodes,
 * without a journal), E2VERITY_ET_XATTR_REFCOUNT (the block's count is not
 * the number of inodes that name it: a scan of every inode proves it when
 * the inode has a block), E2VERITY_ET_IMA_EA_INODE, E2VERITY_ET_NO_SPACE,
 * E2VERITY_ET_IMA_MALFORMED (no bytes, or more than E2VERITY_IMA_MAX_SIZE),
 * or an error of libext2fs.
 */
errcode_t e2verity_ima_set(ext2_filsys fs, ext2_ino_t ino, const uint8_t *value, size_t len);

/* ---- repairing sealed files --------------------------------------------------- */

/* How a digest came to be trusted, in e2verity_repair_result.trusted_by */
enum e2verity_trust {
	E2VERITY_TRUST_NONE = 0,
	E2VERITY_TRUST_DIGEST,	  /* e2verity_repair_opts.digest (a manifest) */
	E2VERITY_TRUST_SIGNATURE, /* the file's built-in signature, verified */
};

struct e2verity_repair_opts {
	struct e2verity_threads threads; /* hashing threads */
	/*
	 * e2verity_repair_tree(): the map proving that the tree blocks written
	 * in place are the file's own (e2verity_owners_scan(), valid while
	 * nothing is allocated), or NULL to scan every inode for each file.
	 */
	const struct e2verity_owners *owners;
	/*
	 * The transaction the writes go into, or NULL: e2verity_repair_tree()
	 * commits it first when the journal lacks room for one file's blocks,
	 * so that each file's tree changes in one commit where the journal can
	 * hold it.
	 */
	struct e2verity_txn *txn;
	/* e2verity_repair_reseal(): a digest known to be right (hash_alg 0: none) ... */
	unsigned int hash_alg;
	const uint8_t *digest;
	/* ... and the tree parameters it was made with, where known (0: not known) */
	unsigned int block_size;
	int have_salt; /* @salt and @salt_size are known (@salt_size 0: no salt) */
	const uint8_t *salt;
	unsigned int salt_size;
	/* or: trust the file's built-in signature when this verifies it, or NULL */
	const struct e2verity_verifier *verifier;
	/* or NULL: once *@cancel is non-zero, the repair stops with E2VERITY_ET_CANCELLED */
	const volatile sig_atomic_t *cancel;
	/* must be zero, as e2verity_params.reserved */
	uint64_t reserved[8];
};

/* What a repair did */
struct e2verity_repair_result {
	uint64_t tree_blocks;		 /* Merkle tree blocks the file has */
	uint64_t blocks_rewritten;	 /* e2verity_repair_tree(): of them, rewritten */
	enum e2verity_trust trusted_by;	 /* e2verity_repair_reseal(): why its digest is right */
	int signature_kept;		 /* the built-in signature was written back */
	int signature_dropped;		 /* one was there but could not be kept */
	struct e2verity_descriptor desc; /* the file's descriptor after the repair */
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
};

/**
 * e2verity_repair_tree() - rewrite the stored Merkle tree blocks that do not match the data
 * @fs: filesystem opened read-write, in a transaction (e2verity_txn_begin())
 * @ino: a sealed inode whose descriptor is valid
 * @opts: options (the trust fields are not used)
 * @res: what was found and rewritten
 *
 * What e2fsck -p is to a filesystem: safe to run unattended.  The data is
 * hashed with the descriptor's parameters; only when the tree built from it
 * has exactly the descriptor's root hash are the stored tree blocks that
 * differ from it written over (their fs blocks, proven the file's own
 * first).  The data, the descriptor, the signature and the digest stay as
 * they were.  With a journal, the blocks are written in place, one file's in
 * one transaction (several, each whole, only when they are more than the
 * journal holds).  Without one, no block the inode on disk points to may
 * change (doc/unjournaled.md): the metadata region is written anew in free
 * blocks, the descriptor's region copied byte for byte, and the inode's write
 * switches the file to it.  A file whose tree matches is left alone
 * (@res->blocks_rewritten 0).
 *
 * Return: 0, E2VERITY_ET_REPAIR_DATA_MISMATCH (the data does not hash to the
 * root hash: the data or the descriptor is damaged, and nothing is written),
 * E2VERITY_ET_REPAIR_TREE_SPACE (the tree is not all in written blocks of the
 * file before its descriptor), an error of e2verity_measure_inode(),
 * E2VERITY_ET_META_* (blocks not provably the file's own),
 * E2VERITY_ET_CANCELLED, or a read or write error.
 */
errcode_t e2verity_repair_tree(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_repair_opts *opts,
			       struct e2verity_repair_result *res);

/**
 * e2verity_repair_reseal() - reseal a damaged file, only to a trusted digest
 * @fs: filesystem opened read-write, in a transaction
 * @ino: the inode: sealed with damaged metadata, or not sealed at all
 * @opts: a trusted digest (@opts->digest, with its parameters where known),
 *        or a verifier for the file's built-in signature, or both
 * @res: what was done
 *
 * What e2fsck -y is to a filesystem, without its blind trust: the data is
 * hashed with the parameters recorded for it (those of @opts, else those
 * that can still be read from the damaged descriptor, else the defaults), and
 * the file is resealed (as e2verity_seal_inode() with
 * E2VERITY_SEAL_FORCE) only when that gives exactly the trusted digest, or
 * a digest that the built-in signature found after the descriptor verifies
 * against.  That signature is written back when it verifies (or, trusting
 * @opts->digest without a verifier, when it is well formed).  Data that
 * matches no trusted digest is never sealed: the file is left as it is.
 *
 * Return: 0, E2VERITY_ET_REPAIR_NO_TRUST (neither a digest nor a verifier),
 * E2VERITY_ET_REPAIR_UNTRUSTED (the data gives no trusted digest; nothing
 * written), an error of e2verity_seal_prepare() (the file cannot be sealed),
 * E2VERITY_ET_CANCELLED, or a read or write error.
 */
errcode_t e2verity_repair_reseal(ext2_filsys fs, ext2_ino_t ino,
				 const struct e2verity_repair_opts *opts,
				 struct e2verity_repair_result *res);

/* ---- sealing files in an ext4 image ------------------------------------------ */

/* e2verity_seal_opts.flags */
#define E2VERITY_SEAL_IMMUTABLE 0x1 /* also set the immutable flag (the kernel never does) */
/*
 * Reseal files that are sealed already, whatever their state; one sealed
 * with these tree parameters whose built-in signature alone would change
 * gets only a new descriptor and signature (E2VERITY_SEAL_RESIGN)
 */
#define E2VERITY_SEAL_FORCE 0x2
/*
 * @sign may be called on the hashing threads of a batch, several calls at
 * once: a small file's signature is then made where its tree is, and
 * signing scales with the threads.  e2verity_sign_digest() with one signer
 * allows it.
 */
#define E2VERITY_SEAL_SIGN_ANY_THREAD 0x4
/*
 * Only security.ima (@ima_sign): every file must be sealed already, and its
 * seal is left as it is, whatever its parameters; E2VERITY_SEAL_FORCE then
 * replaces a security.ima without resealing
 */
#define E2VERITY_SEAL_IMA_ONLY 0x8
/* @ima_sign may be called on the hashing threads too, as @sign with E2VERITY_SEAL_SIGN_ANY_THREAD */
#define E2VERITY_SEAL_IMA_SIGN_ANY_THREAD 0x10
/*
 * e2verity_seal_files(): the files passed e2verity_seal_preflight() already,
 * which kept no plans: @plans may be NULL, and the pre-flight is not run again
 */
#define E2VERITY_SEAL_JUDGED 0x20
/*
 * With E2VERITY_SEAL_FORCE: a file sealed already is resealed whole, its
 * tree hashed again from the data, even where only its signature would
 * change (what check -y needs: the tree may be what is damaged)
 */
#define E2VERITY_SEAL_REHASH 0x40

/*
 * Signs a file digest for the built-in signature stored after the descriptor.
 * Returns the DER PKCS#7 bytes in a malloc()ed buffer that the library frees.
 * e2verity_sign_digest() fits behind a one-line wrapper.
 */
typedef errcode_t (*e2verity_sign_fn)(void *ctx, unsigned int alg, const uint8_t *digest,
				      uint8_t **sig, size_t *sig_size);

/* Reports hashing progress of one file: @done of @total data bytes. */
typedef void (*e2verity_progress_fn)(void *ctx, uint64_t done, uint64_t total);

struct e2verity_seal_opts {
	struct e2verity_params params; /* tree parameters; threads for hashing */
	unsigned int flags;	       /* E2VERITY_SEAL_* */
	/* a built-in signature: made by @sign once the digest is known ... */
	e2verity_sign_fn sign;
	void *sign_ctx;
	/* upper bound of what @sign returns, for the space check; 0 means the largest allowed */
	size_t sig_size_max;
	/* ... or bytes made beforehand (e.g. by `fsverity sign`); ignored when @sign is set */
	const uint8_t *sig;
	size_t sig_size;
	e2verity_progress_fn progress; /* or NULL */
	void *progress_ctx;
	/* the files of a batch, hashed ahead on other threads: see e2verity_seal_batch_new() */
	struct e2verity_batch *batch;
	/* or NULL: once *@cancel is non-zero, sealing stops with E2VERITY_ET_CANCELLED */
	const volatile sig_atomic_t *cancel;
	/*
	 * security.ima: an IMA fs-verity signature (sigv3), the whole value as
	 * e2verity_ima_sign() makes it, made by @ima_sign once the digest is
	 * known and written with the seal, in its transaction; NULL for none.
	 * A file sealed already (E2VERITY_SEAL_SKIP) gets one too.  One the
	 * file has is replaced only with E2VERITY_SEAL_FORCE, unless @ima_keep
	 * says it is right as it is.
	 */
	e2verity_sign_fn ima_sign;
	/* 1: the file's security.ima @value is what @ima_sign would make (kept); or NULL */
	int (*ima_keep)(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *value,
			size_t len);
	void *ima_ctx; /* for @ima_sign and @ima_keep */
	/* upper bound of what @ima_sign returns, for the space check; 0: E2VERITY_IMA_MAX_SIZE */
	size_t ima_size_max;
	/*
	 * e2verity_owners_scan()'s map of the filesystem, made before this run of
	 * seals, to prove that every block a seal writes into is the file's alone;
	 * or NULL: each e2verity_seal_prepare() scans every inode itself.
	 */
	const struct e2verity_owners *owners;
	/*
	 * With @sign: 1 if the built-in signature @sig a sealed file has is
	 * what @sign would give it for @digest (e.g. it verifies against the
	 * signer's certificate), so that the file is left alone; or NULL: a
	 * signature the file has is never taken as @sign's, and is replaced
	 * only with E2VERITY_SEAL_FORCE.  Called with @sign_ctx.  Without
	 * @sign, the file's signature is kept when it is @opts->sig byte for byte.
	 */
	int (*sig_keep)(void *ctx, unsigned int alg, const uint8_t *digest, const uint8_t *sig,
			size_t sig_size);
	/* must be zero, as e2verity_params.reserved */
	uint64_t reserved[3];
};

/* What sealing does with a file's security.ima */
enum e2verity_ima_action {
	E2VERITY_IMA_NONE = 0, /* nothing */
	E2VERITY_IMA_WRITE,    /* the file has none: one is written */
	E2VERITY_IMA_REPLACE,  /* the file's is replaced (E2VERITY_SEAL_FORCE) */
	E2VERITY_IMA_KEEP,     /* the file's is kept: @ima_keep found it right */
	/* resealed without @ima_sign: an fs-verity signature of the old digest is removed */
	E2VERITY_IMA_REMOVE,
};

enum e2verity_seal_action {
	E2VERITY_SEAL_NEW = 1, /* not sealed yet: seal it */
	E2VERITY_SEAL_SKIP,    /* sealed already with these parameters: leave it alone */
	E2VERITY_SEAL_RESEAL,  /* sealed already and E2VERITY_SEAL_FORCE given: seal it again */
	/*
	 * sealed already with these tree parameters, and only the built-in
	 * signature changes (added; replaced or removed with
	 * E2VERITY_SEAL_FORCE): the descriptor, signature and size word are
	 * written anew, the tree and the digest stay
	 */
	E2VERITY_SEAL_RESIGN,
};

/* What sealing one inode will do, found without writing anything */
struct e2verity_seal_plan {
	enum e2verity_seal_action action;
	uint64_t data_size;
	/*
	 * the fs blocks sealing allocates: tree, descriptor and size word, a
	 * moved inline file's data, and extent tree blocks if the metadata's
	 * extents (one per block at worst) could overflow the inode or last leaf
	 */
	uint64_t blocks_needed;
	uint64_t blocks_freed; /* allocated blocks past EOF that are released first */
	int inline_data;       /* the data is inline: it moves into a block of its own */
	struct e2verity_geometry geo;
	/* placement, assuming the largest signature @opts allows */
	struct e2verity_ext4_layout layout;
	/*
	 * for E2VERITY_SEAL_SKIP and E2VERITY_SEAL_RESIGN: the stored descriptor
	 * (sig_size: the signature the file has) and its digest
	 */
	struct e2verity_descriptor desc;
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
	/* security.ima; REMOVE: if the digest changes (blocks_needed counts its block) */
	enum e2verity_ima_action ima;
};

/* What sealing one inode did */
struct e2verity_seal_result {
	enum e2verity_seal_action action;
	struct e2verity_descriptor desc; /* as stored: sig_size is the signature's length */
	uint8_t digest[E2VERITY_MAX_DIGEST_SIZE];
	unsigned int digest_size;
	struct e2verity_ext4_layout layout;
	uint64_t blocks_allocated;
	uint64_t blocks_freed;
	int inline_moved;	      /* the inline data was moved into a block */
	int tail_zeroed;	      /* stale bytes after EOF in the last data block were zeroed */
	enum e2verity_ima_action ima; /* what was done with security.ima */
	uint32_t ima_key_id;	      /* for WRITE, REPLACE and KEEP: the value's key id */
};

/**
 * e2verity_seal_check_fs() - can files of this filesystem be sealed at all
 * @fs: open filesystem
 * @opts: seal options (only the tree parameters are looked at)
 *
 * Return: 0, a tree parameter error, E2VERITY_ET_NO_EXTENT_FEATURE,
 * E2VERITY_ET_BIGALLOC, E2VERITY_ET_BLOCK_SIZE_EXCEEDS_FS or
 * E2VERITY_ET_NEEDS_RECOVERY.
 */
errcode_t e2verity_seal_check_fs(ext2_filsys fs, const struct e2verity_seal_opts *opts);

/**
 * e2verity_seal_prepare() - the pre-flight check of one inode
 * @fs: open filesystem (read-only is enough)
 * @ino: the inode to seal
 * @opts: seal options
 * @plan: what sealing would do, and the blocks it needs
 *
 * Refuses, without writing, anything that cannot be sealed: not a regular
 * file, block-mapped, encrypted, DAX, append-only, an extent tree the kernel
 * refuses or reads otherwise than libext2fs (E2VERITY_ET_EXTENT_*), a block
 * holding EOF or past it that is not provably the file's alone
 * (E2VERITY_ET_META_*), a block bitmap that calls used blocks free
 * (E2VERITY_ET_BITMAP_STALE: what sealing allocates might be another's), or
 * sealed already with
 * other parameters (or with unreadable metadata) unless E2VERITY_SEAL_FORCE.
 * A file sealed already with the same tree parameters gives the stored
 * digest and: E2VERITY_SEAL_SKIP when its built-in signature is the one
 * the options give (none, @opts->sig, or one @opts->sig_keep keeps);
 * E2VERITY_SEAL_RESIGN when it has none and the options give one; without
 * E2VERITY_SEAL_FORCE, E2VERITY_ET_SIGNED_OTHER when it has another, and
 * E2VERITY_ET_SEALED_SIGNED when it has one and the options give none
 * (with it, E2VERITY_SEAL_RESIGN replaces or removes it).  With
 * @opts->ima_sign, @plan->ima says what becomes of security.ima, and a file
 * whose attribute cannot be written, or that has one @opts->ima_keep does
 * not keep without E2VERITY_SEAL_FORCE, is refused (E2VERITY_ET_IMA_*).
 * With E2VERITY_SEAL_IMA_ONLY every file must be sealed already
 * (E2VERITY_ET_NOT_SEALED, E2VERITY_ET_SEALED_CORRUPT) and is a SKIP.
 *
 * Return: 0 or the reason the inode cannot be sealed.
 */
errcode_t e2verity_seal_prepare(ext2_filsys fs, ext2_ino_t ino,
				const struct e2verity_seal_opts *opts,
				struct e2verity_seal_plan *plan);

/**
 * e2verity_seal_digest() - the digest sealing would give a file, without writing
 * @fs: open filesystem (read-only is enough)
 * @ino: the inode
 * @opts: seal options: the tree parameters, hashing threads and progress
 * @res: descriptor (sig_size 0), file digest and geometry
 *
 * Runs e2verity_seal_prepare() first, so it refuses what sealing would
 * refuse.  The data is read and hashed whole, even for a file that is sealed
 * already: this is what detached signing signs.
 *
 * Return: 0, an error of e2verity_seal_prepare() or a read error.
 */
errcode_t e2verity_seal_digest(ext2_filsys fs, ext2_ino_t ino,
			       const struct e2verity_seal_opts *opts, struct e2verity_result *res);

/**
 * e2verity_seal_inode() - enable fs-verity on one inode, as the kernel would
 * @fs: filesystem opened read-write, borrowed: it is not closed or flushed
 *      except that setting the verity feature flushes it once
 * @ino: the inode to seal
 * @opts: seal options
 * @res: what was done, the descriptor and the file digest
 *
 * Runs e2verity_seal_prepare() first.  Then moves inline data into a block,
 * removes blocks past EOF, zeroes stale bytes after EOF in the last data
 * block, allocates the metadata blocks near the data, writes the Merkle tree,
 * descriptor, signature and size word, sets the verity feature (flushing the
 * superblock) and finally writes the inode with EXT4_VERITY_FL.  With
 * @opts->ima_sign, security.ima is written after it, in the same
 * transaction; for a SKIP, security.ima alone.  For a RESIGN the
 * descriptor, signature and size word go to fresh blocks that the inode's
 * extents switch to, in the transaction (the old ones are freed when it
 * commits): the tree and the digest stay, and the file is sealed
 * throughout, with its old signature or its new one.  i_size and
 * the inode's timestamps are left as they were.  If writing fails, the blocks
 * it allocated are released and the inode is left unsealed.
 *
 * Return: 0 or an error code.
 */
errcode_t e2verity_seal_inode(ext2_filsys fs, ext2_ino_t ino, const struct e2verity_seal_opts *opts,
			      struct e2verity_seal_result *res);

struct e2verity_batch;

/**
 * e2verity_seal_batch_new() - hash the small files of a batch ahead, on other threads
 * @fs: the filesystem the files will be sealed in, opened from a file or device path
 * @opts: seal options for every file of the batch (@opts->params.threads.count threads)
 * @inos: the inodes, in the order they will be passed to e2verity_seal_inode();
 *        kept, not copied, until e2verity_batch_free()
 * @count: how many
 * @ret: the batch, or NULL when it would not help (fewer than two threads or files)
 *
 * Set @opts->batch to the result, then seal the inodes in order: while this
 * thread does the libext2fs work of one file (libext2fs is not thread-safe),
 * the hashing threads read the data of the next ones straight from the image
 * and build their Merkle trees in memory.  The results are identical.
 * Inodes passed over, or sealed out of order, are simply hashed as usual.
 *
 * Return: 0 or an error code.
 */
errcode_t e2verity_seal_batch_new(ext2_filsys fs, const struct e2verity_seal_opts *opts,
				  const ext2_ino_t *inos, size_t count,
				  struct e2verity_batch **ret);

/**
 * e2verity_batch_free() - stop the hashing threads of a batch and release it
 * @b: the batch, or NULL
 */
void e2verity_batch_free(struct e2verity_batch *b);

/* ---- sealing and unsealing many files ------------------------------------------ */

/* Where e2verity_seal_files() and its kin stopped (&e2verity_files_totals.step) */
enum e2verity_files_step {
	E2VERITY_FILES_OK = 0,	 /* nowhere: done, or stopped between files by *cancel */
	E2VERITY_FILES_SCAN,	 /* reading the block maps (e2verity_owners_scan()) */
	E2VERITY_FILES_PREPARE,	 /* file @index cannot be (un)sealed: the first one refused */
	E2VERITY_FILES_SPACE,	 /* the files need more blocks than are free */
	E2VERITY_FILES_BEGIN,	 /* reading the bitmaps or starting the transaction */
	E2VERITY_FILES_THREADS,	 /* starting the hashing threads */
	E2VERITY_FILES_WRITE,	 /* (un)sealing file @index */
	E2VERITY_FILES_COMMIT,	 /* committing a transaction */
	E2VERITY_FILES_FEATURE,	 /* unseal: finding whether the verity feature can go */
	E2VERITY_FILES_CALLBACK, /* a callback returned an error, for file @index */
};

/* What a run over many files did; filled in whatever the return */
struct e2verity_files_totals {
	size_t refused; /* files the pre-flight refused */
	/*
	 * files with work to do: seal, those whose plan writes something;
	 * unseal, the sealed ones
	 */
	size_t todo;
	uint64_t blocks_needed; /* seal's pre-flight: what the files need ... */
	uint64_t blocks_freed;	/* ... what is freed first ... */
	uint64_t blocks_free;	/* ... and what the filesystem has free */
	size_t done;		/* committed: sealed, resealed or unsealed */
	/* seal: committed, sealed already before (security.ima alone may be new); unseal: not sealed */
	size_t skipped;
	enum e2verity_files_step step; /* where a failure happened */
	size_t index;		       /* the file it concerns, for the steps that name one */
	/* the transaction was abandoned: the image holds its last commit; close @fs next */
	int aborted;
};

/* Callbacks of e2verity_seal_preflight() and e2verity_seal_files(); each may be NULL */
struct e2verity_seal_files_cb {
	/*
	 * Before file @index is judged or sealed (the signing callbacks of
	 * the options may be for it next)
	 */
	void (*begin)(void *ctx, size_t index);
	/*
	 * The pre-flight's verdict on file @index: @err 0 and its @plan, or why
	 * it cannot be sealed (@plan NULL).  A non-zero return stops the run.
	 */
	errcode_t (*judged)(void *ctx, size_t index, errcode_t err,
			    const struct e2verity_seal_plan *plan);
	/* file @index was written into the open transaction (e.g. for progress) */
	void (*written)(void *ctx, size_t index, const struct e2verity_seal_result *res);
	/*
	 * File @index is sealed for good: its transaction committed.  Called in
	 * the order of the files; a non-zero return stops the run (the files
	 * committed with it are counted, not reported).
	 */
	errcode_t (*committed)(void *ctx, size_t index, const struct e2verity_seal_result *res);
	void *ctx;
	/* must be zero, as e2verity_params.reserved */
	uint64_t reserved[4];
};

/**
 * e2verity_seal_preflight() - judge many files for sealing, and the space for all of them
 * @fs: open filesystem (read-only is enough; nothing is written)
 * @inos: the inodes
 * @count: how many
 * @opts: seal options, as e2verity_seal_files() will get them; without
 *        @opts->owners, one e2verity_owners_scan() serves every file
 * @cb: callbacks (@cb->begin and @cb->judged), or NULL
 * @plans: @count plans, filled in (those of refused files are undefined); or
 *         NULL: each plan only reaches @cb->judged, and memory does not
 *         grow with @count
 * @totals: files refused, with work to do, blocks needed, freed and free
 *
 * Runs e2verity_seal_prepare() on every file, even after a refusal, so
 * that each refusal reaches @cb->judged; then checks that the blocks
 * needed fit in those free and those freed.
 *
 * Return: 0; the first refusal of e2verity_seal_prepare() (@totals->index
 * names its file); E2VERITY_ET_NO_SPACE; an error of the scan or of a
 * callback.
 */
errcode_t e2verity_seal_preflight(ext2_filsys fs, const ext2_ino_t *inos, size_t count,
				  const struct e2verity_seal_opts *opts,
				  const struct e2verity_seal_files_cb *cb,
				  struct e2verity_seal_plan *plans,
				  struct e2verity_files_totals *totals);

/**
 * e2verity_seal_files() - seal many files, crash-safe, in journal transactions
 * @fs: filesystem opened read-write, borrowed
 * @txn: the transaction to write in (e2verity_txn_begin()), committed here
 *       as it fills and left open for the caller's e2verity_txn_end(); or
 *       NULL: the bitmaps are read and a transaction is begun and ended here
 *       (on @fs's image: e2verity_image_attach())
 * @inos: the inodes, in the order they are sealed (and reported)
 * @count: how many
 * @opts: seal options; @opts->params.threads.count hashing threads are
 *        started for the run unless @opts->params.threads.workers are given, small files
 *        are hashed ahead (e2verity_seal_batch_new()) unless @opts->batch
 *        is given, and *@opts->cancel stops the run
 * @plans: what e2verity_seal_preflight() found for these inodes (on this
 *         or another handle of the filesystem); or NULL: it runs first,
 *         here, and nothing is written unless every file passes; or NULL
 *         with E2VERITY_SEAL_JUDGED in @opts->flags: it ran already
 * @cb: callbacks, or NULL
 * @totals: what was done, and where a failure happened
 *
 * Seals the files in order with e2verity_seal_inode().  A transaction is
 * committed before a file of 64 MiB or more, after 256 MiB of data, after
 * 8192 files and when the journal is nearly full, so an interruption loses
 * at most the work since the last commit; @cb->committed reports each file
 * only once its transaction committed.  Hashing threads, the batch of
 * files hashed ahead and the map of block owners are the run's.
 *
 * A stop by *@opts->cancel between files commits what was sealed and
 * returns E2VERITY_ET_CANCELLED with @totals->step E2VERITY_FILES_OK.  On
 * any other failure the transaction is abandoned (e2verity_txn_abort(),
 * @totals->aborted): the image keeps its last commit, and @fs must be
 * closed next.
 *
 * Return: 0, E2VERITY_ET_CANCELLED, an error of the pre-flight, of
 * e2verity_seal_inode(), of a commit or of a callback (@totals->step).
 */
errcode_t e2verity_seal_files(ext2_filsys fs, struct e2verity_txn *txn, const ext2_ino_t *inos,
			      size_t count, const struct e2verity_seal_opts *opts,
			      const struct e2verity_seal_plan *plans,
			      const struct e2verity_seal_files_cb *cb,
			      struct e2verity_files_totals *totals);

/* e2verity_unseal_files(): judge the files only, write nothing */
#define E2VERITY_UNSEAL_CHECK_ONLY 0x1

struct e2verity_unseal_opts {
	unsigned int flags; /* E2VERITY_UNSEAL_* */
	/* or NULL: once *@cancel is non-zero, unsealing stops with E2VERITY_ET_CANCELLED */
	const volatile sig_atomic_t *cancel;
	/* e2verity_owners_scan()'s map of @fs, or NULL: one is made */
	const struct e2verity_owners *owners;
	/*
	 * The verdict on file @index: 0 (it will be unsealed),
	 * E2VERITY_ET_NOT_SEALED (skipped) or why it cannot be.  A non-zero
	 * return stops the run.  Or NULL.
	 */
	errcode_t (*judged)(void *ctx, size_t index, errcode_t err);
	/* file @index unsealed in the open transaction, @freed blocks freed; or NULL */
	void (*written)(void *ctx, size_t index, blk64_t freed);
	void *ctx;
	/* must be zero, as e2verity_params.reserved */
	uint64_t reserved[4];
};

/**
 * e2verity_unseal_files() - remove fs-verity from many files, all or none
 * @fs: filesystem opened read-write (read-only with E2VERITY_UNSEAL_CHECK_ONLY)
 * @txn: the transaction to write in, or NULL: the bitmaps are read and one
 *       is begun and ended here (on @fs's image: e2verity_image_attach())
 * @inos: the inodes
 * @count: how many
 * @opts: options and callbacks
 * @totals: files refused, skipped (not sealed), to unseal, unsealed
 *
 * Judges every file with e2verity_unseal_check() first; a refusal stops the
 * run before anything is written.  Then unseals the sealed ones in one
 * transaction and, once no inode has the verity flag, clears the verity
 * feature in a commit of its own.  A stop by *@opts->cancel or a failure
 * abandons the transaction (@totals->aborted): nothing is unsealed.
 *
 * Return: 0, E2VERITY_ET_CANCELLED, the first refusal, or an error of a
 * write, a commit or a callback (@totals->step).
 */
errcode_t e2verity_unseal_files(ext2_filsys fs, struct e2verity_txn *txn, const ext2_ino_t *inos,
				size_t count, const struct e2verity_unseal_opts *opts,
				struct e2verity_files_totals *totals);

#ifdef __cplusplus
}
#endif

#endif /* E2VERITY_H */
