// SPDX-License-Identifier: GPL-2.0
/*
 * Growable arrays; pure, so test_parse links it.
 */
#include <stdlib.h>
#include <string.h>

#include "nvmet-qos.h"

void *vec_push(struct vec *vec, size_t size)
{
	char *elem;

	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? 2 * vec->cap : 16;
		void *v = realloc(vec->v, cap * size);

		if (!v)
			return NULL;
		vec->v = v;
		vec->cap = cap;
	}
	elem = (char *)vec->v + vec->n++ * size;
	memset(elem, 0, size);
	return elem;
}

void vec_reset(void *vec)
{
	((struct vec *)vec)->n = 0;
}
