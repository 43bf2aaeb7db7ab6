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
	struct agg_group *rows;   /* the merged rows; they borrow the addresses' strings */
	uint64_t *counts;         /* their counts: 4 * nevents each */
	size_t cap;
	struct htab map;          /* hash -> merged row */
};

void agg_group_srcline_fn(struct agg *a, agg_srcline_fn fn, void *ctx)
{
	a->srcline_fn = fn;
	a->srcline_ctx = ctx;
}

void agg_glines_free(struct agg_glines *l)
{
	if (l == NULL)
		return;
	free(l->rows);
	free(l->counts);
	htab_free(&l->map);
	free(l);
}

/* The address's line, named once: the row keeps it. */
static const char *line_of(struct agg *a, struct agg_group *g)
{
	char buf[512];

	if (g->srcline)
		return g->srcline;
	buf[0] = '\0';
	if (g->sym_key == 0 || g->sym == NULL || strcmp(g->sym, "[unknown]") == 0) {
		strlcpy(buf, UNKNOWN_LINE, sizeof(buf));
	} else if (g->kernel) {
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, g->sym, g->off);
	} else {
		struct agg_srcline_q q = { .dso = g->dso, .build_id = g->build_id, .build_id_len = g->build_id_len,
					   .addr = g->sym_start + g->off, .pid = g->spid };

		if (a->srcline_fn == NULL || g->dso == NULL || !a->srcline_fn(a->srcline_ctx, &q, buf, sizeof(buf)) ||
		    buf[0] == '\0')
			strlcpy(buf, UNKNOWN_LINE, sizeof(buf));
	}
	g->srcline = strdup(buf); /* NULL (no memory): named again at the next read */
	return g->srcline ? g->srcline : UNKNOWN_LINE;
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

static bool room(struct agg_glines *l, size_t n, size_t nev)
{
	struct agg_group *r;
	uint64_t *c;

	if (n <= l->cap)
		return true;
	if ((r = reallocarray(l->rows, n, sizeof(*r))) == NULL)
		return false;
	l->rows = r;
	if ((c = reallocarray(l->counts, n, 4 * nev * sizeof(*c))) == NULL)
		return false;
	l->counts = c;
	l->cap = n;
	return true;
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
	if (!room(l, n, nev))
		return 0;
	htab_clear(&l->map);
	for (size_t i = 0; i < n; i++) {
		struct agg_group *g = (struct agg_group *)rows[i], *r = NULL;
		const char *line = line_of(a, g);
		uint64_t h = line_hash(mask, g, line), *v;

		for (size_t j = htab_first(&l->map, h); j != SIZE_MAX; j = htab_next(&l->map, h, j))
			if (same_line(mask, (struct agg_group *)l->map.tab[j].val, g, line)) {
				r = (struct agg_group *)l->map.tab[j].val;
				break;
			}
		if (r == NULL) {
			r = &l->rows[m];
			v = l->counts + 4 * nev * m++;
			memset(v, 0, 4 * nev * sizeof(*v));
			*r = (struct agg_group){ .hash = h, .pid = -1, .cpu = -1, .srcline = (char *)line };
			agg_rows_counts_at(&r->iv, 1, v, nev);
			agg_rows_counts_at(&r->total, 1, v + 2 * nev, nev);
			if (HAS(mask, AGG_GK_COMM))
				memcpy(r->comm, g->comm, sizeof(r->comm));
			if (HAS(mask, AGG_GK_PID))
				r->pid = g->pid;
			if (HAS(mask, AGG_GK_CPU))
				r->cpu = g->cpu;
			if (HAS(mask, AGG_GK_DSO) || HAS(mask, AGG_GK_SYM)) {
				r->dso = g->dso;
				r->kernel = g->kernel;
			}
			if (HAS(mask, AGG_GK_SYM)) {
				r->sym = g->sym;
				r->sym_key = g->sym_key;
			}
			if (htab_put(&l->map, h, (uintptr_t)r))
				return 0;
		}
		agg_counts_add(&r->iv, &g->iv, nev);
		agg_counts_add(&r->total, &g->total, nev);
	}
	for (size_t i = 0; i < m; i++)
		rows[i] = &l->rows[i];
	return m;
}
