/* SPDX-License-Identifier: GPL-2.0-or-later */
/* groups: perf top's --sort in the live view. With keys (--sort, or g
 * here) the Symbols view's rows are the agg's group rows (agg_group),
 * copied at the tick as symbol rows the view's columns already draw: the
 * DSO key in "Shared Object", the others in the last column, titled by the
 * keys. --hierarchy folds them under the first key's values, opened and
 * closed like the call trees (Right, Left, Enter). */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "keys.h"
#include "util.h"

#define GROUPS_OPEN 256

struct groups {
	char *pool;                /* the rows' strings, copied at the tick */
	size_t plen, pcap;
	uint64_t zero[2 * AGG_MAX_EVENTS]; /* children counts: none */
	bool hier;                 /* --hierarchy */
	uint64_t open[GROUPS_OPEN];  /* the first key's values opened (hashes) */
	size_t nopen;
	struct agg_sym *par;       /* --hierarchy's parent lines */
	size_t npar, par_cap;
	uint64_t *sums;
	size_t sums_cap;
	const void **lines;
	size_t lines_cap;
	unsigned mask;             /* the keys, 1 << key */
	enum agg_gkey first;
};

static struct groups *gs_get(struct ui *u)
{
	if (u->groups == NULL && (u->groups = calloc(1, sizeof(*u->groups))) != NULL)
		u->groups->hier = u->o && u->o->hierarchy;
	return u->groups;
}

bool groups_on(const struct ui *u)
{
	return u->groups && u->groups->mask && u->view == VIEW_SYMBOLS;
}

static size_t pool_add(struct groups *g, const char *s)
{
	size_t l = strlen(s) + 1, at = g->plen;

	if (!util_grow((void **)&g->pool, &g->pcap, g->plen + l, 1))
		return SIZE_MAX;
	memcpy(g->pool + at, s, l);
	g->plen += l;
	return at;
}

/* The frame's symbol rows from the agg's group rows; false without keys. */
bool groups_take(struct ui *u, struct agg *a)
{
	struct ui_frame *f = &u->fr;
	struct groups *g = gs_get(u);
	const enum agg_gkey *keys;
	const struct agg_group **rows;
	size_t nk = agg_group_nkeys(a, &keys), n, k = 0;
	unsigned dso_bit = 1u << AGG_GK_DSO;

	if (g == NULL || nk == 0) {
		if (g)
			g->mask = 0;
		return false;
	}
	g->mask = 0;
	for (size_t i = 0; i < nk; i++)
		g->mask |= 1u << keys[i];
	g->first = keys[0];
	g->plen = 0;
	n = agg_groups_in_scope(a, ui_scope(u), &rows);
	if (!util_grow((void **)&f->syms, &f->syms_cap, n, sizeof(*f->syms)))
		n = 0;
	for (size_t i = 0; i < n; i++) {
		struct agg_sym *s = &f->syms[k];
		char label[1024];
		size_t at, dat = SIZE_MAX;

		agg_group_label(a, rows[i], (g->mask & dso_bit) ? dso_bit : 0, label, sizeof(label));
		if ((at = pool_add(g, label)) == SIZE_MAX ||
		    (rows[i]->dso && (g->mask & dso_bit) && (dat = pool_add(g, rows[i]->dso)) == SIZE_MAX))
			break;
		memset(s, 0, sizeof(*s));
		s->key = rows[i]->hash;
		/* offsets until the pool stops moving */
		s->sym = (char *)(uintptr_t)at;
		s->dso = dat == SIZE_MAX ? NULL : (char *)(uintptr_t)dat;
		s->kernel = rows[i]->kernel;
		s->iv = rows[i]->iv;
		s->total = rows[i]->total;
		s->ch_iv.samples = s->ch_total.samples = g->zero;
		s->ch_iv.period = s->ch_total.period = g->zero + AGG_MAX_EVENTS;
		k++;
	}
	for (size_t i = 0; i < k; i++) {
		f->syms[i].sym = g->pool + (uintptr_t)f->syms[i].sym;
		if (f->syms[i].dso)
			f->syms[i].dso = g->pool + (uintptr_t)f->syms[i].dso;
	}
	f->nsyms = k;
	return true;
}

/* The Symbol column's title: the keys other than the DSO. */
bool groups_title(const struct ui *u, const char *title, char *buf, size_t len)
{
	const enum agg_gkey *keys;
	size_t n;

	if (!groups_on(u) || title == NULL || strcmp(title, "Symbol") != 0)
		return false;
	n = agg_group_nkeys(u->s->agg, &keys);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (keys[i] == AGG_GK_DSO)
			continue;
		if (buf[0])
			strlcat(buf, "  ", len);
		strlcat(buf, dump_group_title(keys[i]), len);
	}
	return true;
}

static bool is_parent(const struct ui *u, const void *row);

/* Whether a row's [k]/[.] means anything: a group row's only with dso or
 * sym, a --hierarchy parent's never. */
bool groups_has_mode(const struct ui *u, const void *row)
{
	return !groups_on(u) || ((u->groups->mask & (1u << AGG_GK_DSO | 1u << AGG_GK_SYM)) && !is_parent(u, row));
}

/* g: the keys, typed (perf's names); Enter alone: none. */
unsigned groups_key(struct ui *u, int key)
{
	const enum agg_gkey *keys;
	size_t n = u->s && u->s->agg ? agg_group_nkeys(u->s->agg, &keys) : 0;
	char now[64] = "";

	for (size_t i = 0; i < n; i++) {
		if (i)
			strlcat(now, ",", sizeof(now));
		strlcat(now, agg_group_key_name(keys[i]), sizeof(now));
	}
	u->prompt = PROMPT_GROUP;
	u->mode = MODE_PROMPT;
	u->input[0] = '\0';
	strlcpy(u->hint, n ? now : "none", sizeof(u->hint));
	return UI_DRAW;
}

unsigned groups_apply(struct ui *u)
{
	enum agg_gkey keys[AGG_GK_COUNT];
	int n = 0;

	u->mode = MODE_MAIN;
	if (u->input[0])
		n = agg_group_parse(u->input, keys, AGG_GK_COUNT);
	if (u->input[0] && n < 0) {
		ui_message(u, true, "sort keys: perf's comm, pid, dso, sym, cpu, srcline, comma separated, each once");
		return UI_DRAW;
	}
	if (u->s == NULL || u->s->agg == NULL || agg_group_keys(u->s->agg, keys, (size_t)n) != 0) {
		ui_message(u, true, "sort keys: no memory for the rows (try fewer keys)");
		return UI_DRAW;
	}
	u->fr.nsyms = 0; /* the old rows are not these keys' */
	if (u->groups)
		u->groups->mask = 0;
	u->view = VIEW_SYMBOLS;
	u->sel_valid[VIEW_SYMBOLS] = false;
	if (n)
		ui_message(u, false, "rows by %s from now on (g, Enter alone: by symbol)", u->input);
	else
		ui_message(u, false, "rows by symbol (g: perf's sort keys)");
	return UI_RESORT;
}

/* --- --hierarchy ----------------------------------------------------------- */

bool groups_hier_on(const struct ui *u)
{
	return groups_on(u) && u->groups->hier && u->mode == MODE_MAIN;
}

static uint64_t first_hash(const struct ui *u, const struct agg_sym *row)
{
	const char *s = row->sym;
	uint64_t h = 14695981039346656037ULL;

	/* The label leads with the first key's value (the DSO's own column). */
	if (u->groups->first == AGG_GK_DSO)
		s = row->dso ? row->dso : "";
	for (; *s && !(s[0] == ' ' && s[1] == ' ' && u->groups->first != AGG_GK_DSO); s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ? h : 1;
}

static bool is_open(const struct groups *g, uint64_t h)
{
	for (size_t i = 0; i < g->nopen; i++)
		if (g->open[i] == h)
			return true;
	return false;
}

static bool is_parent(const struct ui *u, const void *row)
{
	const struct groups *g = u->groups;

	return g && row >= (const void *)g->par && row < (const void *)(g->par + g->npar);
}

static int by_samples(const void *x, const void *y, void *arg)
{
	const struct ui *u = arg;
	const struct agg_sym *a = x, *b = y;
	size_t ev = ui_primary(u);
	bool iv = ui_scope(u) == AGG_INTERVAL;
	uint64_t p = (iv ? a->iv : a->total).samples[ev], q = (iv ? b->iv : b->total).samples[ev];
	int r = (p < q) - (p > q);

	return u->sort_inv[VIEW_SYMBOLS] ? -r : r;
}

/* The sorted rows into lines: a parent per first-key value (its rows'
 * sums, where its best row sorted), its rows under it when open. */
void groups_hier_build(struct ui *u)
{
	struct groups *g = u->groups;
	size_t nev = u->fr.nev, n = u->nrows, k = 0;

	if (!util_grow((void **)&g->par, &g->par_cap, n, sizeof(*g->par)) ||
	    !util_grow((void **)&g->sums, &g->sums_cap, 4 * nev * (n ? n : 1), sizeof(*g->sums)) ||
	    !util_grow((void **)&g->lines, &g->lines_cap, 2 * n, sizeof(*g->lines)))
		return;
	g->npar = 0;
	for (size_t i = 0; i < n; i++) {
		const struct agg_sym *r = u->rows[i];
		uint64_t h = first_hash(u, r), *s;
		size_t p;

		for (p = 0; p < g->npar && g->par[p].key != h; p++)
			;
		if (p == g->npar) {
			struct agg_sym *q = &g->par[g->npar++];

			memset(q, 0, sizeof(*q));
			q->key = h;
			q->sym = (char *)r->sym;
			q->dso = g->first == AGG_GK_DSO ? (char *)r->dso : NULL;
			q->kernel = r->kernel;
			s = g->sums + p * 4 * nev;
			memset(s, 0, 4 * nev * sizeof(*s));
			q->iv.samples = s;
			q->iv.period = s + nev;
			q->total.samples = s + 2 * nev;
			q->total.period = s + 3 * nev;
			q->ch_iv = q->ch_total = (struct agg_counts){ g->zero, g->zero + AGG_MAX_EVENTS };
		}
		for (size_t e = 0; e < nev; e++) {
			g->par[p].iv.samples[e] += r->iv.samples[e];
			g->par[p].iv.period[e] += r->iv.period[e];
			g->par[p].total.samples[e] += r->total.samples[e];
			g->par[p].total.period[e] += r->total.period[e];
		}
	}
	/* Parents most samples first (perf's --hierarchy), I inverting. */
	if (g->npar > 1)
		qsort_r(g->par, g->npar, sizeof(*g->par), by_samples, u);
	for (size_t p = 0; p < g->npar; p++) {
		g->lines[k++] = &g->par[p];
		if (!is_open(g, g->par[p].key))
			continue;
		for (size_t i = 0; i < n; i++)
			if (first_hash(u, u->rows[i]) == g->par[p].key)
				g->lines[k++] = u->rows[i];
	}
	if (!util_grow((void **)&u->rows, &u->rows_cap, k, sizeof(*u->rows)))
		return;
	if (k) /* lines is NULL before the first row */
		memcpy(u->rows, g->lines, k * sizeof(*u->rows));
	u->nrows = k;
}

/* A line's text: a parent's first key alone, marked open (-) or not (+);
 * a row's other keys, indented. */
void groups_hier_text(const struct ui *u, const void *row, char *buf, size_t len)
{
	const struct agg_sym *r = row;
	const char *s = r->sym ? r->sym : "";

	if (!groups_hier_on(u)) {
		strlcpy(buf, s, len);
		return;
	}
	if (is_parent(u, row)) {
		size_t l = strcspn(s, " ");

		/* the first key's value, up to the label's two spaces */
		for (const char *p = s; (p = strstr(p, "  ")) != NULL;) {
			l = (size_t)(p - s);
			break;
		}
		if (u->groups->first == AGG_GK_DSO)
			l = 0;
		snprintf(buf, len, "%c %.*s", is_open(u->groups, r->key) ? '-' : '+', (int)l, s);
		return;
	}
	if (u->groups->first != AGG_GK_DSO) /* the first key is the parent's */
		s = strstr(s, "  ") ? strstr(s, "  ") + 2 : "";
	snprintf(buf, len, "    %s", s);
}

/* Right opens, Left closes (from a row: its parent), Enter flips. */
unsigned groups_hier_key(struct ui *u, int key)
{
	struct groups *g = u->groups;
	const void *row;
	uint64_t h;
	size_t i;

	if (u->nrows == 0)
		return 0;
	row = u->rows[u->sel[VIEW_SYMBOLS]];
	h = is_parent(u, row) ? ((const struct agg_sym *)row)->key : first_hash(u, row);
	for (i = 0; i < g->nopen && g->open[i] != h; i++)
		;
	if (key == KEY_LEFT || (i < g->nopen && key != KEY_RIGHT)) {
		if (i == g->nopen)
			return 0;
		g->open[i] = g->open[--g->nopen];
		u->sel_key[VIEW_SYMBOLS] = h; /* onto the parent */
		u->sel_valid[VIEW_SYMBOLS] = true;
		return UI_RESORT;
	}
	if (i < g->nopen || !is_parent(u, row))
		return 0;
	if (g->nopen == GROUPS_OPEN)
		g->nopen--;
	g->open[g->nopen++] = h;
	return UI_RESORT;
}

void groups_free(struct ui *u)
{
	if (u->groups == NULL)
		return;
	free(u->groups->pool);
	free(u->groups->par);
	free(u->groups->sums);
	free(u->groups->lines);
	free(u->groups);
	u->groups = NULL;
}
