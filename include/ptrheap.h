/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptrheap: a binary heap of row pointers, for keeping the top few rows of
 * many without sorting them all. Header-only, so that the compiler inlines
 * the caller's predicate into the loop. */
#ifndef PERFTOP_PTRHEAP_H
#define PERFTOP_PTRHEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Whether x belongs nearer the root than y. */
typedef bool ptrheap_first_fn(const void *x, const void *y, void *arg);

/* Sifts h[i] down among h[0..n). */
static inline void ptrheap_down(void **h, size_t n, size_t i, ptrheap_first_fn *first, void *arg)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		void *t;

		if (l < n && first(h[l], h[m], arg))
			m = l;
		if (r < n && first(h[r], h[m], arg))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

#endif
