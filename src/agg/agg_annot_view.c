/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_annot_view: the wants and the reads of per-instruction counts
 * (include/agg.h): each settles the memos' pending hits first, so that
 * the records see what was counted before. The records themselves are
 * agg_annot.c's. */
#include "agg_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int agg_annot_want(struct agg *a, uint64_t key, bool on)
{
	size_t i;
	struct agg_annot_rec *r;

	agg_settle(a); /* hits before the want are not its record's */
	i = agg_annot_index(a, key);
	r = i < a->nannot ? a->annot[i] : NULL;
	if (!on) {
		if (r && r->wants && --r->wants == 0 && !agg_annot_kept(r))
			agg_annot_drop(a, i);
		return 0;
	}
	if ((r == NULL || (r->wants == 0 && !r->by_name)) && agg_annot_nwanted(a) >= AGG_ANNOT_WANT)
		return -ENOSPC;
	if (r == NULL) {
		if ((r = agg_annot_new(a, key, (struct agg_sym *)htab_get(&a->syms, key))) == NULL)
			return -ENOMEM;
		r->since_open = true;
	}
	r->wants++;
	return 0;
}

int agg_annot_want_name(struct agg *a, const char *name, bool on)
{
	size_t k = agg_annot_name_index(a, name);

	agg_settle(a);
	if (!on) {
		if (k == a->nannot_names || --a->annot_name_wants[k])
			return 0;
		free(a->annot_names[k]);
		a->annot_names[k] = a->annot_names[--a->nannot_names];
		a->annot_name_wants[k] = a->annot_name_wants[a->nannot_names];
		for (size_t i = a->nannot; i-- > 0;) {
			struct agg_annot_rec *r = a->annot[i];

			if (r->by_name && r->row && strcmp(r->row->sym, name) == 0) {
				r->by_name = false;
				if (!agg_annot_kept(r))
					agg_annot_drop(a, i);
			}
		}
		return 0;
	}
	if (k < a->nannot_names) {
		a->annot_name_wants[k]++;
		return 0;
	}
	if (a->nannot_names >= AGG_ANNOT_WANT)
		return -ENOSPC;
	if ((a->annot_names[k] = strdup(name)) == NULL)
		return -ENOMEM;
	a->annot_name_wants[k] = 1;
	a->nannot_names++;
	/* Rows there already: counted from now on. */
	for (size_t i = 0; a->syms.tab && i <= a->syms.mask; i++) {
		struct agg_sym *s = agg_row_at(&a->syms, i);
		struct agg_annot_rec *r;

		if (s == NULL || strcmp(s->sym, name) != 0)
			continue;
		if ((r = s->annot) == NULL) {
			if (agg_annot_nwanted(a) >= AGG_ANNOT_WANT || (r = agg_annot_new(a, s->key, s)) == NULL)
				break;
			r->since_open = true;
		}
		r->by_name = true;
	}
	return 0;
}

static int by_offset(const void *x, const void *y)
{
	const struct agg_annot_count *p = x, *q = y;

	return (p->offset > q->offset) - (p->offset < q->offset);
}

size_t agg_annot_counts(struct agg *a, uint64_t key, size_t ev, enum agg_scope scope,
			const struct agg_annot_count **out, bool *counting_since_open)
{
	struct agg_annot_rec *r;
	size_t n = 0, w = 1 + 2 * a->nevents;

	agg_settle(a);
	{
		size_t i = agg_annot_index(a, key);

		r = i < a->nannot ? a->annot[i] : NULL;
	}
	*out = a->annot_out;
	if (counting_since_open)
		*counting_since_open = r && r->since_open;
	if (r == NULL || ev >= a->nevents || r->n == 0)
		return 0;
	if (a->annot_out_cap < r->n) {
		struct agg_annot_count *v = reallocarray(a->annot_out, r->n, sizeof(*v));

		if (v == NULL)
			return 0;
		a->annot_out = v;
		a->annot_out_cap = r->n;
	}
	for (size_t j = 0; j < r->cap; j++) {
		const uint64_t *v = &r->slots[j * w];
		uint64_t c = v[1 + (scope == AGG_TOTAL ? a->nevents : 0) + ev];

		if (v[0] && c)
			a->annot_out[n++] = (struct agg_annot_count){ .offset = v[0] - 1, .samples = c };
	}
	if (n > 1)
		qsort(a->annot_out, n, sizeof(*a->annot_out), by_offset);
	*out = a->annot_out;
	return n;
}
