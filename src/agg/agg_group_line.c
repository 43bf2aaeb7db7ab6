/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_group_line: --sort srcline. The sample path counts rows per address
 * (agg_group.c: a symbol's key and the offset in it, no DWARF there); a
 * read names each new address once, through the session's function (the
 * DWARF line table, remembered per file and address by srcline.c), and
 * sums the addresses' rows into one row per (other keys, "file:line"), as
 * perf merges its entries by the srcline string. Like perf: "??:0" where
 * the file has no line for the address, "sym+OFF" (decimal) for the
 * kernel, whose lines perf too shows only from a debug vmlinux. */
#include "agg_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN_LINE "??:0"

struct agg_glines {
	struct htab map;          /* hash -> line row, several per hash */
	struct rowlist dead;      /* lines no address row reaches: freed a roll later */
};

static void line_free(struct agg_group *r)
{
	free(r->dso);
	free(r->sym);
	free(r->srcline);
	free(r);
}

void agg_group_srcline_fn(struct agg *a, agg_srcline_fn fn, void *ctx)
{
	a->srcline_fn = fn;
	a->srcline_ctx = ctx;
}

void agg_glines_free_dead(struct agg_glines *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->dead.n; i++)
		line_free(l->dead.v[i]);
	l->dead.n = 0;
}

void agg_glines_free(struct agg_glines *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; l->map.tab && i <= l->map.mask; i++)
		if (agg_row_at(&l->map, i))
			line_free(agg_row_at(&l->map, i));
	agg_glines_free_dead(l);
	free(l->dead.v);
	htab_free(&l->map);
	free(l);
}

void agg_glines_unref(struct agg *a, struct agg_glines *l, struct agg_group *g)
{
	struct agg_group *r = g->line;

	if (l == NULL || r == NULL)
		return;
	g->line = NULL;
	if (--r->refs == 0) {
		htab_del(&l->map, r->hash, (uintptr_t)r);
		agg_rows_push(a, &l->dead, r);
	}
}

/* The address's line, as perf names it, into buf. */
static void line_of(struct agg *a, const struct agg_group *g, char *buf, size_t len)
{
	buf[0] = '\0';
	if (g->sym_key == 0 || g->sym == NULL || strcmp(g->sym, "[unknown]") == 0) {
		strlcpy(buf, UNKNOWN_LINE, len);
	} else if (g->kernel) {
		snprintf(buf, len, "%s+%" PRIu64, g->sym, g->off);
	} else {
		struct agg_srcline_q q = { .dso = g->dso, .build_id = g->build_id, .build_id_len = g->build_id_len,
					   .addr = g->sym_start + g->off, .pid = g->spid };

		if (a->srcline_fn == NULL || g->dso == NULL || !a->srcline_fn(a->srcline_ctx, &q, buf, len) ||
		    buf[0] == '\0')
			strlcpy(buf, UNKNOWN_LINE, len);
	}
}

#define HAS(mask, k) ((mask) & (1u << (k)))

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t line_hash(unsigned mask, const struct agg_group *g, const char *line)
{
	uint64_t h = str_hash(14695981039346656037ULL, line);

	if (HAS(mask, AGG_GK_COMM))
		h = str_hash(h ^ 1, g->comm);
	if (HAS(mask, AGG_GK_PID))
		h = (h ^ (uint64_t)(uint32_t)g->pid) * 0x9e3779b97f4a7c15ULL;
	if (HAS(mask, AGG_GK_DSO))
		h = str_hash(h ^ 2, g->dso);
	if (HAS(mask, AGG_GK_SYM))
		h = (h ^ g->sym_key) * 0xc2b2ae3d27d4eb4fULL;
	if (HAS(mask, AGG_GK_CPU))
		h = (h ^ (uint64_t)(uint32_t)g->cpu) * 0x9e3779b97f4a7c15ULL;
	return htab_mix64(h);
}

static bool same_line(unsigned mask, const struct agg_group *m, const struct agg_group *g, const char *line)
{
	return strcmp(m->srcline, line) == 0 && (!HAS(mask, AGG_GK_COMM) || strcmp(m->comm, g->comm) == 0) &&
	       (!HAS(mask, AGG_GK_PID) || m->pid == g->pid) &&
	       (!HAS(mask, AGG_GK_DSO) || strcmp(m->dso, g->dso) == 0) &&
	       (!HAS(mask, AGG_GK_SYM) || m->sym_key == g->sym_key) && (!HAS(mask, AGG_GK_CPU) || m->cpu == g->cpu);
}

/* The line's row of a new address row, found or made: NULL out of memory. */
static struct agg_group *line_row(struct agg *a, struct agg_glines *l, unsigned mask, const struct agg_group *g)
{
	size_t nev = a->nevents;
	char line[512];
	uint64_t h, *v;
	struct agg_group *r;

	line_of(a, g, line, sizeof(line));
	h = line_hash(mask, g, line);
	for (size_t j = htab_first(&l->map, h); j != SIZE_MAX; j = htab_next(&l->map, h, j))
		if (same_line(mask, (struct agg_group *)l->map.tab[j].val, g, line))
			return (struct agg_group *)l->map.tab[j].val;
	if ((r = calloc(1, sizeof(*r) + 4 * nev * sizeof(uint64_t))) == NULL)
		return NULL;
	v = (uint64_t *)(void *)(r + 1);
	agg_rows_counts_at(&r->iv, 1, v, nev);
	agg_rows_counts_at(&r->total, 1, v + 2 * nev, nev);
	r->hash = h;
	r->pid = HAS(mask, AGG_GK_PID) ? g->pid : -1;
	r->cpu = HAS(mask, AGG_GK_CPU) ? g->cpu : -1;
	if (HAS(mask, AGG_GK_COMM))
		memcpy(r->comm, g->comm, sizeof(r->comm));
	r->srcline = strdup(line);
	if (HAS(mask, AGG_GK_DSO) || HAS(mask, AGG_GK_SYM)) {
		r->dso = strdup(g->dso);
		r->kernel = g->kernel;
	}
	if (HAS(mask, AGG_GK_SYM)) {
		r->sym = strdup(g->sym);
		r->sym_key = g->sym_key;
	}
	if (r->srcline == NULL || (r->dso == NULL && (HAS(mask, AGG_GK_DSO) || HAS(mask, AGG_GK_SYM))) ||
	    (r->sym == NULL && HAS(mask, AGG_GK_SYM)) || htab_put(&l->map, h, (uintptr_t)r)) {
		line_free(r);
		return NULL;
	}
	return r;
}

size_t agg_glines_merge(struct agg *a, struct agg_glines **lp, unsigned mask, const struct agg_group **rows, size_t n)
{
	struct agg_glines *l = *lp;
	size_t nev = a->nevents, m = 0;

	if (l == NULL) {
		if ((l = calloc(1, sizeof(*l))) == NULL || htab_init(&l->map, 256)) {
			free(l);
			return 0;
		}
		*lp = l;
	}
	for (size_t i = 0; i <= l->map.mask; i++) {
		struct agg_group *r = agg_row_at(&l->map, i);

		if (r) /* summed again: iv and total are one block */
			memset(r->iv.samples, 0, 4 * nev * sizeof(uint64_t));
	}
	for (size_t i = 0; i < n; i++) {
		struct agg_group *g = (struct agg_group *)rows[i];

		if (g->line == NULL) {
			if ((g->line = line_row(a, l, mask, g)) == NULL)
				continue; /* out of memory: named at the next read */
			g->line->refs++;
		}
		agg_counts_add(&g->line->iv, &g->iv, nev);
		agg_counts_add(&g->line->total, &g->total, nev);
	}
	for (size_t i = 0; i <= l->map.mask && m < n; i++)
		if (agg_row_at(&l->map, i))
			rows[m++] = agg_row_at(&l->map, i);
	return m;
}
