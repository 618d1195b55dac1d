/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ext4_file.h - internal: read any byte range of an extent-mapped inode, find its verity metadata
 */
#ifndef E2VERITY_EXT4_FILE_H
#define E2VERITY_EXT4_FILE_H

#include "extent_tree.h"

struct e2v_ext4_file {
	ext2_filsys fs;
	ext2_ino_t ino;
	struct ext2_inode_large inode;
	uint64_t size; /* i_size */
	/* every leaf extent, sorted by logical block, as the kernel's lookups see them */
	struct e2v_extent *extents;
	size_t nr_extents;
	/* blocks used by the extent tree itself (index and leaf nodes outside the inode) */
	blk64_t tree_node_blocks;
	/* the rightmost leaf is empty: the kernel finds no last extent */
	int last_leaf_empty;
	/* the filesystem's system zone, made once for many files; or NULL */
	const struct e2v_system_zone *zone;
	/*
	 * After an E2VERITY_ET_EXTENT_* error of open or reload: what the
	 * kernel refuses, and where.  Otherwise EXTENT_PAST_INDEX, or nothing.
	 */
	struct e2v_extent_fault fault;
	int open;	 /* opened, not closed since: the owner's quota may have changed */
	uint8_t *bounce; /* one fs block, e2v_ext4_file_bounce()'s */
	/*
	 * Set by a reader that writes nothing: reads go to @fd at @base with
	 * pread(), past libext2fs' small block cache, which then keeps the
	 * inode table blocks rather than this file's.
	 */
	int direct, fd;
	uint64_t base;
	int fd_own; /* @fd is e2v_ext4_file_read_direct()'s: closed with the file */
	/*
	 * Read directly: a small metadata region, read whole into @meta_buf at
	 * its first use (@meta points into it), copied from @preload when set
	 * (its @preload_len bytes: the region as a batched read found it)
	 */
	const uint8_t *meta;
	uint8_t *meta_buf;
	const uint8_t *preload;
	size_t preload_len;
};

/*
 * Opens the file that holds @fs read-only, the same filesystem libext2fs
 * opened (its superblock and UUID), and says where in it the filesystem
 * starts (e2fsprogs' "FILE?offset=BYTES"); -1 if it cannot.
 */
int e2v_fs_image_fd(ext2_filsys fs, uint64_t *base);

/*
 * Makes a reader that writes nothing read @f with pread() from the file that
 * holds the image, past the io manager, until it is closed: @fd (the
 * filesystem at byte @base), lent for that long, or with @fd -1 one it opens
 * (e2v_fs_image_fd()); 0 if there is no such file (it reads as before).
 */
int e2v_ext4_file_read_direct(struct e2v_ext4_file *f, int fd, uint64_t base);

/*
 * Where the metadata region of @f (read directly) lies in the image file, when
 * its first use reads it whole in one read: @len bytes at byte @pos.  A batch
 * of files reads such regions together and hands each its bytes (@preload).
 * 0: it is read as usual.
 */
int e2v_ext4_meta_span(const struct e2v_ext4_file *f, uint64_t *pos, size_t *len);

/*
 * Opens an inode for reading.  Fails with E2VERITY_ET_NOT_REGULAR,
 * E2VERITY_ET_INLINE_DATA or E2VERITY_ET_NO_EXTENTS for inodes whose data
 * is not in extents, and with an E2VERITY_ET_EXTENT_* error for an extent
 * tree the kernel refuses (then @f->fault says where; @f is closed).
 */
errcode_t e2v_ext4_file_open(ext2_filsys fs, ext2_ino_t ino, struct e2v_ext4_file *f);
/* The same, with blocks tested against @zone (or NULL: a zone made for each read of the tree) */
errcode_t e2v_ext4_file_open_in(ext2_filsys fs, const struct e2v_system_zone *zone, ext2_ino_t ino,
				struct e2v_ext4_file *f);
/* The same, from @inode as the caller read it (ext2fs_read_inode_full()): one read, not two */
errcode_t e2v_ext4_file_open_inode(ext2_filsys fs, const struct e2v_system_zone *zone,
				   ext2_ino_t ino, const struct ext2_inode_large *inode,
				   struct e2v_ext4_file *f);
void e2v_ext4_file_close(struct e2v_ext4_file *f);
/*
 * Opens @f as e2v_ext4_file_open_in() did before, with no fault, from what it
 * read then: the image has not changed since.  Takes *@extents (NULL after).
 */
void e2v_ext4_file_reopen(struct e2v_ext4_file *f, ext2_filsys fs,
			  const struct e2v_system_zone *zone, ext2_ino_t ino,
			  const struct ext2_inode_large *inode, struct e2v_extent **extents,
			  size_t nr_extents, blk64_t tree_node_blocks, int last_leaf_empty);
/* @f's buffer of one filesystem block, made at its first use (most files never need it); NULL: no memory */
uint8_t *e2v_ext4_file_bounce(struct e2v_ext4_file *f);
/* Re-reads the inode and its extents after the file was changed (errors as open). */
errcode_t e2v_ext4_file_reload(struct e2v_ext4_file *f);

/*
 * For what writes to @f through libext2fs: an error if its extent tree is
 * not what the kernel reads (entries past their index range), else 0.
 */
static inline errcode_t e2v_ext4_file_writable(const struct e2v_ext4_file *f)
{
	return f->fault.problem ? f->fault.err : 0;
}

/*
 * Reads @count bytes at byte @offset, inside i_size or past it (where verity
 * metadata lives).  Holes and unwritten extents read as zeros.
 */
errcode_t e2v_ext4_file_read(struct e2v_ext4_file *f, void *buf, size_t count, uint64_t offset);

/* Reads @count bytes at byte @pos of @fd, all of them (EINTR and short reads retried). */
errcode_t e2v_pread_all(int fd, void *buf, size_t count, uint64_t pos);
/*
 * Maps logical block @lblk to its physical block and the number of blocks that
 * follow it contiguously in the same extent.  Holes and unwritten extents give
 * E2VERITY_ET_CORRUPT: callers only map blocks they allocated initialized.
 */
errcode_t e2v_ext4_file_map(const struct e2v_ext4_file *f, blk64_t lblk, blk64_t *pblk,
			    blk64_t *run);

/*
 * How many of the logical blocks [@first, @end) are holes or unwritten, and
 * the first of them in @first_hole (@end if none).
 */
blk64_t e2v_ext4_unmapped(const struct e2v_ext4_file *f, blk64_t first, blk64_t end,
			  blk64_t *first_hole);

/*
 * The byte offset where the first initialized extent at or after byte
 * @offset begins (@offset itself inside one; UINT64_MAX when none follows):
 * an e2verity_seek_data_fn's answer.
 */
uint64_t e2v_ext4_next_data(const struct e2v_ext4_file *f, uint64_t offset);

/*
 * The last extent of the rightmost leaf, where the kernel looks for the
 * descriptor's size; NULL if none.
 */
const struct e2v_extent *e2v_ext4_last_extent(const struct e2v_ext4_file *f);

/* A verity inode's metadata, found the way the kernel finds it */
struct e2v_verity_meta {
	struct e2verity_ext4_layout layout;
	uint8_t *raw; /* layout.desc_size bytes: the descriptor, then the signature */
	struct e2verity_descriptor desc;
	const uint8_t *sig; /* inside raw, desc.sig_size bytes */
};

/*
 * Locates, reads and decodes the descriptor.  On a decode error @m still holds
 * the raw bytes and what could be decoded; free it with e2v_verity_meta_free().
 */
errcode_t e2v_verity_meta_read(struct e2v_ext4_file *f, struct e2v_verity_meta *m);
void e2v_verity_meta_free(struct e2v_verity_meta *m);

#endif /* E2VERITY_EXT4_FILE_H */
