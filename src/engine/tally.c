/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tally.h"

#include <stdlib.h>

struct tally *tally_new(void)
{
	return calloc(1, sizeof(struct tally));
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
