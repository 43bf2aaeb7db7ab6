/* SPDX-License-Identifier: GPL-2.0-or-later */
/* htab: the one open-addressing hash table: 64-bit keys to non-zero
 * values (a pointer, or an index + 1), linear probing, grown at half load,
 * deletion by moving the run back (no tombstones). Several values may share
 * a key (keys that are hashes of names): htab_next walks them and the
 * caller compares. Lookups are inline: they sit on the sample path. */
#ifndef PERFTOP_HTAB_H
#define PERFTOP_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab_slot {
	uint64_t key;
	uintptr_t val;    /* 0: empty */
};

struct htab {
	struct htab_slot *tab;
	size_t mask, used;
};

/* A 64-bit finaliser (murmur3's): spreads keys whose low bits repeat. */
static inline uint64_t htab_mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* cap: a power of two (at least 2). 0 or -ENOMEM. */
int htab_init(struct htab *h, size_t cap);
void htab_free(struct htab *h);
/* Empties the table, keeping its room. */
void htab_clear(struct htab *h);
/* Adds key -> val (val != 0); a key already there gets a second value.
 * 0 or -ENOMEM (the table is unchanged then). */
int htab_put(struct htab *h, uint64_t key, uintptr_t val);
/* Removes the entry key -> val; false when it is not there. */
bool htab_del(struct htab *h, uint64_t key, uintptr_t val);
/* Halves the table while it is an eighth full and above min_cap (a power
 * of two), so that walking it follows the entries kept, not the most ever
 * held. Out of memory it stays as it is. */
void htab_shrink(struct htab *h, size_t min_cap);

/* The slot of the first value under key at or after slot i's run, or
 * SIZE_MAX: for (i = htab_first(h, k); i != SIZE_MAX; i = htab_next(h, k, i)). */
static inline size_t htab_scan(const struct htab *h, uint64_t key, size_t i)
{
	for (; h->tab[i].val; i = (i + 1) & h->mask)
		if (h->tab[i].key == key)
			return i;
	return SIZE_MAX;
}

static inline size_t htab_first(const struct htab *h, uint64_t key)
{
	return h->tab ? htab_scan(h, key, htab_mix64(key) & h->mask) : SIZE_MAX;
}

static inline size_t htab_next(const struct htab *h, uint64_t key, size_t i)
{
	return htab_scan(h, key, (i + 1) & h->mask);
}

/* The first value under key, or 0. */
static inline uintptr_t htab_get(const struct htab *h, uint64_t key)
{
	size_t i = htab_first(h, key);

	return i == SIZE_MAX ? 0 : h->tab[i].val;
}

#endif
