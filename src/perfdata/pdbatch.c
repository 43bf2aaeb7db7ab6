/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdbatch: a replay's alike flat samples counted as one (pdbatch.h). */
#include "pdbatch.h"

#include <stdlib.h>

struct pdbatch *pdbatch_new(void)
{
	return calloc(1, sizeof(struct pdbatch));
}

void pdbatch_free(struct pdbatch *b)
{
	free(b);
}

void pdbatch_take(struct pdbatch *b, void (*sink)(void *arg, const struct pdbatch_slot *s), void *arg)
{
	for (size_t k = 0; k < b->nused; k++) {
		struct pdbatch_slot *s = &b->slot[b->used[k]];

		sink(arg, s);
		s->n = 0;
	}
	b->nused = 0;
}
