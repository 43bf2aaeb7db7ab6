/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdorder: perf report's order. perf record writes each pass over the rings
 * as one round, the CPUs' records one after the other, and a FINISHED_ROUND
 * after it: nothing a later round holds is older than what the round
 * before the last one held. So at each round's end the records queued up
 * to the previous round's newest time are sorted and handed on; the rest
 * wait for the next round (perf's ordered events do the same). */
#include "pdread_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool before(const struct pdorder_entry *a, const struct pdorder_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int pdorder_grow(struct pdorder *o)
{
	size_t cap = o->cap ? o->cap * 2 : 4096;
	struct pdorder_entry *q = reallocarray(o->q, cap, sizeof(*q));

	if (q == NULL)
		return -ENOMEM;
	o->q = q;
	o->cap = cap;
	free(o->tmp); /* sized with the queue: made again when needed */
	o->tmp = NULL;
	return 0;
}

/* A bottom-up merge sort of q[lo, hi) over the runs already in order: a
 * round is the CPUs' runs one after the other, so a few merges. */
static int sort_runs(struct pdorder *o, size_t lo, size_t hi)
{
	size_t n = hi - lo, nruns = 0, *runs;
	struct pdorder_entry *src, *dst, *t;

	if (n < 2)
		return 0;
	src = o->q + lo; /* after the check: q is NULL while nothing was queued */
	if (o->tmp == NULL && (o->tmp = malloc(o->cap * sizeof(*o->tmp))) == NULL)
		return -ENOMEM;
	if ((runs = malloc((n + 1) * sizeof(*runs))) == NULL)
		return -ENOMEM;
	runs[nruns++] = 0;
	for (size_t i = 1; i < n; i++)
		if (before(&src[i], &src[i - 1]))
			runs[nruns++] = i;
	runs[nruns] = n;
	dst = o->tmp;
	while (nruns > 1) {
		size_t k = 0;

		for (size_t r = 0; r < nruns; r += 2) {
			size_t i = runs[r], mid = runs[r + 1], end = r + 2 <= nruns ? runs[r + 2] : mid;
			size_t j = mid, w = i;

			while (i < mid && j < end)
				dst[w++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
			while (i < mid)
				dst[w++] = src[i++];
			while (j < end)
				dst[w++] = src[j++];
			runs[k++] = runs[r];
		}
		runs[k] = n;
		nruns = k;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != o->q + lo && lo == 0) {
		o->tmp = o->q; /* the sorted copy becomes the queue: no copy back */
		o->q = src;
	} else if (src != o->q + lo) {
		memcpy(o->q + lo, src, n * sizeof(*src));
	}
	free(runs);
	return 0;
}

int pdorder_round(struct pdorder *o, bool all)
{
	size_t lo = o->ready, cut;
	int rc;

	/* What was handed on is gone: the rest moves to the front. */
	if (o->next > 0) {
		memmove(o->q, o->q + o->next, (o->n - o->next) * sizeof(*o->q));
		o->n -= o->next;
		o->ready -= o->next;
		o->next = 0;
		lo = o->ready;
	}
	if (!o->sorted && (rc = sort_runs(o, lo, o->n)) != 0)
		return rc;
	o->sorted = true;
	if (all) {
		cut = o->n;
	} else {
		/* The first entry newer than the limit. */
		size_t a = lo, b = o->n;

		while (a < b) {
			size_t m = a + (b - a) / 2;

			if (o->q[m].time <= o->limit)
				a = m + 1;
			else
				b = m;
		}
		cut = a;
	}
	o->ready = cut;
	o->limit = o->newest;
	return 0;
}

void pdorder_free(struct pdorder *o)
{
	free(o->q);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}
