// SPDX-License-Identifier: GPL-2.0-or-later
/* xattr_rules.c - a target's extended attributes and EA inodes, read before any file is written */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "image.h"
#include "inode_rules.h"
#include "past_eof.h"
#include "xattr_rules.h"
/* after ext2fs.h, which defines its types */
#include <ext2fs/ext2_ext_attr.h>

/* fs/ext4/xattr.c: the one block an attribute block is (h_blocks) */
#define E2V_XATTR_BLOCKS 1

/* the prefix each name index stands for (fs/ext4/xattr.c ext4_xattr_handler_map), for messages */
static const char *e2v_xattr_prefix(unsigned int index)
{
	switch (index) {
	case 1:
		return "user.";
	case 2:
		return "system.posix_acl_access";
	case 3:
		return "system.posix_acl_default";
	case 4:
		return "trusted.";
	case 6:
		return "security.";
	case 7:
		return "system.";
	case 8:
		return "system.richacl";
	default:
		return "";
	}
}

/* one target being judged, and what is wrong with it for the caller's message */
struct e2v_xattr_judge {
	ext2_filsys fs;
	ext2_ino_t ino;
	char detail[256];
};

static errcode_t e2v_xattr_refuse(struct e2v_xattr_judge *j)
{
	e2v_log(e2v_image_log(j->fs), E2VERITY_ET_XATTR_DAMAGED, NULL, j->detail);
	return E2VERITY_ET_XATTR_DAMAGED;
}

/*
 * A libext2fs error while reading @what: damage in the image is a refusal
 * naming it; running out of memory, or a failed read, stays what it is.
 */
static errcode_t e2v_xattr_read_failed(struct e2v_xattr_judge *j, errcode_t err, const char *what)
{
	if (err == EXT2_ET_NO_MEMORY || err < EXT2_ET_BASE || err >= EXT2_ET_BASE + 256 ||
	    err == EXT2_ET_SHORT_READ)
		return err;
	snprintf(j->detail, sizeof(j->detail), "%s: %s", what, error_message(err));
	return e2v_xattr_refuse(j);
}

/*
 * The inode holding the value of entry @e: a write that reads the attributes
 * (libext2fs' ext2fs_xattrs_read(), for inline data and security.ima) opens
 * it, and e2fsck clears the attribute (check_large_ea_inode(), pass 4's
 * counts) when it is not an EA inode in use that is the value's.
 */
static errcode_t e2v_judge_ea_inode(struct e2v_xattr_judge *j, const struct ext2_ext_attr_entry *e)
{
	ext2_filsys fs = j->fs;
	const ext2_ino_t ea = e->e_value_inum;
	struct ext2_inode_large inode;
	struct ext2_inode *in = EXT2_INODE(&inode);
	char why[128];
	errcode_t err;

	why[0] = '\0';
	/* fs/ext4/xattr.c check_xattrs(): an EA inode without the feature is corruption */
	if (!ext2fs_has_feature_ea_inode(fs->super)) {
		snprintf(why, sizeof(why), "the filesystem has no ea_inode feature");
	} else if (ea < EXT2_FIRST_INODE(fs->super) || ea > fs->super->s_inodes_count) {
		snprintf(why, sizeof(why), "not the number of an inode a file may have");
	} else if (ea == j->ino) {
		snprintf(why, sizeof(why), "the file itself");
	} else {
		err = e2v_inode_unused_why(fs, ea, why, sizeof(why));
		if (err)
			return err;
	}
	if (!why[0]) {
		err = ext2fs_read_inode_full(fs, ea, in, sizeof(inode));
		if (err == EXT2_ET_NO_MEMORY || err == EXT2_ET_SHORT_READ)
			return err;
		if (err)
			snprintf(why, sizeof(why), "%s", error_message(err));
		else if (!(in->i_flags & EXT4_EA_INODE_FL))
			snprintf(why, sizeof(why), "not flagged as one (EXT4_EA_INODE_FL)");
		else if (in->i_flags & EXT4_INLINE_DATA_FL)
			snprintf(why, sizeof(why), "it has inline data");
		else if (!in->i_links_count)
			snprintf(why, sizeof(why), "its link count is 0");
		else if (!ext2fs_get_ea_inode_ref(in))
			snprintf(why, sizeof(why), "its reference count is 0");
		else if (EXT2_I_SIZE(in) != e->e_value_size)
			snprintf(why, sizeof(why), "%llu bytes, the attribute says %u",
				 (unsigned long long)EXT2_I_SIZE(in), e->e_value_size);
	}
	if (!why[0])
		return 0;
	snprintf(j->detail, sizeof(j->detail), "EA inode %u for %s%.*s: %s", ea,
		 e2v_xattr_prefix(e->e_name_index), (int)e->e_name_len, EXT2_EXT_ATTR_NAME(e), why);
	return e2v_xattr_refuse(j);
}

/*
 * The EA inodes that the entries from @first to @end name, each judged.  The
 * walk stops at the first entry that does not fit: libext2fs' own reading,
 * after, judges the entries.
 */
static errcode_t e2v_walk_entries(struct e2v_xattr_judge *j, const char *first, const char *end)
{
	const char *p = first;
	errcode_t err;

	while (end - p >= (long)sizeof(uint32_t) &&
	       !EXT2_EXT_IS_LAST_ENTRY((const struct ext2_ext_attr_entry *)p)) {
		const struct ext2_ext_attr_entry *e = (const struct ext2_ext_attr_entry *)p;

		if (end - p < (long)sizeof(*e) || end - p < (long)EXT2_EXT_ATTR_LEN(e->e_name_len))
			break;
		if (e->e_value_inum) {
			err = e2v_judge_ea_inode(j, e);
			if (err)
				return err;
		}
		p += EXT2_EXT_ATTR_LEN(e->e_name_len);
	}
	return 0;
}

/*
 * The attribute block: inside the filesystem, its checksum (libext2fs'
 * reading verifies it), magic number and size as the kernel's
 * ext4_xattr_check_block() wants them, its count the number of inodes that
 * name it (@owners, or a scan made here), and its entries' EA inodes.
 */
static errcode_t e2v_judge_block(struct e2v_xattr_judge *j, blk64_t blk,
				 const struct e2verity_owners *owners)
{
	ext2_filsys fs = j->fs;
	const struct ext2_ext_attr_header *hdr;
	struct e2verity_owners *own = NULL;
	char what[64], *buf;
	errcode_t err;

	snprintf(what, sizeof(what), "xattr block %llu", (unsigned long long)blk);
	if (blk < fs->super->s_first_data_block || blk >= ext2fs_blocks_count(fs->super)) {
		snprintf(j->detail, sizeof(j->detail), "%s: outside the filesystem", what);
		return e2v_xattr_refuse(j);
	}
	buf = malloc(fs->blocksize);
	if (!buf)
		return E2VERITY_ET_NO_MEMORY;
	err = ext2fs_read_ext_attr3(fs, blk, buf, j->ino);
	if (err) {
		err = e2v_xattr_read_failed(j, err, what);
		goto out;
	}
	hdr = (const struct ext2_ext_attr_header *)buf;
	if (hdr->h_magic != EXT2_EXT_ATTR_MAGIC) {
		snprintf(j->detail, sizeof(j->detail), "%s: magic number 0x%08x, not 0x%08x", what,
			 hdr->h_magic, EXT2_EXT_ATTR_MAGIC);
		err = e2v_xattr_refuse(j);
		goto out;
	}
	if (hdr->h_blocks != E2V_XATTR_BLOCKS) {
		snprintf(j->detail, sizeof(j->detail), "%s: h_blocks %u, not 1", what,
			 hdr->h_blocks);
		err = e2v_xattr_refuse(j);
		goto out;
	}
	/* a count other than its names: freed or rewritten by the next change while others use it */
	if (!owners) {
		err = e2verity_owners_scan(fs, &own);
		if (err)
			goto out;
		owners = own;
	}
	err = e2v_owners_xattr_check(fs, owners, blk, j->ino, hdr->h_refcount);
	if (!err)
		err = e2v_walk_entries(j, buf + sizeof(*hdr), buf + fs->blocksize);
out:
	e2verity_owners_free(own);
	free(buf);
	return err;
}

errcode_t e2v_inode_xattrs_sound(ext2_filsys fs, ext2_ino_t ino,
				 const struct e2verity_owners *owners)
{
	const unsigned int isize = EXT2_INODE_SIZE(fs->super);
	const size_t len =
		isize > sizeof(struct ext2_inode_large) ? isize : sizeof(struct ext2_inode_large);
	struct e2v_xattr_judge j = { .fs = fs, .ino = ino };
	struct ext2_xattr_handle *h = NULL;
	struct ext2_inode_large *in, *body;
	char what[64];
	int in_body = 0;
	blk64_t blk;
	errcode_t err;

	in = calloc(1, len);
	body = calloc(1, len);
	if (!in || !body) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(in), isize);
	if (err)
		goto out;
	blk = ext2fs_file_acl_block(fs, EXT2_INODE(in));
	if (isize > EXT2_GOOD_OLD_INODE_SIZE) {
		const unsigned int extra = in->i_extra_isize;
		const char *area = (const char *)in + EXT2_GOOD_OLD_INODE_SIZE + extra;

		/*
		 * None: no attribute in the body, as libext2fs reads it.  A size it
		 * refuses is for its reading below to name.
		 */
		if (extra && (extra & 3 || EXT2_GOOD_OLD_INODE_SIZE + extra > isize)) {
			in_body = 1;
		} else if (extra && EXT2_GOOD_OLD_INODE_SIZE + extra + sizeof(uint32_t) < isize &&
			   *(const uint32_t *)area == EXT2_EXT_ATTR_MAGIC) {
			in_body = 1;
			err = e2v_walk_entries(&j, area + sizeof(uint32_t),
					       (const char *)in + isize);
			if (err)
				goto out;
		}
	}
	/* most files have no attribute at all: nothing more to read */
	if (!in_body && !blk)
		goto out;
	if (blk) {
		err = e2v_judge_block(&j, blk, owners);
		if (err)
			goto out;
	}
	/*
	 * Last, the reading the writes make: with a block, the inode's body
	 * alone first (its block detached), so that a failure names its place.
	 */
	err = ext2fs_xattrs_open(fs, ino, &h);
	if (err)
		goto out;
	snprintf(what, sizeof(what), "in-inode extended attributes of inode %u", ino);
	if (blk) {
		memcpy(body, in, isize);
		ext2fs_file_acl_block_set(fs, EXT2_INODE(body), 0);
		err = ext2fs_xattrs_read_inode(h, body);
		if (err) {
			err = e2v_xattr_read_failed(&j, err, what);
			goto out;
		}
		snprintf(what, sizeof(what), "xattr block %llu", (unsigned long long)blk);
	}
	err = ext2fs_xattrs_read_inode(h, in);
	if (err)
		err = e2v_xattr_read_failed(&j, err, what);
out:
	if (h)
		ext2fs_xattrs_close(&h);
	free(body);
	free(in);
	return err;
}
