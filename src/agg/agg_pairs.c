/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg's (process, symbol) pairs of the current interval (agg_pairs in
 * agg.h): a table of its own, emptied by the roll, so that an exporter gets
 * what each pair grew by without sorting or diffing every row ever seen. */
#include "agg_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct agg_pairs {
	struct agg_pair *v;
	size_t n, cap;
	struct htab ix;    /* pair_hash -> index into v + 1, several per hash */
	size_t last;       /* consecutive samples mostly hit the same pair */
};

static inline uint64_t pair_hash(const struct agg_task *t, const struct agg_sym *s)
{
	uint64_t k = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)s * 0xc2b2ae3d27d4eb4full;

	return k ^ k >> 29;
}

int agg_pairs_keep(struct agg *a, bool on)
{
	struct agg_pairs *p = a->pairs;

	if (!on || p) {
		a->keep_pairs = on && p;
		return 0;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL || htab_init(&p->ix, 256)) {
		free(p);
		return -ENOMEM;
	}
	a->pairs = p;
	a->keep_pairs = true;
	return 0;
}

void agg_pairs_add(struct agg *a, const struct agg_task *t, const struct agg_sym *s, uint64_t n, uint64_t period)
{
	struct agg_pairs *p = a->pairs;
	uint64_t h;

	if (p->last < p->n && p->v[p->last].task == t && p->v[p->last].sym == s)
		goto found;
	h = pair_hash(t, s);
	for (size_t j = htab_first(&p->ix, h); j != SIZE_MAX; j = htab_next(&p->ix, h, j)) {
		p->last = p->ix.tab[j].val - 1;
		if (p->v[p->last].task == t && p->v[p->last].sym == s)
			goto found;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 128;
		struct agg_pair *v = reallocarray(p->v, cap, sizeof(*v));

		if (v == NULL)
			return;
		p->v = v;
		p->cap = cap;
	}
	/* Out of memory the sample is not in the pairs. */
	if (htab_put(&p->ix, h, p->n + 1))
		return;
	p->v[p->n] = (struct agg_pair){ .task = t, .sym = s };
	p->n++;
	p->last = p->n - 1;
found:
	p->v[p->last].samples += n;
	p->v[p->last].period += period;
}

void agg_pairs_clear(struct agg *a)
{
	struct agg_pairs *p = a->pairs;

	if (p == NULL || p->n == 0)
		return;
	htab_clear(&p->ix);
	p->n = 0;
}

void agg_pairs_free(struct agg *a)
{
	if (a->pairs == NULL)
		return;
	free(a->pairs->v);
	htab_free(&a->pairs->ix);
	free(a->pairs);
	a->pairs = NULL;
}

size_t agg_pairs(const struct agg *a, const struct agg_pair **pairs)
{
	*pairs = a->pairs ? a->pairs->v : NULL;
	return a->pairs ? a->pairs->n : 0;
}
