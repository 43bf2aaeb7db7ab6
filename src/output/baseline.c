/* SPDX-License-Identifier: GPL-2.0-or-later */
/* baseline: the table (name, DSO file name) -> share; baseline_json.c and
 * baseline_pprof.c parse into it, baseline_load.c reads a file for them. */
#include "baseline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"


struct entry {
	char *key;                /* name '\x1f' dso file name */
	double share;
};

struct baseline {
	struct entry *v;
	size_t n, cap;
	struct htab ix;           /* key hash -> index + 1, several per hash */
};

struct baseline *baseline_new(void)
{
	struct baseline *b = calloc(1, sizeof(*b));

	if (b && htab_init(&b->ix, 256)) {
		free(b);
		return NULL;
	}
	return b;
}

void baseline_clear(struct baseline *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].key);
	b->n = 0;
	htab_clear(&b->ix);
}

void baseline_free(struct baseline *b)
{
	if (b == NULL)
		return;
	baseline_clear(b);
	free(b->v);
	htab_free(&b->ix);
	free(b);
}

size_t baseline_len(const struct baseline *b)
{
	return b ? b->n : 0;
}

static const char *file_name(const char *dso)
{
	const char *slash = dso ? strrchr(dso, '/') : NULL;

	return slash && slash[1] ? slash + 1 : dso ? dso : "";
}

/* The key of (name, dso) in buf; its hash. */
static uint64_t make_key(char *buf, size_t len, const char *name, const char *dso)
{
	uint64_t h = 14695981039346656037ULL;

	snprintf(buf, len, "%s\x1f%s", name ? name : "", file_name(dso));
	for (const char *p = buf; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return htab_mix64(h);
}

static struct entry *find(const struct baseline *b, const char *key, uint64_t h)
{
	for (size_t j = htab_first(&b->ix, h); j != SIZE_MAX; j = htab_next(&b->ix, h, j)) {
		struct entry *e = &b->v[b->ix.tab[j].val - 1];

		if (strcmp(e->key, key) == 0)
			return e;
	}
	return NULL;
}

int baseline_add(struct baseline *b, const char *name, const char *dso, double share)
{
	char key[1024];
	uint64_t h = make_key(key, sizeof(key), name, dso);
	struct entry *e = find(b, key, h);

	if (e) {
		e->share += share;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct entry *v = reallocarray(b->v, cap, sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	if ((b->v[b->n].key = strdup(key)) == NULL)
		return -ENOMEM;
	if (htab_put(&b->ix, h, b->n + 1)) {
		free(b->v[b->n].key);
		return -ENOMEM;
	}
	b->v[b->n++].share = share;
	return 0;
}

double baseline_share(const struct baseline *b, const char *name, const char *dso)
{
	char key[1024];
	uint64_t h;
	const struct entry *e;

	if (b == NULL || b->n == 0)
		return 0;
	h = make_key(key, sizeof(key), name, dso);
	e = find(b, key, h);
	return e ? e->share : 0;
}
