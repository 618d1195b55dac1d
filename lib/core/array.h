/* SPDX-License-Identifier: GPL-2.0-or-later */
/* array.h - internal: arrays that grow by doubling */
#ifndef E2VERITY_ARRAY_H
#define E2VERITY_ARRAY_H

#include "core.h"

/**
 * e2v_array_room() - room for one more element at the end of a growing array
 * @v: address of the array pointer (void ** in disguise); realloc()ed, kept on failure
 * @cap: its capacity in elements: doubled when @n reached it, 16 at first
 * @n: the elements in use
 * @size: the size of one element
 *
 * Return: 0, or E2VERITY_ET_NO_MEMORY (also when the new size would overflow).
 */
errcode_t e2v_array_room(void *v, size_t *cap, size_t n, size_t size);

#endif /* E2VERITY_ARRAY_H */
