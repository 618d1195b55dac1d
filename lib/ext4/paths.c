// SPDX-License-Identifier: GPL-2.0-or-later
/* paths.c - name inodes by one breadth-first walk of the directory tree */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

struct e2v_dir {
	ext2_ino_t ino;
	char *path; /* "" for the root */
};

struct e2v_walk {
	ext2_filsys fs;
	/* the wanted inodes, sorted, with the index of each in the caller's array */
	ext2_ino_t *wanted;
	size_t *slot;
	size_t nwanted, found;
	char **paths;
	/* directories still to read, a FIFO */
	struct e2v_dir *queue;
	size_t head, tail, cap;
	uint8_t *seen; /* one bit per directory inode already queued */
	const char *dir_path;
	errcode_t err;
};

static int e2v_ino_cmp(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

struct e2v_slot {
	ext2_ino_t ino;
	size_t index;
};

static int e2v_slot_cmp(const void *a, const void *b)
{
	const struct e2v_slot *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static char *e2v_join(const char *dir, const char *name, int len)
{
	char *p;

	if (asprintf(&p, "%s/%.*s", dir, len, name) < 0)
		return NULL;
	return p;
}

static int e2v_is_dir(struct e2v_walk *w, struct ext2_dir_entry *de)
{
	struct ext2_inode inode;

	if (ext2fs_has_feature_filetype(w->fs->super))
		return ext2fs_dirent_file_type(de) == EXT2_FT_DIR;
	return !ext2fs_read_inode(w->fs, de->inode, &inode) && LINUX_S_ISDIR(inode.i_mode);
}

static errcode_t e2v_enqueue(struct e2v_walk *w, ext2_ino_t ino, char *path)
{
	if (w->tail == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct e2v_dir *q = realloc(w->queue, cap * sizeof(*q));

		if (!q)
			return E2VERITY_ET_NO_MEMORY;
		w->queue = q;
		w->cap = cap;
	}
	w->seen[ino / 8] |= 1 << (ino % 8);
	w->queue[w->tail++] = (struct e2v_dir){ ino, path };
	return 0;
}

static int e2v_dirent(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
		      int blocksize, char *buf, void *priv)
{
	struct e2v_walk *w = priv;
	int len = ext2fs_dirent_name_len(de);
	ext2_ino_t ino = de->inode;
	ext2_ino_t *hit;
	char *path = NULL;

	if (!ino || ino > w->fs->super->s_inodes_count)
		return 0;
	if ((len == 1 && de->name[0] == '.') || (len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	/*
	 * A name with a '/' would make a path to another file ("x/../../y"),
	 * one with a NUL a path cut short: never joined (e2fsck repairs such
	 * a name); the file keeps another name, or none.
	 */
	if (!len || memchr(de->name, '/', len) || memchr(de->name, '\0', len))
		return 0;
	hit = bsearch(&ino, w->wanted, w->nwanted, sizeof(ino), e2v_ino_cmp);
	if (hit) {
		/* every copy of a duplicated inode number gets the name */
		size_t i = hit - w->wanted;

		while (i > 0 && w->wanted[i - 1] == ino)
			i--;
		for (; i < w->nwanted && w->wanted[i] == ino; i++) {
			if (w->paths[w->slot[i]])
				continue;
			w->paths[w->slot[i]] = e2v_join(w->dir_path, de->name, len);
			if (!w->paths[w->slot[i]])
				goto nomem;
			w->found++;
		}
	}
	if (!(w->seen[ino / 8] & (1 << (ino % 8))) && e2v_is_dir(w, de)) {
		path = e2v_join(w->dir_path, de->name, len);
		if (!path || e2v_enqueue(w, ino, path))
			goto nomem;
	}
	return w->found == w->nwanted ? DIRENT_ABORT : 0;
nomem:
	free(path);
	w->err = E2VERITY_ET_NO_MEMORY;
	return DIRENT_ABORT;
}

errcode_t e2verity_inode_paths(ext2_filsys fs, const ext2_ino_t *inos, size_t count, char **paths)
{
	struct e2v_walk w = { .fs = fs, .paths = paths, .nwanted = count };
	struct e2v_slot *order = NULL;
	errcode_t err = E2VERITY_ET_NO_MEMORY;
	char *root;

	for (size_t i = 0; i < count; i++)
		paths[i] = NULL;
	if (!count)
		return 0;
	/* sort the inode numbers, remembering where each came from */
	order = malloc(count * sizeof(*order));
	w.wanted = malloc(count * sizeof(*w.wanted));
	w.slot = malloc(count * sizeof(*w.slot));
	w.seen = calloc(fs->super->s_inodes_count / 8 + 1, 1);
	if (!order || !w.wanted || !w.slot || !w.seen)
		goto out;
	for (size_t i = 0; i < count; i++)
		order[i] = (struct e2v_slot){ inos[i], i };
	qsort(order, count, sizeof(*order), e2v_slot_cmp);
	for (size_t i = 0; i < count; i++) {
		w.wanted[i] = order[i].ino;
		w.slot[i] = order[i].index;
	}
	for (size_t i = 0; i < count; i++) {
		if (inos[i] == EXT2_ROOT_INO && !paths[i]) {
			paths[i] = strdup("/");
			if (!paths[i])
				goto out;
			w.found++;
		}
	}
	root = strdup("");
	if (!root || e2v_enqueue(&w, EXT2_ROOT_INO, root)) {
		free(root);
		goto out;
	}
	err = 0;
	while (w.head < w.tail && w.found < count && !w.err) {
		struct e2v_dir d = w.queue[w.head++];

		w.dir_path = d.path;
		/* an unreadable directory only hides the names below it */
		(void)ext2fs_dir_iterate2(fs, d.ino, 0, NULL, e2v_dirent, &w);
		free(d.path);
	}
	err = w.err;
out:
	if (w.queue) {
		while (w.head < w.tail)
			free(w.queue[w.head++].path);
	}
	free(w.queue);
	free(w.seen);
	free(w.slot);
	free(w.wanted);
	free(order);
	if (err) {
		for (size_t i = 0; i < count; i++) {
			free(paths[i]);
			paths[i] = NULL;
		}
	}
	return err;
}
