/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_map: the open-addressing maps from a 64-bit key to a row (agg_int.h
 * has the lookup, inline for the hot path). */
#include "agg_int.h"

#include <errno.h>
#include <stdlib.h>

int agg_map_init(struct map *m, size_t cap)
{
	m->tab = calloc(cap, sizeof(*m->tab));
	m->mask = cap - 1;
	m->used = 0;
	return m->tab ? 0 : -ENOMEM;
}

static void map_put_raw(struct map *m, uint64_t key, void *row)
{
	size_t i;

	for (i = agg_hash64(key) & m->mask; m->tab[i].row; i = (i + 1) & m->mask)
		;
	m->tab[i].key = key;
	m->tab[i].row = row;
	m->used++;
}

int agg_map_put(struct map *m, uint64_t key, void *row)
{
	if (2 * (m->used + 1) > m->mask + 1) {
		struct map n;

		if (agg_map_init(&n, 2 * (m->mask + 1)))
			return -ENOMEM;
		for (size_t i = 0; i <= m->mask; i++)
			if (m->tab[i].row)
				map_put_raw(&n, m->tab[i].key, m->tab[i].row);
		free(m->tab);
		*m = n;
	}
	map_put_raw(m, key, row);
	return 0;
}

/* Removes key's entry; the entries after it in its probe run move back
 * into the hole, so lookups never need tombstones. */
void agg_map_del(struct map *m, uint64_t key, const void *row)
{
	size_t i = agg_hash64(key) & m->mask, j;

	for (; m->tab[i].row; i = (i + 1) & m->mask)
		if (m->tab[i].key == key && m->tab[i].row == row)
			break;
	if (m->tab[i].row == NULL)
		return;
	for (j = i;;) {
		size_t home;

		j = (j + 1) & m->mask;
		if (m->tab[j].row == NULL)
			break;
		home = agg_hash64(m->tab[j].key) & m->mask;
		/* Stays if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->tab[i] = m->tab[j];
		i = j;
	}
	m->tab[i].key = 0;
	m->tab[i].row = NULL;
	m->used--;
}

/* After expiry: a table an eighth full is halved, so that walking it (the
 * sorted views) follows the rows kept, not the most ever seen. */
void agg_map_shrink(struct map *m, size_t min_cap)
{
	struct map n;
	size_t cap = m->mask + 1;

	while (cap > min_cap && m->used * 8 < cap)
		cap /= 2;
	if (cap == m->mask + 1 || agg_map_init(&n, cap))
		return;
	for (size_t i = 0; i <= m->mask; i++)
		if (m->tab[i].row)
			map_put_raw(&n, m->tab[i].key, m->tab[i].row);
	free(m->tab);
	*m = n;
}
