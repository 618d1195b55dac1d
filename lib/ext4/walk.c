// SPDX-License-Identifier: GPL-2.0-or-later
/* walk.c - the one walk of an image's directory tree: depth first, each directory sorted by name */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "core/array.h"

/* one directory entry, collected so that the entries are visited sorted by name */
struct e2v_walk_dirent {
	char *name; /* the bytes as they are, NUL-terminated, a NUL among them included */
	int len;
	ext2_ino_t ino;
	unsigned int type;
};

struct e2v_walk_dir {
	struct e2v_walk_dirent *v;
	size_t n, cap;
	errcode_t err;
};

struct e2v_walker {
	ext2_filsys fs;
	e2verity_walk_fn fn;
	void *ctx;
	ext2fs_inode_bitmap dirs_seen; /* a corrupt image may link a directory twice: never loop */
	int stop;
};

static int e2v_walk_collect(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
			    int blocksize, char *buf, void *priv)
{
	struct e2v_walk_dir *l = priv;
	int len = ext2fs_dirent_name_len(de);

	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	if ((len == 1 && de->name[0] == '.') ||
	    (len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (e2v_array_room(&l->v, &l->cap, l->n, sizeof(*l->v)))
		goto nomem;
	l->v[l->n].name = malloc(len + 1);
	if (!l->v[l->n].name)
		goto nomem;
	memcpy(l->v[l->n].name, de->name, len);
	l->v[l->n].name[len] = '\0';
	l->v[l->n].len = len;
	l->v[l->n].ino = de->inode;
	l->v[l->n].type = ext2fs_dirent_file_type(de);
	l->n++;
	return 0;
nomem:
	l->err = E2VERITY_ET_NO_MEMORY;
	return DIRENT_ABORT;
}

static int e2v_walk_cmp(const void *a, const void *b)
{
	const struct e2v_walk_dirent *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static char *e2v_walk_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	char *p;

	while (dl && dir[dl - 1] == '/')
		dl--;
	if (asprintf(&p, "%.*s/%s", (int)dl, dir, name) < 0)
		return NULL;
	return p;
}

/* the callback's answer; a stop is remembered for every level of the recursion */
static int e2v_walk_call(struct e2v_walker *w, const struct e2verity_walk_entry *e)
{
	int r = w->fn(w->ctx, e);

	if (r == E2VERITY_WALK_STOP)
		w->stop = 1;
	return r;
}

static errcode_t e2v_walk_dir(struct e2v_walker *w, ext2_ino_t dir, const char *path)
{
	struct e2v_walk_dir l = { 0 };
	errcode_t err;

	if (!dir || dir > w->fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	if (ext2fs_test_inode_bitmap2(w->dirs_seen, dir))
		return 0;
	ext2fs_mark_inode_bitmap2(w->dirs_seen, dir);
	err = ext2fs_dir_iterate2(w->fs, dir, 0, NULL, e2v_walk_collect, &l);
	if (l.err == E2VERITY_ET_NO_MEMORY)
		goto out;
	if (err || l.err) {
		/* an unreadable directory only hides what is below it */
		struct e2verity_walk_entry e = {
			.path = path, .ino = dir, .type = EXT2_FT_DIR, .err = err ? err : l.err
		};

		e.name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		e.name_len = strlen(e.name);
		e2v_walk_call(w, &e);
		err = 0;
		l.err = 0;
		goto out;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), e2v_walk_cmp);
	for (size_t i = 0; i < l.n && !err && !w->stop; i++) {
		struct e2verity_walk_entry e = { .dir_path = path,
						 .name = l.v[i].name,
						 .name_len = l.v[i].len,
						 .ino = l.v[i].ino,
						 .type = l.v[i].type };
		char *child = NULL;
		int r;

		/* '/' or a NUL would make a path to another file, or one cut short: never joined */
		if (l.v[i].len && !memchr(l.v[i].name, '/', l.v[i].len) &&
		    strlen(l.v[i].name) == (size_t)l.v[i].len) {
			child = e2v_walk_join(path, l.v[i].name);
			if (!child) {
				err = E2VERITY_ET_NO_MEMORY;
				break;
			}
			e.path = child;
			if (e.type == EXT2_FT_UNKNOWN) {
				/* no file types in the directory (old ext2): ask the inode */
				struct ext2_inode inode;

				e.err = ext2fs_read_inode(w->fs, e.ino, &inode);
				if (!e.err)
					e.type = LINUX_S_ISDIR(inode.i_mode)   ? EXT2_FT_DIR
						 : LINUX_S_ISREG(inode.i_mode) ? EXT2_FT_REG_FILE
									       : EXT2_FT_UNKNOWN;
			}
		}
		/* an inode number past the table is no directory to read (nor to test in a bitmap)
		 */
		if (e.path && e.type == EXT2_FT_DIR &&
		    (!e.ino || e.ino > w->fs->super->s_inodes_count))
			e.err = EXT2_ET_BAD_INODE_NUM;
		r = e2v_walk_call(w, &e);
		if (r == E2VERITY_WALK_NEXT && child && !e.err && e.type == EXT2_FT_DIR)
			err = e2v_walk_dir(w, e.ino, child);
		free(child);
	}
out:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	return err ? err : l.err;
}

errcode_t e2verity_walk(ext2_filsys fs, ext2_ino_t dir, const char *path, e2verity_walk_fn fn,
			void *ctx)
{
	struct e2v_walker w = { .fs = fs, .fn = fn, .ctx = ctx };
	errcode_t err;

	err = ext2fs_allocate_inode_bitmap(fs, "walked directories", &w.dirs_seen);
	if (err)
		return err;
	err = e2v_walk_dir(&w, dir, path);
	ext2fs_free_inode_bitmap(w.dirs_seen);
	return err;
}
