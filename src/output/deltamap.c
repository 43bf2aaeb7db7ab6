/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "deltamap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Not htab: stride values and a mark inline with each key, swept by mark.
 * A slot is one run of words, key, mark and values together: a lookup
 * touches one cache line, not three arrays'. */
#define W(m) (2 + (m)->stride)
#define KEY(m, i) ((m)->slots[(i) * W(m)])
#define MARK(m, i) ((m)->slots[(i) * W(m) + 1])
#define VALS(m, i) (&(m)->slots[(i) * W(m) + 2])

/* A full 64-bit mix: keys like name << 32 | file differ only in high bits,
 * which a plain multiply leaves out of the low ones (all in one slot run). */
static size_t slot_of(const struct deltamap *m, uint64_t key)
{
	uint64_t h = key;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (size_t)h & (m->cap - 1);
}

static int alloc(struct deltamap *m, size_t cap)
{
	m->slots = calloc(cap, W(m) * sizeof(*m->slots));
	if (m->slots == NULL)
		return -ENOMEM;
	m->cap = cap;
	m->n = 0;
	return 0;
}

int deltamap_init(struct deltamap *m, size_t stride)
{
	memset(m, 0, sizeof(*m));
	m->stride = stride;
	m->sweep = 1;
	return alloc(m, 64);
}

void deltamap_free(struct deltamap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static void put_raw(struct deltamap *m, uint64_t key, const uint64_t *vals, uint64_t mark)
{
	size_t i = slot_of(m, key);

	while (MARK(m, i))
		i = (i + 1) & (m->cap - 1);
	KEY(m, i) = key;
	MARK(m, i) = mark;
	memcpy(VALS(m, i), vals, m->stride * sizeof(*vals));
	m->n++;
}

/* Rebuilds into cap slots keeping the entries marked keep_from or later. */
static int rebuild(struct deltamap *m, size_t cap, uint64_t keep_from)
{
	struct deltamap old = *m;

	if (alloc(m, cap)) {
		*m = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (MARK(&old, i) && MARK(&old, i) >= keep_from)
			put_raw(m, KEY(&old, i), VALS(&old, i), MARK(&old, i));
	free(old.slots);
	return 0;
}

uint64_t *deltamap_get(struct deltamap *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = slot_of(m, key); MARK(m, i); i = (i + 1) & (m->cap - 1)) {
		if (KEY(m, i) == key) {
			MARK(m, i) = m->sweep;
			return VALS(m, i);
		}
	}
	if ((m->n + 1) * 2 > m->cap) {
		if (rebuild(m, m->cap * 2, 1))
			return NULL;
		for (i = slot_of(m, key); MARK(m, i); i = (i + 1) & (m->cap - 1))
			;
	}
	KEY(m, i) = key;
	MARK(m, i) = m->sweep;
	memset(VALS(m, i), 0, m->stride * sizeof(uint64_t));
	m->n++;
	return VALS(m, i);
}

uint64_t *deltamap_find(const struct deltamap *m, uint64_t key)
{
	if (m->cap == 0)
		return NULL;
	for (size_t i = slot_of(m, key); MARK(m, i); i = (i + 1) & (m->cap - 1))
		if (KEY(m, i) == key)
			return VALS(m, i);
	return NULL;
}

int deltamap_sweep(struct deltamap *m)
{
	size_t cap = m->cap;
	int rc;

	while (cap > 64 && m->n * 8 < cap)
		cap /= 2;
	rc = rebuild(m, cap, m->sweep);
	m->sweep++;
	return rc;
}

void deltamap_clear(struct deltamap *m)
{
	if (m->cap)
		memset(m->slots, 0, m->cap * W(m) * sizeof(*m->slots));
	m->n = 0;
}
