/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_rows: what every row kind shares: the roll's lists, the counts'
 * storage, and the rows' memory, freed a roll after they expire. */
#include "agg_int.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void agg_rows_push(struct agg *a, struct rowlist *l, void *row)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 64;
		void **p = reallocarray(l->v, ncap, sizeof(*p));

		if (p == NULL) {
			a->walk_all = true;
			return;
		}
		l->v = p;
		l->cap = ncap;
	}
	l->v[l->n++] = row;
}

/* A row a lookup remembered may be gone or have a new owner: the last
 * lookups and the flat memo forget. */
void agg_rows_moved(struct agg *a)
{
	a->last_sym = NULL;
	a->last_task = a->last_thread = NULL;
	if (++a->rows_gen == 0)
		a->rows_gen = 1;
}

/* Points n sets of counts at v (2 * nevents words each, zeroed). */
void agg_rows_counts_at(struct agg_counts *c, size_t n, uint64_t *v, size_t nev)
{
	for (size_t i = 0; i < n; i++, v += 2 * nev) {
		c[i].samples = v;
		c[i].period = v + nev;
	}
}

void agg_rows_sym_free(void *row)
{
	struct agg_sym *s = row;

	agg_annot_unrow(s);
	free(s->sym);
	free(s->dso);
	free(s);
}

/* Bytes freed before the heap's free pages are handed back: rows are small
 * and scattered, so free() alone leaves RSS where the churn's peak put it. */
#define AGG_TRIM_BYTES ((size_t)1 << 20)

void agg_rows_free_dead(struct agg *a)
{
	for (size_t i = 0; i < a->dead_syms.n; i++) {
		struct agg_sym *s = a->dead_syms.v[i];

		a->freed += AGG_SYM_BYTES(a->nevents) + strlen(s->sym) + strlen(s->dso) + 2;
		agg_rows_sym_free(s);
	}
	a->freed += a->dead_tasks.n * AGG_TASK_BYTES(a->nevents);
	for (size_t i = 0; i < a->dead_tasks.n; i++)
		free(a->dead_tasks.v[i]);
	a->dead_syms.n = a->dead_tasks.n = 0;
	if (a->freed >= AGG_TRIM_BYTES) {
		malloc_trim(0);
		a->freed = 0;
	}
}
