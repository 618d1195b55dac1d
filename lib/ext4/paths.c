// SPDX-License-Identifier: GPL-2.0-or-later
/* paths.c - name inodes by the one walk of the directory tree (walk.c): the first name it meets */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "private.h"

struct e2v_names {
	/* the wanted inodes, sorted, with the index of each in the caller's array */
	ext2_ino_t *wanted;
	size_t *slot;
	size_t nwanted, found;
	char **paths;
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

static int e2v_name_entry(void *ctx, const struct e2verity_walk_entry *e)
{
	struct e2v_names *w = ctx;
	ext2_ino_t ino = e->ino;
	ext2_ino_t *hit;

	/* an unreadable directory or inode only hides the names below it */
	if (!e->path || e->err)
		return E2VERITY_WALK_NEXT;
	hit = bsearch(&ino, w->wanted, w->nwanted, sizeof(ino), e2v_ino_cmp);
	if (hit) {
		/* every copy of a duplicated inode number gets the name */
		size_t i = hit - w->wanted;

		while (i > 0 && w->wanted[i - 1] == ino)
			i--;
		for (; i < w->nwanted && w->wanted[i] == ino; i++) {
			if (w->paths[w->slot[i]])
				continue;
			w->paths[w->slot[i]] = strdup(e->path);
			if (!w->paths[w->slot[i]]) {
				w->err = E2VERITY_ET_NO_MEMORY;
				return E2VERITY_WALK_STOP;
			}
			w->found++;
		}
	}
	return w->found == w->nwanted ? E2VERITY_WALK_STOP : E2VERITY_WALK_NEXT;
}

errcode_t e2verity_inode_paths(ext2_filsys fs, const ext2_ino_t *inos, size_t count, char **paths)
{
	struct e2v_names w = { .paths = paths, .nwanted = count };
	struct e2v_slot *order = NULL;
	errcode_t err = E2VERITY_ET_NO_MEMORY;

	for (size_t i = 0; i < count; i++)
		paths[i] = NULL;
	if (!count)
		return 0;
	/* sort the inode numbers, remembering where each came from */
	order = malloc(count * sizeof(*order));
	w.wanted = malloc(count * sizeof(*w.wanted));
	w.slot = malloc(count * sizeof(*w.slot));
	if (!order || !w.wanted || !w.slot)
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
	err = 0;
	if (w.found < count)
		err = e2verity_walk(fs, EXT2_ROOT_INO, "/", e2v_name_entry, &w);
	if (!err)
		err = w.err;
out:
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
