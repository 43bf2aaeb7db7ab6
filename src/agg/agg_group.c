/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_group: perf top's --sort: counts per composite key (comm, pid, dso,
 * sym, cpu, in the order asked), from the samples as they come, with the
 * symbol rows' discipline: interval and since start, decayed or zeroed
 * at the roll, idle rows expired into the expired sums (unless "since
 * start" keeps them), freed a roll later. Every sample path counts here:
 * agg_sample_rows (the long way, stacks, the stack memo) and the flat
 * memo's hits. */
#include "agg_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[AGG_GK_COUNT] = {
	[AGG_GK_COMM] = "comm", [AGG_GK_PID] = "pid", [AGG_GK_DSO] = "dso",
	[AGG_GK_SYM] = "sym", [AGG_GK_CPU] = "cpu", [AGG_GK_SRCLINE] = "srcline",
};

struct agg_groupset {
	enum agg_gkey keys[AGG_GK_COUNT];
	size_t nkeys;
	unsigned mask;            /* 1 << key, for each key */
	struct htab map;          /* hash -> row, several per hash */
	struct rowlist act, idle, dead;
	struct agg_group *last;   /* consecutive samples mostly land in one row */
	const struct agg_sym *last_sym;
	const struct agg_task *last_task;
	uint64_t last_gen, last_off;
	int last_cpu;
	uint64_t expired[2][AGG_MAX_EVENTS]; /* samples, period of rows gone */
	struct agg_counts expired_counts;
	uint64_t expired_rows;
	const struct agg_group **out;
	size_t out_cap;
	struct agg_glines *lines; /* srcline: the rows by line (agg_group_line.c) */
};

const char *agg_group_key_name(enum agg_gkey k)
{
	return (unsigned)k < AGG_GK_COUNT ? key_names[k] : "?";
}

int agg_group_parse(const char *s, enum agg_gkey *keys, size_t max)
{
	size_t n = 0;

	while (s && *s) {
		size_t len = strcspn(s, ","), k;

		for (k = 0; k < AGG_GK_COUNT; k++)
			if (strlen(key_names[k]) == len && strncmp(s, key_names[k], len) == 0)
				break;
		/* perf's "symbol" is accepted for "sym" */
		if (k == AGG_GK_COUNT && len == 6 && strncmp(s, "symbol", 6) == 0)
			k = AGG_GK_SYM;
		if (k == AGG_GK_COUNT || n == max)
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			if (keys[i] == (enum agg_gkey)k)
				return -EINVAL;
		keys[n++] = (enum agg_gkey)k;
		s += len;
		if (*s == ',' && *++s == '\0')
			return -EINVAL;
	}
	return n ? (int)n : -EINVAL;
}

static void row_free(struct agg_group *g)
{
	free(g->dso);
	free(g->sym);
	free(g->srcline);
	free(g);
}

static void rows_drop(struct agg_groupset *gs)
{
	for (size_t i = 0; gs->map.tab && i <= gs->map.mask; i++)
		if (agg_row_at(&gs->map, i))
			row_free(agg_row_at(&gs->map, i));
	for (size_t i = 0; i < gs->dead.n; i++)
		row_free(gs->dead.v[i]);
	htab_clear(&gs->map);
	agg_glines_free(gs->lines);
	gs->lines = NULL;
	gs->act.n = gs->idle.n = gs->dead.n = 0;
	gs->last = NULL;
	memset(gs->expired, 0, sizeof(gs->expired));
	gs->expired_rows = 0;
}

void agg_group_free(struct agg *a)
{
	struct agg_groupset *gs = a->grp;

	if (gs == NULL)
		return;
	rows_drop(gs);
	htab_free(&gs->map);
	free(gs->act.v);
	free(gs->idle.v);
	free(gs->dead.v);
	free(gs->out);
	free(gs);
	a->grp = NULL;
}

int agg_group_keys(struct agg *a, const enum agg_gkey *keys, size_t n)
{
	struct agg_groupset *gs = a->grp;

	if (n > AGG_GK_COUNT)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned)keys[i] >= AGG_GK_COUNT)
			return -EINVAL;
	if (n == 0) {
		agg_group_free(a);
		return 0;
	}
	if (gs == NULL) {
		if ((gs = calloc(1, sizeof(*gs))) == NULL || htab_init(&gs->map, 256)) {
			free(gs);
			return -ENOMEM;
		}
		agg_rows_counts_at(&gs->expired_counts, 1, &gs->expired[0][0], AGG_MAX_EVENTS);
		a->grp = gs;
	}
	rows_drop(gs); /* new keys: counted from now */
	memcpy(gs->keys, keys, n * sizeof(*keys));
	gs->nkeys = n;
	gs->mask = 0;
	for (size_t i = 0; i < n; i++)
		gs->mask |= 1u << keys[i];
	return 0;
}

size_t agg_group_nkeys(const struct agg *a, const enum agg_gkey **keys)
{
	*keys = a->grp ? a->grp->keys : NULL;
	return a->grp ? a->grp->nkeys : 0;
}

size_t agg_group_carry(const struct agg *old, const char *sort_keys, enum agg_gkey keys[AGG_GK_COUNT])
{
	const enum agg_gkey *k;
	size_t n = 0;
	int rc;

	if (old && (n = agg_group_nkeys(old, &k)) > 0)
		memcpy(keys, k, n * sizeof(*keys));
	else if (old == NULL && sort_keys && (rc = agg_group_parse(sort_keys, keys, AGG_GK_COUNT)) > 0)
		n = (size_t)rc;
	return n;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

#define HAS(gs, k) ((gs)->mask & (1u << (k)))

static uint64_t key_hash(const struct agg_groupset *gs, int cpu, const struct agg_sym *s, const struct agg_task *t,
			 uint64_t off)
{
	uint64_t h = 14695981039346656037ULL;

	if (HAS(gs, AGG_GK_COMM))
		h = str_hash(h, t ? t->comm : "?");
	if (HAS(gs, AGG_GK_PID))
		h = (h ^ (uint64_t)(t ? t->pid : -1)) * 0x9e3779b97f4a7c15ULL;
	if (HAS(gs, AGG_GK_DSO))
		h = str_hash(h, s ? s->dso : "[unknown]");
	if (HAS(gs, AGG_GK_SYM))
		h = (h ^ (s ? s->key : 0)) * 0xc2b2ae3d27d4eb4fULL;
	if (HAS(gs, AGG_GK_CPU))
		h = (h ^ (uint64_t)(uint32_t)cpu) * 0x9e3779b97f4a7c15ULL;
	if (HAS(gs, AGG_GK_SRCLINE)) /* the address: its line is named at the read */
		h = (h ^ (s ? s->key : 0) ^ off << 1) * 0xc2b2ae3d27d4eb4fULL;
	return agg_hash64(h);
}

static bool key_equal(const struct agg_groupset *gs, const struct agg_group *g, int cpu, const struct agg_sym *s,
		      const struct agg_task *t, uint64_t off)
{
	if (HAS(gs, AGG_GK_SRCLINE) && (g->sym_key != (s ? s->key : 0) || g->off != off))
		return false;
	if (HAS(gs, AGG_GK_COMM) && strcmp(g->comm, t ? t->comm : "?") != 0)
		return false;
	if (HAS(gs, AGG_GK_PID) && g->pid != (t ? t->pid : -1))
		return false;
	if (HAS(gs, AGG_GK_DSO) && strcmp(g->dso, s ? s->dso : "[unknown]") != 0)
		return false;
	if (HAS(gs, AGG_GK_SYM) && g->sym_key != (s ? s->key : 0))
		return false;
	return !HAS(gs, AGG_GK_CPU) || g->cpu == cpu;
}

static struct agg_group *row_new(struct agg *a, uint64_t h, int cpu, const struct agg_sym *s,
				 const struct agg_task *t, uint64_t off)
{
	struct agg_groupset *gs = a->grp;
	size_t nev = a->nevents;
	struct agg_group *g = calloc(1, sizeof(*g) + 4 * nev * sizeof(uint64_t));
	uint64_t *v;

	if (g == NULL)
		return NULL;
	v = (uint64_t *)(void *)(g + 1);
	agg_rows_counts_at(&g->iv, 1, v, nev);
	agg_rows_counts_at(&g->total, 1, v + 2 * nev, nev);
	g->hash = h;
	g->pid = -1;
	g->cpu = -1;
	if (HAS(gs, AGG_GK_COMM))
		strlcpy(g->comm, t ? t->comm : "?", sizeof(g->comm));
	if (HAS(gs, AGG_GK_PID))
		g->pid = t ? t->pid : -1;
	if (HAS(gs, AGG_GK_CPU))
		g->cpu = cpu;
	if (HAS(gs, AGG_GK_DSO) || HAS(gs, AGG_GK_SYM) || HAS(gs, AGG_GK_SRCLINE)) {
		g->dso = strdup(s ? s->dso : "[unknown]");
		g->kernel = s && s->kernel;
	}
	if (HAS(gs, AGG_GK_SYM) || HAS(gs, AGG_GK_SRCLINE)) {
		g->sym = strdup(s ? s->sym : "[unknown]");
		g->sym_key = s ? s->key : 0;
	}
	if (HAS(gs, AGG_GK_SRCLINE)) { /* what the read needs to name the line */
		g->off = off;
		g->sym_start = s ? s->start : 0;
		g->spid = s ? s->pid : -1;
		if (s && s->build_id_len <= AGG_BUILD_ID_MAX) {
			memcpy(g->build_id, s->build_id, s->build_id_len);
			g->build_id_len = s->build_id_len;
		}
	}
	if ((g->dso == NULL && (HAS(gs, AGG_GK_DSO) || HAS(gs, AGG_GK_SYM) || HAS(gs, AGG_GK_SRCLINE))) ||
	    (g->sym == NULL && (HAS(gs, AGG_GK_SYM) || HAS(gs, AGG_GK_SRCLINE))) || htab_put(&gs->map, h, (uintptr_t)g)) {
		row_free(g);
		return NULL;
	}
	return g;
}

/* The row of a sample's keys, found or made; NULL out of memory. */
static struct agg_group *row_of(struct agg *a, int cpu, const struct agg_sym *s, const struct agg_task *t,
			       uint64_t off)
{
	struct agg_groupset *gs = a->grp;
	struct agg_group *g = gs->last;
	uint64_t h;

	if (g && gs->last_sym == s && gs->last_task == t && (!t || gs->last_gen == t->comm_gen) &&
	    (gs->last_cpu == cpu || !HAS(gs, AGG_GK_CPU)) && (gs->last_off == off || !HAS(gs, AGG_GK_SRCLINE)))
		return g;
	h = key_hash(gs, cpu, s, t, off);
	g = NULL;
	for (size_t j = htab_first(&gs->map, h); j != SIZE_MAX; j = htab_next(&gs->map, h, j)) {
		struct agg_group *x = (void *)gs->map.tab[j].val;

		if (key_equal(gs, x, cpu, s, t, off)) {
			g = x;
			break;
		}
	}
	if (g == NULL && (g = row_new(a, h, cpu, s, t, off)) == NULL)
		return NULL;
	gs->last = g;
	gs->last_sym = s;
	gs->last_task = t;
	gs->last_gen = t ? t->comm_gen : 0;
	gs->last_cpu = cpu;
	gs->last_off = off;
	return g;
}

void agg_group_count(struct agg *a, size_t ev, int cpu, const struct agg_sym *s, const struct agg_task *t,
		     uint64_t off, uint64_t n, uint64_t period)
{
	struct agg_group *g = row_of(a, cpu, s, t, off);

	if (g == NULL)
		return;
	agg_count_n(&g->iv, &g->total, ev, n, period);
	if (!g->active) {
		g->active = true;
		agg_rows_push(a, &a->grp->act, g);
	}
}

static bool zero(const struct agg_counts *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		if (c->samples[e] || c->period[e])
			return false;
	return true;
}

/* The keep_top-th most samples since start (event 0): rows at or above it
 * stay when idle, as "since start" shows them. */
static int cmp_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a < b) - (a > b);
}

static uint64_t keep_floor(struct agg *a)
{
	struct agg_groupset *gs = a->grp;
	uint64_t *v, floor = UINT64_MAX;
	size_t n = 0;

	if (a->keep_top == 0)
		return UINT64_MAX;
	if (gs->map.used <= a->keep_top)
		return 0;
	if ((v = malloc(gs->map.used * sizeof(*v))) == NULL)
		return UINT64_MAX;
	for (size_t i = 0; i <= gs->map.mask; i++)
		if (agg_row_at(&gs->map, i))
			v[n++] = ((struct agg_group *)agg_row_at(&gs->map, i))->total.samples[0];
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_desc);
	floor = v[a->keep_top - 1] ? v[a->keep_top - 1] : 1;
	free(v);
	return floor;
}

void agg_group_roll(struct agg *a, unsigned decay_pct)
{
	struct agg_groupset *gs = a->grp;
	size_t n = 0, gone = 0;
	uint64_t floor = 0;
	bool ranked = false;

	if (gs == NULL)
		return;
	if (!a->held) {
		for (size_t i = 0; i < gs->dead.n; i++)
			row_free(gs->dead.v[i]);
		gs->dead.n = 0;
		agg_glines_free_dead(gs->lines);
	}
	gs->last = NULL;
	for (size_t i = 0; i < gs->act.n; i++) {
		struct agg_group *g = gs->act.v[i];

		for (size_t e = 0; e < a->nevents; e++) {
			g->iv.samples[e] = g->iv.samples[e] * decay_pct / 100;
			g->iv.period[e] = g->iv.period[e] * decay_pct / 100;
		}
		if (!zero(&g->iv, a->nevents)) {
			gs->act.v[n++] = g;
			continue;
		}
		g->active = false;
		g->idle_since = a->rolls;
		if (!g->idle) {
			g->idle = true;
			agg_rows_push(a, &gs->idle, g);
		}
	}
	gs->act.n = n;
	/* Idle long enough: gone unless "since start" keeps it. */
	n = 0;
	for (size_t i = 0; i < gs->idle.n; i++) {
		struct agg_group *g = gs->idle.v[i];

		if (g->active) {
			g->idle = false;
			continue;
		}
		if (g->idle_since + AGG_EXPIRE_IDLE > a->rolls) {
			gs->idle.v[n++] = g;
			continue;
		}
		if (!ranked) {
			floor = keep_floor(a);
			ranked = true;
		}
		if (g->total.samples[0] >= floor) {
			g->idle_since = a->rolls; /* judged again later */
			gs->idle.v[n++] = g;
			continue;
		}
		agg_counts_add(&gs->expired_counts, &g->total, a->nevents);
		gs->expired_rows++;
		htab_del(&gs->map, g->hash, (uintptr_t)g);
		agg_glines_unref(a, gs->lines, g);
		agg_rows_push(a, &gs->dead, g);
		gone++;
	}
	gs->idle.n = n;
	if (gone)
		htab_shrink(&gs->map, 256);
}

size_t agg_groups_in_scope(struct agg *a, enum agg_scope scope, const struct agg_group ***rows)
{
	struct agg_groupset *gs = a->grp;
	size_t n = 0;

	*rows = NULL;
	if (gs == NULL)
		return 0;
	agg_settle(a);
	if (gs->map.used > gs->out_cap) {
		const struct agg_group **p = reallocarray(gs->out, gs->map.used, sizeof(*p));

		if (p == NULL)
			return 0;
		gs->out = p;
		gs->out_cap = gs->map.used;
	}
	for (size_t i = 0; i <= gs->map.mask; i++) {
		const struct agg_group *g = agg_row_at(&gs->map, i);

		/* srcline: every address row, so a line's total has all of its addresses' */
		if (g && (HAS(gs, AGG_GK_SRCLINE) || !zero(scope == AGG_INTERVAL ? &g->iv : &g->total, a->nevents)))
			gs->out[n++] = g;
	}
	if (HAS(gs, AGG_GK_SRCLINE)) { /* the addresses' rows summed into their lines' */
		size_t m = agg_glines_merge(a, &gs->lines, gs->mask, gs->out, n);

		n = 0;
		for (size_t i = 0; i < m; i++)
			if (!zero(scope == AGG_INTERVAL ? &gs->out[i]->iv : &gs->out[i]->total, a->nevents))
				gs->out[n++] = gs->out[i];
	}
	*rows = gs->out;
	return n;
}

struct gsort {
	size_t nev;
	enum agg_scope scope;
};

static int cmp_rows(const void *x, const void *y, void *arg)
{
	const struct gsort *s = arg;
	const struct agg_group *a = *(const struct agg_group *const *)x, *b = *(const struct agg_group *const *)y;
	const struct agg_counts *ca = s->scope == AGG_INTERVAL ? &a->iv : &a->total;
	const struct agg_counts *cb = s->scope == AGG_INTERVAL ? &b->iv : &b->total;
	uint64_t p = ca->samples[0], q = cb->samples[0];

	for (size_t e = 1; p == q && e < s->nev; e++) {
		p = ca->samples[e];
		q = cb->samples[e];
	}
	if (p != q)
		return (p < q) - (p > q);
	return (a->hash > b->hash) - (a->hash < b->hash);
}

size_t agg_groups_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_group ***rows)
{
	struct gsort s = { a->nevents, scope };
	size_t n = agg_groups_in_scope(a, scope, rows);

	if (n > 1)
		qsort_r((void *)*rows, n, sizeof(**rows), cmp_rows, &s);
	return n < limit ? n : limit;
}

void agg_group_expired(const struct agg *a, struct agg_counts *out, uint64_t *rows)
{
	*rows = a->grp ? a->grp->expired_rows : 0;
	if (a->grp)
		*out = a->grp->expired_counts;
}

/* One key's value as text: "bash", "1234", "libc.so.6" (the path's file
 * name when short), "main", "3". Raw: the caller sanitises. */
const char *agg_group_value(const struct agg_group *g, enum agg_gkey k, bool short_dso, char *buf, size_t len)
{
	const char *slash;

	switch (k) {
	case AGG_GK_COMM:
		return g->comm;
	case AGG_GK_PID:
		snprintf(buf, len, "%d", (int)g->pid);
		return buf;
	case AGG_GK_DSO:
		if (g->dso == NULL)
			return "";
		slash = strrchr(g->dso, '/');
		return short_dso && slash && slash[1] ? slash + 1 : g->dso;
	case AGG_GK_SYM:
		return g->sym ? g->sym : "";
	case AGG_GK_CPU:
		snprintf(buf, len, "%d", g->cpu);
		return buf;
	case AGG_GK_SRCLINE:
		return g->srcline ? g->srcline : "";
	default:
		return "";
	}
}

size_t agg_group_label(const struct agg *a, const struct agg_group *g, unsigned skip, char *buf, size_t len)
{
	const enum agg_gkey *keys;
	size_t n = agg_group_nkeys(a, &keys), at = 0;
	char num[24];

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (skip & (1u << keys[i]))
			continue;
		if (at)
			strlcat(buf, "  ", len);
		strlcat(buf, agg_group_value(g, keys[i], true, num, sizeof(num)), len);
		at++;
	}
	return strlen(buf);
}
