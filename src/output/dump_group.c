/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_group: --sort's rows in the dump: the JSON rows carry each key
 * ("comm", "pid", "dso", "symbol", "cpu", "srcline"); the text dump's main
 * table is theirs, folded under the first key with --hierarchy. */
#include "dump_rows.h"
#include "baseline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const titles[AGG_GK_COUNT] = {
	[AGG_GK_COMM] = "Command", [AGG_GK_PID] = "Pid", [AGG_GK_DSO] = "Shared Object",
	[AGG_GK_SYM] = "Symbol", [AGG_GK_CPU] = "CPU", [AGG_GK_SRCLINE] = "Source:Line",
};

static const char *const json_names[AGG_GK_COUNT] = {
	[AGG_GK_COMM] = "comm", [AGG_GK_PID] = "pid", [AGG_GK_DSO] = "dso",
	[AGG_GK_SYM] = "symbol", [AGG_GK_CPU] = "cpu", [AGG_GK_SRCLINE] = "srcline",
};

/* Text widths: the last key takes the rest of the line. */
static const size_t widths[AGG_GK_COUNT] = {
	[AGG_GK_COMM] = 16, [AGG_GK_PID] = 7, [AGG_GK_DSO] = 28, [AGG_GK_SYM] = 40, [AGG_GK_CPU] = 4,
	[AGG_GK_SRCLINE] = 32,
};

const char *dump_group_title(enum agg_gkey k)
{
	return (unsigned)k < AGG_GK_COUNT ? titles[k] : "?";
}

static void json_levels(struct dctx *c, size_t limit);

void dump_group_collect(struct dctx *c)
{
	const enum agg_gkey *keys;
	bool levels = c->fmt == DUMP_JSON && c->m->hierarchy && agg_group_nkeys(c->a, &keys) > 1;
	const struct agg_group **g;
	/* --hierarchy's JSON: a parent sums all its rows */
	size_t n = agg_groups_top(c->a, AGG_INTERVAL, levels ? SIZE_MAX : c->limit, &g);

	for (size_t i = 0; i < n; i++) {
		struct drow *r;

		if (c->nrows == c->cap) {
			size_t ncap = c->cap ? 2 * c->cap : 64;
			struct drow *p = reallocarray(c->rows, ncap, sizeof(*p));

			if (p == NULL)
				return;
			c->rows = p;
			c->cap = ncap;
		}
		r = &c->rows[c->nrows++];
		*r = (struct drow){ .kernel = -1, .pid = g[i]->pid, .tid = -1, .running_pct = -1, .grp = g[i],
				    .dso = g[i]->dso,
				    .name = g[i]->sym ? g[i]->sym : g[i]->srcline ? g[i]->srcline : g[i]->comm,
				    .samples = g[i]->iv.samples[0], .share = agg_share(c->a, &g[i]->iv, AGG_INTERVAL),
				    .counts = &g[i]->iv, .cpu = g[i]->cpu };
		if (g[i]->dso)
			r->kernel = g[i]->kernel;
	}
	if (levels)
		json_levels(c, c->limit);
}

void dump_group_json(struct json *j, const struct drow *r, const struct agg *a)
{
	const enum agg_gkey *keys;
	size_t n = agg_group_nkeys(a, &keys);
	char num[24];

	if (r->grp == NULL)
		return;
	if (r->level) /* --hierarchy: a parent (0) has its first key only */
		json_i64(j, "level", r->level - 1);
	for (size_t i = 0; i < (r->level == 1 ? 1 : n); i++) {
		const char *v = agg_group_value(r->grp, keys[i], false, num, sizeof(num));

		if (keys[i] == AGG_GK_PID)
			json_i64(j, "pid", r->grp->pid);
		else if (keys[i] == AGG_GK_CPU)
			json_i64(j, "cpu", r->grp->cpu);
		else
			json_str(j, json_names[keys[i]], v);
	}
	if (r->grp->dso && (r->level != 1 || keys[0] == AGG_GK_DSO || keys[0] == AGG_GK_SYM))
		json_bool(j, "kernel", r->grp->kernel);
}

static void text_keys(struct dctx *c, const struct agg_group *g, size_t from, size_t indent)
{
	const enum agg_gkey *keys;
	size_t n = agg_group_nkeys(c->a, &keys);
	char num[24];

	for (size_t i = 0; i < indent; i++)
		fputc(' ', c->f);
	for (size_t i = from; i < n; i++) {
		bool last = i + 1 == n;

		dump_text_cell(c->f, agg_group_value(g, keys[i], true, num, sizeof(num)), last ? 0 : widths[keys[i]],
			       last);
		if (!last)
			fputc(' ', c->f);
	}
	fputc('\n', c->f);
}

/* --baseline: the Delta column after Samples, signed points as the live
 * view's (-0.00 and +0.00 read as no change); nothing without one. */
void dump_text_delta(const struct dctx *c, const struct drow *r)
{
	double d;

	if (c->m->baseline == NULL)
		return;
	d = r == NULL ? 0.0 : r->share - dump_group_baseline(c, r);
	if (r == NULL)
		fputs("         ", c->f); /* a --hierarchy parent: no baseline of its own */
	else if (d > -0.005 && d < 0.005)
		fprintf(c->f, "  %7.2f", 0.0);
	else
		fprintf(c->f, "  %+7.2f", d);
}

void dump_text_delta_head(const struct dctx *c)
{
	if (c->m->baseline)
		fputs("    Delta", c->f);
}

void dump_group_text(struct dctx *c, const struct drow *r)
{
	fprintf(c->f, "  %7.2f%%  %8" PRIu64, r->share, r->samples);
	dump_text_delta(c, r);
	fputs("  ", c->f);
	text_keys(c, r->grp, 0, 0);
}

static void text_head(struct dctx *c)
{
	const enum agg_gkey *keys;
	size_t n = agg_group_nkeys(c->a, &keys);

	fputs("\n  Overhead   Samples", c->f);
	dump_text_delta_head(c);
	fputs("  ", c->f);
	for (size_t i = 0; i < n; i++)
		fprintf(c->f, "%-*s%s", i + 1 < n ? (int)widths[keys[i]] : 0, titles[keys[i]], i + 1 < n ? " " : "");
	fputc('\n', c->f);
}

/* --hierarchy: a line per value of the first key (its rows' sums, most
 * first), its rows under it (most first), indented. */
struct parent {
	const struct agg_group *first; /* a row of it: the first key's value */
	uint64_t samples;
};

static int cmp_parent(const void *x, const void *y)
{
	const struct parent *a = x, *b = y;

	return (a->samples < b->samples) - (a->samples > b->samples);
}

static bool same_first(const struct agg *a, const struct agg_group *x, const struct agg_group *y)
{
	const enum agg_gkey *keys;
	char p[24], q[24];

	agg_group_nkeys(a, &keys);
	return strcmp(agg_group_value(x, keys[0], false, p, sizeof(p)), agg_group_value(y, keys[0], false, q, sizeof(q))) ==
	       0;
}

/* The first key's values of rows (most first) into p, each with its rows'
 * samples summed, most first; how many. */
static size_t parents(struct dctx *c, size_t n, struct parent *p)
{
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < np && !same_first(c->a, p[k].first, c->rows[i].grp); k++)
			;
		if (k == np)
			p[np++].first = c->rows[i].grp;
		p[k].samples += c->rows[i].samples;
	}
	if (np > 1)
		qsort(p, np, sizeof(*p), cmp_parent);
	return np;
}

static void hierarchy(struct dctx *c, size_t n)
{
	struct parent *p = calloc(n ? n : 1, sizeof(*p));
	size_t np;
	uint64_t base = agg_base(c->a, AGG_INTERVAL);

	if (p == NULL)
		return;
	np = parents(c, n, p);
	for (size_t k = 0; k < np && k < c->limit; k++) {
		size_t shown = 0;

		const enum agg_gkey *keys;
		char num[24];

		agg_group_nkeys(c->a, &keys);
		fprintf(c->f, "  %7.2f%%  %8" PRIu64, base ? 100.0 * (double)p[k].samples / (double)base : 0.0,
			p[k].samples);
		dump_text_delta(c, NULL);
		fputs("  ", c->f);
		dump_text_cell(c->f, agg_group_value(p[k].first, keys[0], true, num, sizeof(num)), 0, true);
		fputc('\n', c->f);
		for (size_t i = 0; i < n; i++) /* rows come most first */
			if (shown < c->limit && same_first(c->a, p[k].first, c->rows[i].grp)) {
				shown++;
				fprintf(c->f, "  %7.2f%%  %8" PRIu64, c->rows[i].share, c->rows[i].samples);
				dump_text_delta(c, &c->rows[i]);
				fputs("  ", c->f);
				text_keys(c, c->rows[i].grp, 1, 4);
			}
	}
	free(p);
}

/* --hierarchy's JSON: each parent (level 0, its rows' sums) then its rows
 * (level 1), as the text lays them out, so that a script can rebuild the
 * tree. c->rows holds every row, most first. */
static void json_levels(struct dctx *c, size_t limit)
{
	size_t n = c->nrows, np, at = 0;
	struct parent *p = calloc(n ? n : 1, sizeof(*p));
	struct drow *out = calloc(2 * n + 1, sizeof(*out));
	uint64_t base = agg_base(c->a, AGG_INTERVAL);
	const enum agg_gkey *keys;

	agg_group_nkeys(c->a, &keys);
	if (p == NULL || out == NULL) {
		free(p);
		free(out);
		return; /* out of memory: the flat rows */
	}
	np = parents(c, n, p);
	for (size_t k = 0; k < np && k < limit; k++) {
		size_t shown = 0;

		out[at] = (struct drow){ .kernel = -1, .pid = -1, .tid = -1, .running_pct = -1, .cpu = -1,
					 .grp = p[k].first, .level = 1, .samples = p[k].samples,
					 .share = base ? 100.0 * (double)p[k].samples / (double)base : 0.0 };
		out[at].name = agg_group_value(p[k].first, keys[0], false, out[at].num, sizeof(out[at].num));
		at++;
		for (size_t i = 0; i < n && shown < limit; i++)
			if (same_first(c->a, p[k].first, c->rows[i].grp)) {
				out[at] = c->rows[i];
				out[at++].level = 2;
				shown++;
			}
	}
	free(p);
	free(c->rows);
	c->rows = out;
	c->nrows = at;
	c->cap = 2 * n + 1;
}

void dump_group_table(struct dctx *c)
{
	const enum agg_gkey *keys;
	size_t limit = c->limit;

	c->nrows = 0;
	if (c->m->hierarchy && agg_group_nkeys(c->a, &keys) > 1) {
		c->limit = SIZE_MAX; /* a parent's line sums all its rows */
		dump_group_collect(c);
		c->limit = limit;
		text_head(c);
		hierarchy(c, c->nrows);
		return;
	}
	dump_group_collect(c);
	text_head(c);
	for (size_t i = 0; i < c->nrows; i++)
		dump_group_text(c, &c->rows[i]);
}

double dump_group_baseline(const struct dctx *c, const struct drow *r)
{
	const enum agg_gkey *keys;
	size_t n = agg_group_nkeys(c->a, &keys);
	bool dso = false;
	char label[1024];

	if (r->grp == NULL)
		return baseline_share(c->m->baseline, r->name, r->dso);
	for (size_t i = 0; i < n; i++)
		dso = dso || keys[i] == AGG_GK_DSO;
	agg_group_label(c->a, r->grp, 1u << AGG_GK_DSO, label, sizeof(label));
	return baseline_share(c->m->baseline, label, dso ? r->grp->dso : "");
}
