// SPDX-License-Identifier: GPL-2.0-or-later
/* array.c - arrays that grow by doubling, for the lists the library builds as it reads */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "array.h"

errcode_t e2v_array_room(void *v, size_t *cap, size_t n, size_t size)
{
	void **pv = v;
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 16;
	if (c < *cap || c > SIZE_MAX / size)
		return E2VERITY_ET_NO_MEMORY;
	p = realloc(*pv, c * size);
	if (!p)
		return E2VERITY_ET_NO_MEMORY;
	*pv = p;
	*cap = c;
	return 0;
}
