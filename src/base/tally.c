/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tally: alike flat samples counted as one (tally.h). */
#include "tally.h"

#include <errno.h>
#include <stdlib.h>

struct tally *tally_new(unsigned bits, unsigned probe)
{
	struct tally *t;
	size_t n;

	if (bits < 1 || bits > TALLY_BITS_MAX || probe < 1 || probe > (1u << bits)) {
		errno = EINVAL;
		return NULL;
	}
	n = (size_t)1 << bits;
	/* One block: the slots, then the used list. */
	if ((t = calloc(1, sizeof(*t) + n * sizeof(t->slot[0]) + n * sizeof(t->used[0]))) == NULL)
		return NULL;
	t->mask = n - 1;
	t->shift = 64 - bits;
	t->probe = probe;
	t->used = (uint16_t *)(void *)&t->slot[n];
	return t;
}

void tally_free(struct tally *t)
{
	free(t);
}

void tally_take(struct tally *t, void (*sink)(void *arg, const struct tally_slot *s), void *arg)
{
	for (size_t k = 0; k < t->nused; k++) {
		struct tally_slot *s = &t->slot[t->used[k]];

		sink(arg, s);
		s->n = 0;
	}
	t->nused = 0;
}
