/* SPDX-License-Identifier: GPL-2.0-or-later */
/* htab: growing and deleting; lookups are inline in include/htab.h. */
#include "htab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int htab_init(struct htab *h, size_t cap)
{
	if (cap < 2 || (cap & (cap - 1)))
		return -EINVAL;
	h->tab = calloc(cap, sizeof(*h->tab));
	h->mask = cap - 1;
	h->used = 0;
	return h->tab ? 0 : -ENOMEM;
}

void htab_free(struct htab *h)
{
	free(h->tab);
	h->tab = NULL;
	h->mask = h->used = 0;
}

void htab_clear(struct htab *h)
{
	if (h->tab)
		memset(h->tab, 0, (h->mask + 1) * sizeof(*h->tab));
	h->used = 0;
}

static void put_raw(struct htab *h, uint64_t key, uintptr_t val)
{
	size_t i = htab_mix64(key) & h->mask;

	while (h->tab[i].val)
		i = (i + 1) & h->mask;
	h->tab[i].key = key;
	h->tab[i].val = val;
	h->used++;
}

static int rehash(struct htab *h, size_t cap)
{
	struct htab n;

	if (htab_init(&n, cap))
		return -ENOMEM;
	for (size_t i = 0; i <= h->mask; i++)
		if (h->tab[i].val)
			put_raw(&n, h->tab[i].key, h->tab[i].val);
	free(h->tab);
	*h = n;
	return 0;
}

int htab_put(struct htab *h, uint64_t key, uintptr_t val)
{
	if (!h->tab && htab_init(h, 16))
		return -ENOMEM;
	if (2 * (h->used + 1) > h->mask + 1 && rehash(h, 2 * (h->mask + 1)))
		return -ENOMEM;
	put_raw(h, key, val);
	return 0;
}

void htab_shrink(struct htab *h, size_t min_cap)
{
	size_t cap = h->mask + 1;

	if (!h->tab)
		return;
	while (cap > min_cap && cap > 2 && h->used * 8 < cap)
		cap /= 2;
	if (cap != h->mask + 1)
		rehash(h, cap);
}

bool htab_del(struct htab *h, uint64_t key, uintptr_t val)
{
	size_t i;

	if (!h->tab)
		return false;
	for (i = htab_mix64(key) & h->mask; h->tab[i].val; i = (i + 1) & h->mask)
		if (h->tab[i].key == key && h->tab[i].val == val)
			break;
	if (!h->tab[i].val)
		return false;
	/* Move each later entry of the run back into the hole unless its home
	 * lies cyclically in (hole, j]: lookups then never need tombstones. */
	for (size_t j = i;;) {
		size_t home;

		j = (j + 1) & h->mask;
		if (!h->tab[j].val)
			break;
		home = htab_mix64(h->tab[j].key) & h->mask;
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		h->tab[i] = h->tab[j];
		i = j;
	}
	h->tab[i].key = 0;
	h->tab[i].val = 0;
	h->used--;
	return true;
}
