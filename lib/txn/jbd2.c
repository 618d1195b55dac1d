// SPDX-License-Identifier: GPL-2.0-or-later
/* jbd2.c - internal: write transactions into an ext4 image's internal journal in the jbd2 format */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jbd2.h"

/*
 * The format is the kernel's (Documentation/filesystems/ext4/journal.rst);
 * e2fsck's recovery.c and the kernel's fs/jbd2/recovery.c read what this
 * writes.  Journal fields are big-endian.
 */
#define JBD2_MAGIC 0xc03b3998U
#define JBD2_DESCRIPTOR_BLOCK 1
#define JBD2_COMMIT_BLOCK 2
#define JBD2_SUPERBLOCK_V1 3
#define JBD2_SUPERBLOCK_V2 4

#define JBD2_INCOMPAT_REVOKE 0x01
#define JBD2_INCOMPAT_64BIT 0x02
#define JBD2_INCOMPAT_ASYNC_COMMIT 0x04
#define JBD2_INCOMPAT_CSUM_V2 0x08
#define JBD2_INCOMPAT_CSUM_V3 0x10
#define JBD2_INCOMPAT_FAST_COMMIT 0x20
#define JBD2_INCOMPAT_KNOWN                                                                        \
	(JBD2_INCOMPAT_REVOKE | JBD2_INCOMPAT_64BIT | JBD2_INCOMPAT_ASYNC_COMMIT |                 \
	 JBD2_INCOMPAT_CSUM_V2 | JBD2_INCOMPAT_CSUM_V3 | JBD2_INCOMPAT_FAST_COMMIT)
#define JBD2_CRC32C_CHKSUM 4
#define JBD2_DEFAULT_FC_BLOCKS 256

#define JBD2_FLAG_ESCAPE 1
#define JBD2_FLAG_SAME_UUID 2
#define JBD2_FLAG_LAST_TAG 8

/* journal superblock offsets */
#define JSB_BLOCKSIZE 0x0c
#define JSB_MAXLEN 0x10
#define JSB_FIRST 0x14
#define JSB_SEQUENCE 0x18
#define JSB_START 0x1c
#define JSB_ERRNO 0x20
#define JSB_COMPAT 0x24
#define JSB_INCOMPAT 0x28
#define JSB_RO_COMPAT 0x2c
#define JSB_UUID 0x30
#define JSB_CHECKSUM_TYPE 0x50
#define JSB_NUM_FC_BLKS 0x54
#define JSB_CHECKSUM 0xfc
#define JSB_SIZE 0x400

#define JBD2_HEADER_SIZE 12
#define JBD2_UUID_SIZE 16
#define JBD2_TAIL_SIZE 4
/* commit block offsets */
#define JCB_CHKSUM 0x10
#define JCB_COMMIT_SEC 0x30

/* ext4 superblock: incompat word and its needs_recovery bit */
#define E2V_SB_OFFSET 1024
#define E2V_SB_INCOMPAT 0x60

static void e2v_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t e2v_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void e2v_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static int e2v_csum(const struct e2v_jbd2 *j)
{
	return !!(j->incompat & (JBD2_INCOMPAT_CSUM_V2 | JBD2_INCOMPAT_CSUM_V3));
}

static uint32_t e2v_crc32c(uint32_t crc, const void *p, size_t len)
{
	return ext2fs_crc32c_le(crc, (const unsigned char *)p, len);
}

/* the kernel's journal_tag_bytes(), odd v2 size included */
static unsigned int e2v_tag_bytes(const struct e2v_jbd2 *j)
{
	unsigned int sz = 12;

	if (j->incompat & JBD2_INCOMPAT_CSUM_V3)
		return 16;
	if (j->incompat & JBD2_INCOMPAT_CSUM_V2)
		sz += 2;
	return (j->incompat & JBD2_INCOMPAT_64BIT) ? sz : sz - 4;
}

/* data blocks one descriptor block describes */
static uint64_t e2v_tags_per_desc(const struct e2v_jbd2 *j)
{
	unsigned int room =
		j->fs->blocksize - JBD2_HEADER_SIZE - (e2v_csum(j) ? JBD2_TAIL_SIZE : 0);
	unsigned int tb = e2v_tag_bytes(j);

	/* the first tag carries the journal's UUID after it */
	return 1 + (room - tb - JBD2_UUID_SIZE) / tb;
}

uint64_t e2v_jbd2_txn_blocks(const struct e2v_jbd2 *j, uint64_t nblocks)
{
	return nblocks + e2v_div_round_up(nblocks, e2v_tags_per_desc(j)) + 1;
}

static errcode_t e2v_jbd2_map(struct e2v_jbd2 *j, uint32_t lblk, blk64_t *pblk)
{
	errcode_t err;

	*pblk = 0;
	err = ext2fs_bmap2(j->fs, j->ino, NULL, NULL, 0, lblk, NULL, pblk);
	if (!err && !*pblk)
		err = E2VERITY_ET_JOURNAL_BAD;
	return err;
}

/* Writes @n consecutive log blocks from @buf, one write per physically contiguous run. */
static errcode_t e2v_jbd2_write(struct e2v_jbd2 *j, uint32_t lblk, const uint8_t *buf, uint64_t n)
{
	const unsigned int bs = j->fs->blocksize;
	blk64_t start = 0, pblk = 0;
	uint64_t run = 0;
	errcode_t err;

	for (uint64_t i = 0; i <= n; i++) {
		if (i < n) {
			err = e2v_jbd2_map(j, lblk + i, &pblk);
			if (err)
				return err;
			if (run && pblk == start + run) {
				run++;
				continue;
			}
		}
		if (run) {
			err = io_channel_write_blk64(j->io, start, run, buf + (i - run) * bs);
			if (err)
				return err;
		}
		start = pblk;
		run = 1;
	}
	return 0;
}

static errcode_t e2v_jbd2_write_sb(struct e2v_jbd2 *j)
{
	if (e2v_csum(j)) {
		e2v_put_be32(j->sb + JSB_CHECKSUM, 0);
		e2v_put_be32(j->sb + JSB_CHECKSUM, e2v_crc32c(~0U, j->sb, JSB_SIZE));
	}
	return io_channel_write_blk64(j->io, j->sb_pblk, 1, j->sb);
}

/* The journal superblock's own checksum: crc32c of the block with the field zeroed. */
static int e2v_jbd2_sb_csum_ok(const struct e2v_jbd2 *j)
{
	uint8_t copy[JSB_SIZE];

	memcpy(copy, j->sb, JSB_SIZE);
	e2v_put_be32(copy + JSB_CHECKSUM, 0);
	return e2v_crc32c(~0U, copy, JSB_SIZE) == e2v_get_be32(j->sb + JSB_CHECKSUM);
}

errcode_t e2v_jbd2_open(ext2_filsys fs, io_channel io, struct e2v_jbd2 *j)
{
	struct ext2_inode inode;
	uint32_t blocktype, maxlen, compat, ro_compat;
	errcode_t err;

	memset(j, 0, sizeof(*j));
	j->fs = fs;
	j->io = io;
	if (!ext2fs_has_feature_journal(fs->super))
		return E2VERITY_ET_NO_JOURNAL;
	j->ino = fs->super->s_journal_inum;
	if (!j->ino)
		return E2VERITY_ET_JOURNAL_EXTERNAL;
	err = ext2fs_read_inode(fs, j->ino, &inode);
	if (err)
		return err;
	j->sb = malloc(fs->blocksize);
	if (!j->sb)
		return E2VERITY_ET_NO_MEMORY;
	err = e2v_jbd2_map(j, 0, &j->sb_pblk);
	if (!err)
		err = io_channel_read_blk64(io, j->sb_pblk, 1, j->sb);
	if (err)
		goto fail;
	err = E2VERITY_ET_JOURNAL_BAD;
	blocktype = e2v_get_be32(j->sb + 4);
	maxlen = e2v_get_be32(j->sb + JSB_MAXLEN);
	j->first = e2v_get_be32(j->sb + JSB_FIRST);
	if (e2v_get_be32(j->sb) != JBD2_MAGIC ||
	    (blocktype != JBD2_SUPERBLOCK_V1 && blocktype != JBD2_SUPERBLOCK_V2) ||
	    e2v_get_be32(j->sb + JSB_BLOCKSIZE) != fs->blocksize || j->first < 1 ||
	    j->first >= maxlen || maxlen > EXT2_I_SIZE(&inode) / fs->blocksize)
		goto fail;
	if (e2v_get_be32(j->sb + JSB_START)) {
		err = E2VERITY_ET_NEEDS_RECOVERY;
		goto fail;
	}
	if (e2v_get_be32(j->sb + JSB_ERRNO)) {
		err = E2VERITY_ET_JOURNAL_ABORTED;
		goto fail;
	}
	if (blocktype == JBD2_SUPERBLOCK_V2) {
		compat = e2v_get_be32(j->sb + JSB_COMPAT);
		j->incompat = e2v_get_be32(j->sb + JSB_INCOMPAT);
		ro_compat = e2v_get_be32(j->sb + JSB_RO_COMPAT);
		/* v1 transaction checksums (crc32 over whole transactions) are not written here */
		if (compat || ro_compat || (j->incompat & ~JBD2_INCOMPAT_KNOWN) ||
		    ((j->incompat & JBD2_INCOMPAT_CSUM_V2) &&
		     (j->incompat & JBD2_INCOMPAT_CSUM_V3))) {
			err = E2VERITY_ET_JOURNAL_UNSUPPORTED;
			goto fail;
		}
		/*
		 * The kernel's journal_get_superblock() and e2fsck refuse these
		 * at mount or replay: a transaction written here would be lost.
		 */
		if (e2v_csum(j) &&
		    (j->sb[JSB_CHECKSUM_TYPE] != JBD2_CRC32C_CHKSUM || !e2v_jbd2_sb_csum_ok(j)))
			goto fail;
		/* what the kernel sets at mount: block checksums with metadata_csum, 64-bit tags */
		if (ext2fs_has_feature_metadata_csum(fs->super) && !e2v_csum(j)) {
			j->incompat |= JBD2_INCOMPAT_CSUM_V3;
			j->sb[JSB_CHECKSUM_TYPE] = JBD2_CRC32C_CHKSUM;
		}
		if (ext2fs_has_feature_64bit(fs->super))
			j->incompat |= JBD2_INCOMPAT_64BIT;
		e2v_put_be32(j->sb + JSB_INCOMPAT, j->incompat);
	}
	j->last = maxlen;
	if (j->incompat & JBD2_INCOMPAT_FAST_COMMIT) {
		uint32_t fc = e2v_get_be32(j->sb + JSB_NUM_FC_BLKS);

		fc = fc ? fc : JBD2_DEFAULT_FC_BLOCKS;
		if (fc >= maxlen - j->first)
			goto fail;
		j->last = maxlen - fc;
	}
	/* a transaction must fit whole, with room for the flush's own blocks */
	if (j->last - j->first < 16)
		goto fail;
	j->sequence = e2v_get_be32(j->sb + JSB_SEQUENCE);
	j->seed = e2v_crc32c(~0U, j->sb + JSB_UUID, JBD2_UUID_SIZE);
	return 0;
fail:
	free(j->sb);
	j->sb = NULL;
	return err;
}

void e2v_jbd2_close(struct e2v_jbd2 *j)
{
	free(j->sb);
	j->sb = NULL;
}

errcode_t e2v_jbd2_mark_recovery(struct e2v_jbd2 *j, int on)
{
	const unsigned int bs = j->fs->blocksize;
	struct ext2_super_block *sb;
	uint8_t *buf;
	uint32_t incompat;
	errcode_t err;

	buf = malloc(bs);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = io_channel_read_blk64(j->io, E2V_SB_OFFSET / bs, 1, buf);
	if (err)
		goto out;
	sb = (struct ext2_super_block *)(buf + E2V_SB_OFFSET % bs);
	incompat = e2v_get_le32((uint8_t *)sb + E2V_SB_INCOMPAT);
	if (on)
		incompat |= EXT3_FEATURE_INCOMPAT_RECOVER;
	else
		incompat &= ~EXT3_FEATURE_INCOMPAT_RECOVER;
	e2v_put_le32((uint8_t *)sb + E2V_SB_INCOMPAT, incompat);
	err = ext2fs_superblock_csum_set(j->fs, sb);
	if (!err)
		err = io_channel_write_blk64(j->io, E2V_SB_OFFSET / bs, 1, buf);
out:
	free(buf);
	return err;
}

/* Fills one log: descriptor blocks with their tags, the (escaped) copies, the commit block. */
static void e2v_jbd2_build(const struct e2v_jbd2 *j, const struct e2v_held *v, size_t n,
			   uint8_t *log, uint64_t nlog)
{
	const unsigned int bs = j->fs->blocksize, tb = e2v_tag_bytes(j);
	const uint64_t per = e2v_tags_per_desc(j);
	uint8_t *p = log, *commit = log + (nlog - 1) * bs;
	uint8_t seq_be[4];
	size_t i = 0;

	memset(log, 0, nlog * bs);
	e2v_put_be32(seq_be, j->sequence);
	while (i < n) {
		uint8_t *desc = p, *tag = desc + JBD2_HEADER_SIZE;
		size_t k, count = n - i < per ? n - i : per;

		e2v_put_be32(desc, JBD2_MAGIC);
		e2v_put_be32(desc + 4, JBD2_DESCRIPTOR_BLOCK);
		e2v_put_be32(desc + 8, j->sequence);
		p += bs;
		for (k = 0; k < count; k++, i++, p += bs) {
			uint32_t flags = k ? JBD2_FLAG_SAME_UUID : 0;
			uint32_t csum;

			memcpy(p, v[i].buf, bs);
			/* a copy that starts like a journal block would end the log early */
			if (e2v_get_be32(p) == JBD2_MAGIC) {
				memset(p, 0, 4);
				flags |= JBD2_FLAG_ESCAPE;
			}
			if (k == count - 1)
				flags |= JBD2_FLAG_LAST_TAG;
			csum = e2v_crc32c(e2v_crc32c(j->seed, seq_be, 4), p, bs);
			e2v_put_be32(tag, (uint32_t)v[i].blk);
			if (j->incompat & JBD2_INCOMPAT_CSUM_V3) {
				e2v_put_be32(tag + 4, flags);
				if (j->incompat & JBD2_INCOMPAT_64BIT)
					e2v_put_be32(tag + 8, (uint32_t)(v[i].blk >> 32));
				e2v_put_be32(tag + 12, csum);
			} else {
				if (j->incompat & JBD2_INCOMPAT_CSUM_V2)
					e2v_put_be16(tag + 4, (uint16_t)csum);
				e2v_put_be16(tag + 6, (uint16_t)flags);
				if (j->incompat & JBD2_INCOMPAT_64BIT)
					e2v_put_be32(tag + 8, (uint32_t)(v[i].blk >> 32));
			}
			tag += tb;
			if (!k) {
				memcpy(tag, j->sb + JSB_UUID, JBD2_UUID_SIZE);
				tag += JBD2_UUID_SIZE;
			}
		}
		if (e2v_csum(j))
			e2v_put_be32(desc + bs - JBD2_TAIL_SIZE, e2v_crc32c(j->seed, desc, bs));
	}
	e2v_put_be32(commit, JBD2_MAGIC);
	e2v_put_be32(commit + 4, JBD2_COMMIT_BLOCK);
	e2v_put_be32(commit + 8, j->sequence);
	e2v_put_be32(commit + JCB_COMMIT_SEC, (uint32_t)((uint64_t)j->fs->now >> 32));
	e2v_put_be32(commit + JCB_COMMIT_SEC + 4, (uint32_t)j->fs->now);
	if (e2v_csum(j))
		e2v_put_be32(commit + JCB_CHKSUM, e2v_crc32c(j->seed, commit, bs));
}

errcode_t e2v_jbd2_commit(struct e2v_jbd2 *j, const struct e2v_held *v, size_t n)
{
	const unsigned int bs = j->fs->blocksize;
	const uint64_t nlog = e2v_jbd2_txn_blocks(j, n);
	uint8_t *log;
	errcode_t err;

	if (nlog > e2v_jbd2_capacity(j))
		return E2VERITY_ET_JOURNAL_FULL;
	log = malloc(nlog * bs);
	if (!log)
		return E2VERITY_ET_NO_MEMORY;
	e2v_jbd2_build(j, v, n, log, nlog);
	/*
	 * The log without its commit block, and needs_recovery on disk, first:
	 * the kernel wipes a journal whose filesystem does not say it needs
	 * recovery.  Then the commit block, then the journal superblock that
	 * makes the log start: only that write makes the transaction count.
	 */
	err = e2v_jbd2_write(j, j->first, log, nlog - 1);
	if (!err)
		err = e2v_jbd2_mark_recovery(j, 1);
	if (!err)
		err = io_channel_flush(j->io);
	if (!err)
		err = e2v_jbd2_write(j, j->first + nlog - 1, log + (nlog - 1) * bs, 1);
	if (!err)
		err = io_channel_flush(j->io);
	free(log);
	if (err)
		return err;
	e2v_put_be32(j->sb + JSB_SEQUENCE, j->sequence);
	e2v_put_be32(j->sb + JSB_START, j->first);
	err = e2v_jbd2_write_sb(j);
	if (!err)
		err = io_channel_flush(j->io);
	return err;
}

errcode_t e2v_jbd2_empty(struct e2v_jbd2 *j)
{
	errcode_t err;

	e2v_put_be32(j->sb + JSB_SEQUENCE, j->sequence + 1);
	e2v_put_be32(j->sb + JSB_START, 0);
	err = e2v_jbd2_write_sb(j);
	if (!err)
		err = io_channel_flush(j->io);
	if (!err)
		j->sequence++;
	return err;
}
