#include "deltamap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = calloc(cap * m->stride, sizeof(*m->vals));
	m->mark = calloc(cap, sizeof(*m->mark));
	if (!m->keys || !m->vals || !m->mark) {
		free(m->keys);
		free(m->vals);
		free(m->mark);
		m->keys = m->vals = NULL;
		m->mark = NULL;
		return -ENOMEM;
	}
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
	free(m->keys);
	free(m->vals);
	free(m->mark);
	memset(m, 0, sizeof(*m));
}

static void put_raw(struct deltamap *m, uint64_t key, const uint64_t *vals, uint32_t mark)
{
	size_t i = slot_of(m, key);

	while (m->mark[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->mark[i] = mark;
	memcpy(&m->vals[i * m->stride], vals, m->stride * sizeof(*vals));
	m->n++;
}

/* Rebuilds into cap slots keeping the entries marked keep_from or later. */
static int rebuild(struct deltamap *m, size_t cap, uint32_t keep_from)
{
	struct deltamap old = *m;

	if (alloc(m, cap)) {
		*m = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.mark[i] && old.mark[i] >= keep_from)
			put_raw(m, old.keys[i], &old.vals[i * old.stride], old.mark[i]);
	free(old.keys);
	free(old.vals);
	free(old.mark);
	return 0;
}

uint64_t *deltamap_get(struct deltamap *m, uint64_t key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = slot_of(m, key); m->mark[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->mark[i] = m->sweep;
			return &m->vals[i * m->stride];
		}
	}
	if ((m->n + 1) * 2 > m->cap) {
		if (rebuild(m, m->cap * 2, 1))
			return NULL;
		for (i = slot_of(m, key); m->mark[i]; i = (i + 1) & (m->cap - 1))
			;
	}
	m->keys[i] = key;
	m->mark[i] = m->sweep;
	memset(&m->vals[i * m->stride], 0, m->stride * sizeof(*m->vals));
	m->n++;
	return &m->vals[i * m->stride];
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
