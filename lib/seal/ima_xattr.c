// SPDX-License-Identifier: GPL-2.0-or-later
/* ima_xattr.c - security.ima of an inode: read, room for it, written so that one inode write switches it */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ima_xattr.h"
/* after ext2fs.h, which defines its types */
#include <ext2fs/ext2_ext_attr.h>
#include "ext4/past_eof.h"
#include "seal_quota.h"

/*
 * The prefixes libext2fs stores as a name index (lib/ext2fs/ext_attr.c's
 * table, most specific first): an entry holds only what follows its prefix.
 */
static const char *const e2v_xattr_prefixes[] = {
	"gnu.",
	"system.posix_acl_default",
	"system.posix_acl_access",
	"system.richacl",
	"security.",
	"trusted.",
	"system.",
	"user.",
};

static size_t e2v_short_name_len(const char *name)
{
	for (size_t i = 0; i < E2V_ARRAY_SIZE(e2v_xattr_prefixes); i++) {
		size_t n = strlen(e2v_xattr_prefixes[i]);

		if (strncmp(name, e2v_xattr_prefixes[i], n) == 0)
			return strlen(name) - n;
	}
	return strlen(name);
}

/* The space entries take, as libext2fs counts it: entry and name, and the value */
static size_t e2v_entry_space(size_t short_len, size_t value_len)
{
	return EXT2_EXT_ATTR_LEN(short_len) + EXT2_EXT_ATTR_SIZE(value_len);
}

struct e2v_xattr_tally {
	size_t used;	 /* by every attribute but security.ima */
	size_t ima_used; /* by security.ima, 0 if it has none */
	size_t count;
};

static int e2v_tally_cb(char *name, char *value, size_t value_len, void *data)
{
	struct e2v_xattr_tally *t = data;
	size_t space = e2v_entry_space(e2v_short_name_len(name), value_len);

	(void)value;
	if (strcmp(name, E2V_IMA_XATTR) == 0)
		t->ima_used = space;
	else
		t->used += space;
	t->count++;
	return 0;
}

/* Where an inode's attributes are now: its body's and its block's */
struct e2v_xattr_layout {
	struct ext2_inode_large *inode; /* the whole on-disk inode */
	unsigned int inode_size;
	blk64_t block; /* its extended attribute block, or 0 */
	uint32_t refcount;
	struct e2v_xattr_tally body, all;
};

static void e2v_layout_free(struct e2v_xattr_layout *l)
{
	free(l->inode);
	l->inode = NULL;
}

static errcode_t e2v_layout_read(ext2_filsys fs, ext2_ino_t ino, struct e2v_xattr_layout *l)
{
	struct ext2_xattr_handle *h = NULL;
	struct ext2_ext_attr_header *hdr;
	struct ext2_inode_large *body = NULL;
	uint8_t *buf = NULL;
	errcode_t err;

	memset(l, 0, sizeof(*l));
	l->inode_size = EXT2_INODE_SIZE(fs->super);
	l->inode = calloc(1, l->inode_size > sizeof(*l->inode) ? l->inode_size : sizeof(*l->inode));
	body = calloc(1, l->inode_size > sizeof(*body) ? l->inode_size : sizeof(*body));
	if (!l->inode || !body) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(l->inode), l->inode_size);
	if (err)
		goto out;
	l->block = ext2fs_file_acl_block(fs, EXT2_INODE(l->inode));
	/* no attribute anywhere on a filesystem without the feature */
	if (!ext2fs_has_feature_xattr(fs->super) && !ext2fs_has_feature_inline_data(fs->super))
		goto out;
	err = ext2fs_xattrs_open(fs, ino, &h);
	if (err)
		goto out;
	/* libext2fs validates both places as it reads them */
	err = ext2fs_xattrs_read_inode(h, l->inode);
	if (!err)
		err = ext2fs_xattrs_iterate(h, e2v_tally_cb, &l->all);
	if (err)
		goto out;
	/* the same inode without its block: the attributes of its body alone */
	memcpy(body, l->inode, l->inode_size);
	ext2fs_file_acl_block_set(fs, EXT2_INODE(body), 0);
	err = ext2fs_xattrs_read_inode(h, body);
	if (!err)
		err = ext2fs_xattrs_iterate(h, e2v_tally_cb, &l->body);
	if (err || !l->block)
		goto out;
	buf = malloc(fs->blocksize);
	if (!buf) {
		err = E2VERITY_ET_NO_MEMORY;
		goto out;
	}
	err = ext2fs_read_ext_attr3(fs, l->block, buf, ino);
	if (err)
		goto out;
	hdr = (struct ext2_ext_attr_header *)buf;
	l->refcount = hdr->h_refcount;
out:
	if (h)
		ext2fs_xattrs_close(&h);
	free(body);
	free(buf);
	if (err)
		e2v_layout_free(l);
	return err;
}

/*
 * Where libext2fs' ext2fs_xattr_set() puts a value of @len bytes: in the
 * inode's body when it fits there, else in the block.  Returns the blocks
 * the change allocates: one whenever the attributes keep a block, since
 * e2v_ima_store() never rewrites the old one.
 */
static errcode_t e2v_layout_room(ext2_filsys fs, const struct e2v_xattr_layout *l, size_t len,
				 uint64_t *blocks)
{
	const size_t ima = len ? e2v_entry_space(strlen("ima"), len) : 0;
	size_t block_used = l->all.used - l->body.used;
	long body_free = 0, block_free;
	int in_block;

	*blocks = 0;
	if (l->inode_size > EXT2_GOOD_OLD_INODE_SIZE) {
		size_t extra = l->inode->i_extra_isize;

		if (!extra)
			extra = fs->super->s_want_extra_isize ? fs->super->s_want_extra_isize : 4;
		/* the magic number and the last entry's four zero bytes */
		body_free = (long)l->inode_size - EXT2_GOOD_OLD_INODE_SIZE - extra - 8 -
			    (long)l->body.used;
	}
	block_free =
		(long)fs->blocksize - sizeof(struct ext2_ext_attr_header) - 4 - (long)block_used;
	if (ima && (long)ima <= body_free) {
		in_block = 0;
	} else if (ima && (long)ima <= block_free) {
		in_block = 1;
	} else if (ima) {
		return E2VERITY_ET_IMA_NO_ROOM;
	} else {
		in_block = 0;
	}
	if (block_used || in_block)
		*blocks = 1;
	return 0;
}

/* Changing the block without a journal lowers its count in place: not one write */
static errcode_t e2v_layout_check(ext2_filsys fs, const struct e2v_xattr_layout *l)
{
	if (l->block && l->refcount > 1 && !ext2fs_has_feature_journal(fs->super))
		return E2VERITY_ET_IMA_SHARED_BLOCK;
	return 0;
}

/*
 * The block the change lets go is freed when its count says 1, its count
 * lowered otherwise: either is right only when the count is the number of
 * inodes that name it (@owners, or a scan made here).
 */
static errcode_t e2v_layout_owned(ext2_filsys fs, const struct e2verity_owners *owners,
				  ext2_ino_t ino, const struct e2v_xattr_layout *l)
{
	struct e2verity_owners *own = NULL;
	errcode_t err;

	if (!l->block)
		return 0;
	if (!owners) {
		err = e2verity_owners_scan(fs, &own);
		if (err)
			return err;
		owners = own;
	}
	err = e2v_owners_xattr_check(fs, owners, l->block, ino, l->refcount);
	e2verity_owners_free(own);
	return err;
}

/*
 * The attributes of @ino read and judged for a security.ima of @len bytes
 * (@removing: none): *@blocks is what the change needs; *@nothing, that
 * there is none to remove.  @l is always e2v_layout_free()'s to release.
 */
static errcode_t e2v_ima_plan(ext2_filsys fs, const struct e2verity_owners *owners, ext2_ino_t ino,
			      int removing, size_t len, struct e2v_xattr_layout *l,
			      uint64_t *blocks, int *nothing)
{
	errcode_t err;

	memset(l, 0, sizeof(*l));
	*blocks = 0;
	*nothing = 0;
	if (ext2fs_has_feature_ea_inode(fs->super))
		return E2VERITY_ET_IMA_EA_INODE;
	err = e2v_layout_read(fs, ino, l);
	if (err)
		return err;
	if (removing && !l->all.ima_used) {
		*nothing = 1;
		return 0;
	}
	err = e2v_layout_owned(fs, owners, ino, l);
	if (!err)
		err = e2v_layout_check(fs, l);
	return err ? err : e2v_layout_room(fs, l, len, blocks);
}

errcode_t e2v_ima_room(ext2_filsys fs, const struct e2verity_owners *owners, ext2_ino_t ino,
		       size_t len, uint64_t *blocks)
{
	struct e2v_xattr_layout l;
	int nothing;
	errcode_t err = e2v_ima_plan(fs, owners, ino, !len, len, &l, blocks, &nothing);

	e2v_layout_free(&l);
	return err;
}

errcode_t e2v_ima_store(ext2_filsys fs, const struct e2verity_owners *owners, ext2_ino_t ino,
			const uint8_t *value, size_t len)
{
	struct ext2_xattr_handle *h = NULL;
	struct e2v_xattr_layout l;
	blk64_t iblocks_before, old_block;
	uint64_t blocks;
	uint32_t refcount;
	int nothing;
	errcode_t err;

	err = e2v_ima_plan(fs, owners, ino, !value, len, &l, &blocks, &nothing);
	if (err || nothing)
		goto out;
	/* the kernel sets the feature with the first attribute it writes */
	if (!ext2fs_has_feature_xattr(fs->super)) {
		ext2fs_set_feature_xattr(fs->super);
		ext2fs_mark_super_dirty(fs);
	}
	iblocks_before = ext2fs_get_stat_i_blocks(fs, EXT2_INODE(l.inode));
	old_block = l.block;
	refcount = l.refcount;
	err = ext2fs_xattrs_open(fs, ino, &h);
	if (!err)
		err = ext2fs_xattrs_read_inode(h, l.inode);
	if (err)
		goto out;
	/*
	 * The inode forgets its block, the handle keeps its attributes: the
	 * write below puts them in a block of its own allocation.  Rewritten in
	 * place, the old block would change before the inode that points to
	 * it, in a commit without a journal.
	 */
	if (old_block) {
		ext2fs_file_acl_block_set(fs, EXT2_INODE(l.inode), 0);
		err = ext2fs_iblk_sub_blocks(fs, EXT2_INODE(l.inode), 1);
		if (!err)
			err = ext2fs_write_inode_full(fs, ino, EXT2_INODE(l.inode), l.inode_size);
		if (err)
			goto out;
	}
	err = value ? ext2fs_xattr_set(h, E2V_IMA_XATTR, value, len)
		    : ext2fs_xattr_remove(h, E2V_IMA_XATTR);
	/* the same value again writes nothing: the detached attributes must still be written */
	if (!err && old_block)
		err = ext2fs_xattrs_write(h);
	if (err)
		goto out;
	if (old_block) {
		if (refcount > 1)
			err = ext2fs_adjust_ea_refcount3(fs, old_block, NULL, -1, NULL, ino);
		else
			/* a transaction holds it until the inode that lets it go is written */
			ext2fs_block_alloc_stats2(fs, old_block, -1);
		if (err)
			goto out;
		/* the next file of the run that names the block counts one inode less */
		if (owners)
			e2v_owners_xattr_left(owners, old_block, ino);
	}
	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(l.inode), l.inode_size);
	if (!err)
		err = e2v_quota_charge_inode(
			fs, l.inode,
			((int64_t)ext2fs_get_stat_i_blocks(fs, EXT2_INODE(l.inode)) -
			 (int64_t)iblocks_before) *
				512);
out:
	if (h)
		ext2fs_xattrs_close(&h);
	e2v_layout_free(&l);
	return err;
}

errcode_t e2verity_ima_get(ext2_filsys fs, ext2_ino_t ino, uint8_t **value, size_t *len)
{
	struct ext2_xattr_handle *h = NULL;
	void *v = NULL;
	size_t n = 0;
	errcode_t err;

	*value = NULL;
	*len = 0;
	if (!ext2fs_has_feature_xattr(fs->super) && !ext2fs_has_feature_inline_data(fs->super))
		return E2VERITY_ET_IMA_NONE;
	err = ext2fs_xattrs_open(fs, ino, &h);
	if (err)
		return err;
	err = ext2fs_xattrs_read(h);
	if (!err)
		err = ext2fs_xattr_get(h, E2V_IMA_XATTR, &v, &n);
	ext2fs_xattrs_close(&h);
	if (err == EXT2_ET_EA_KEY_NOT_FOUND)
		return E2VERITY_ET_IMA_NONE;
	if (err)
		return err;
	/* libext2fs' memory is not the caller's to free() */
	*value = malloc(n ? n : 1);
	if (!*value) {
		ext2fs_free_mem(&v);
		return E2VERITY_ET_NO_MEMORY;
	}
	memcpy(*value, v, n);
	ext2fs_free_mem(&v);
	*len = n;
	return 0;
}

errcode_t e2verity_ima_set(ext2_filsys fs, ext2_ino_t ino, const uint8_t *value, size_t len)
{
	uint64_t blocks;
	errcode_t err;

	if (!(fs->flags & EXT2_FLAG_RW))
		return EXT2_ET_RO_FILSYS;
	if (value && (len == 0 || len > E2VERITY_IMA_MAX_SIZE))
		return E2VERITY_ET_IMA_MALFORMED;
	/* no map: only an inode with an attribute block pays for a scan of every inode */
	err = e2v_ima_room(fs, NULL, ino, value ? len : 0, &blocks);
	if (!err && blocks > ext2fs_free_blocks_count(fs->super))
		err = E2VERITY_ET_NO_SPACE;
	if (!err && !fs->block_map)
		err = ext2fs_read_block_bitmap(fs);
	return err ? err : e2v_ima_store(fs, NULL, ino, value, len);
}

int e2v_ima_is_verity(ext2_filsys fs, ext2_ino_t ino)
{
	uint8_t *v;
	size_t n;
	int is;

	if (e2verity_ima_get(fs, ino, &v, &n))
		return 0;
	is = n > 0 && v[0] == E2VERITY_IMA_VERITY_DIGSIG;
	free(v);
	return is;
}
