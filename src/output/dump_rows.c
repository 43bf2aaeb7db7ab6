/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump_rows: agg rows into the dump's rows, and the tables that describe them. */
#include "dump_rows.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evspec.h"
#include "sanitize.h"

static struct drow *row_new(struct dctx *c)
{
	if (c->nrows == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 64;
		struct drow *p = reallocarray(c->rows, ncap, sizeof(*p));

		if (p == NULL)
			return NULL;
		c->rows = p;
		c->cap = ncap;
	}
	memset(&c->rows[c->nrows], 0, sizeof(c->rows[0]));
	c->rows[c->nrows].kernel = -1;
	c->rows[c->nrows].pid = c->rows[c->nrows].tid = -1;
	c->rows[c->nrows].running_pct = -1;
	return &c->rows[c->nrows++];
}

static bool has_samples(const struct dctx *c, const struct agg_counts *k)
{
	for (size_t e = 0; e < c->nev; e++)
		if (k->samples[e])
			return true;
	return false;
}

/* --- collectors: agg rows into drows -------------------------------------- */

static void collect_events(struct dctx *c)
{
	for (size_t i = 0; i < c->nev; i++) {
		const struct agg_event *e = agg_event(c->a, i);
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		*r = (struct drow){ .name = c->evs[i].name, .ev = c->evs[i], .kernel = -1, .pid = -1, .tid = -1,
				    .samples = e->samples_iv, .period = e->period_iv, .lost = e->lost_iv,
				    .throttled = e->throttled_iv, .samples_total = e->samples_total,
				    .lost_total = e->lost_total, .throttled_total = e->throttled_total,
				    .running_pct = e->running_pct };
	}
}

static void collect_symbols(struct dctx *c)
{
	const struct agg_sym **syms;
	bool children = c->cg && c->m->children;
	size_t n = children ? agg_symbols_children_top(c->a, AGG_INTERVAL, c->limit, &syms)
		   : agg_symbols_top(c->a, AGG_INTERVAL, c->limit, &syms);

	for (size_t i = 0; i < n && has_samples(c, children ? &syms[i]->ch_iv : &syms[i]->iv); i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		r->name = syms[i]->sym;
		r->dso = syms[i]->dso;
		r->kernel = syms[i]->kernel;
		r->samples = syms[i]->iv.samples[0];
		r->share = agg_share(c->a, &syms[i]->iv, AGG_INTERVAL);
		r->counts = &syms[i]->iv;
		r->sym = syms[i];
	}
}

static void task_drow(struct dctx *c, struct drow *r, const struct agg_task *t)
{
	r->pid = t->pid;
	r->tid = t->tid ? t->tid : -1;
	r->name = t->comm;
	r->task = t;
	r->samples = t->iv.samples[0];
	r->share = agg_share(c->a, &t->iv, AGG_INTERVAL);
	r->counts = &t->iv;
	r->cr = agg_counter_row(c->ac, t->pid, t->tid);
	if (c->ac)
		ratios_task(agg_event(c->a, 0), c->enabled, c->nev, &t->iv, c->ac->names, c->ac->nevents,
			    r->cr ? &r->cr->c : NULL, false, r->ratios);
	else
		ratios_task(agg_event(c->a, 0), c->enabled, c->nev, &t->iv, NULL, 0, NULL, false, r->ratios);
}

static bool listed(const struct dctx *c, size_t from, long pid, long tid)
{
	for (size_t i = from; i < c->nrows; i++)
		if (tid >= 0 ? c->rows[i].tid == tid : c->rows[i].pid == pid)
			return true;
	return false;
}

/* Counted tasks that took no sample still have their counters (JSON). */
static void counter_only_rows(struct dctx *c, size_t from, bool threads)
{
	const struct agg_counter_row *cr = threads ? c->ac->threads : c->ac->procs;
	size_t n = threads ? c->ac->nthreads : c->ac->nprocs;

	for (size_t k = 0; k < n; k++) {
		struct drow *r;

		if (listed(c, from, cr[k].c.pid, threads ? cr[k].c.tid : -1) || (r = row_new(c)) == NULL)
			continue;
		r->pid = cr[k].c.pid;
		r->tid = threads ? cr[k].c.tid : -1;
		r->name = cr[k].comm;
		r->cr = &cr[k];
		ratios_task(agg_event(c->a, 0), c->enabled, c->nev, NULL, c->ac->names, c->ac->nevents,
			    &cr[k].c, false, r->ratios);
	}
}

/* --off-cpu: the tasks that waited most, though they took no sample (JSON). */
static void offcpu_only_rows(struct dctx *c, size_t from, bool threads)
{
	const struct agg_task **t;
	size_t n = threads ? agg_threads_top(c->s->wait, AGG_INTERVAL, c->limit, &t)
		   : agg_tasks_top(c->s->wait, AGG_INTERVAL, c->limit, &t);

	for (size_t k = 0; k < n && t[k]->iv.period[0]; k++) {
		struct drow *r;

		if (listed(c, from, t[k]->pid, threads ? t[k]->tid : -1) || (r = row_new(c)) == NULL)
			continue;
		r->pid = t[k]->pid;
		r->tid = threads ? t[k]->tid : -1;
		r->name = t[k]->comm;
	}
}

static void collect_task_rows(struct dctx *c, bool threads)
{
	const struct agg_task **t;
	size_t n = threads ? agg_threads_top(c->a, AGG_INTERVAL, c->limit, &t)
		   : agg_tasks_top(c->a, AGG_INTERVAL, c->limit, &t);
	size_t from = c->nrows;

	for (size_t i = 0; i < n && has_samples(c, &t[i]->iv); i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		task_drow(c, r, t[i]);
	}
	if (c->fmt == DUMP_JSON && c->ac)
		counter_only_rows(c, from, threads);
	if (c->fmt == DUMP_JSON && c->s->wait)
		offcpu_only_rows(c, from, threads);
}

static void collect_tasks(struct dctx *c) { collect_task_rows(c, false); }
static void collect_threads(struct dctx *c) { collect_task_rows(c, true); }

/* --off-cpu: where threads waited, by blocked time through the symbol. */
static void collect_waits(struct dctx *c)
{
	const struct agg_sym **syms;
	size_t n;

	if (c->s->wait == NULL)
		return;
	n = agg_symbols_children_top(c->s->wait, AGG_INTERVAL, c->limit, &syms);
	for (size_t i = 0; i < n && syms[i]->ch_iv.period[0]; i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		r->name = syms[i]->sym;
		r->dso = syms[i]->dso;
		r->kernel = syms[i]->kernel;
		r->sym = syms[i];
	}
}

static void collect_cpus(struct dctx *c)
{
	const struct agg_cpu **cpus;
	size_t n = agg_cpus(c->a, &cpus);

	for (size_t i = 0; i < n; i++) {
		struct drow *r = row_new(c);

		if (r == NULL)
			return;
		r->cpu = cpus[i]->cpu;
		snprintf(r->num, sizeof(r->num), "%d", cpus[i]->cpu);
		r->name = r->num;
		r->samples = cpus[i]->iv.samples[0];
		r->share = agg_share(c->a, &cpus[i]->iv, AGG_INTERVAL);
		r->lost = cpus[i]->lost_iv;
		r->throttled = cpus[i]->throttled_iv;
		r->counts = &cpus[i]->iv;
	}
}

/* --- text lines ------------------------------------------------------------- */

/* "  IPC ~1.23  Miss% 4.5%": the valid ratios, "~" on estimates. */
void dump_text_ratios(FILE *f, const struct ratio r[RATIO_COUNT])
{
	char buf[32];

	for (size_t k = 0; k < RATIO_COUNT; k++) {
		if (!r[k].valid)
			continue;
		ratios_format(&r[k], (enum ratio_kind)k, buf, sizeof(buf));
		fprintf(f, "  %s %s", ratios_title((enum ratio_kind)k), buf);
	}
}

static void text_event(struct dctx *c, const struct drow *r)
{
	char excl[128];

	evspec_exclude_format(r->ev.exclude, excl, sizeof(excl));
	fprintf(c->f, "Event %-24s %s  samples %8" PRIu64 " (%6.0f/s)  lost %" PRIu64
		"  throttled %" PRIu64 "  exclude %s", r->name, r->ev.enabled ? "on " : "off",
		r->samples, c->m->interval > 0 ? (double)r->samples / c->m->interval : 0.0,
		r->lost, r->throttled, excl[0] ? excl : "-");
	if (r->running_pct >= 0 && r->running_pct < 100)
		fprintf(c->f, "  running %d%%", r->running_pct);
	fputc('\n', c->f);
}

/* As perf shows a DSO: its file's name (libc.so.6); CSV and JSON keep the path. */
static const char *dso_name(const char *dso)
{
	const char *slash = strrchr(dso, '/');

	return slash && slash[1] ? slash + 1 : dso;
}

static void text_symbol(struct dctx *c, const struct drow *r)
{
	if (c->cg)
		fprintf(c->f, "  %7.2f%%", agg_share(c->a, &r->sym->ch_iv, AGG_INTERVAL));
	fprintf(c->f, "  %7.2f%%  %8" PRIu64, r->share, r->samples);
	dump_text_delta(c, r);
	fputs("  ", c->f);
	dump_text_cell(c->f, dso_name(r->dso ? r->dso : ""), 28, false);
	fprintf(c->f, " %s ", r->kernel ? "[k]" : "[.]");
	dump_text_cell(c->f, r->name, 0, true);
	fputc('\n', c->f);
}

static void text_task(struct dctx *c, const struct drow *r)
{
	if (r->tid >= 0)
		fprintf(c->f, "  %7ld  %7ld  ", r->pid, r->tid);
	else
		fprintf(c->f, "  %7ld  ", r->pid);
	dump_text_cell(c->f, r->name, 18, false);
	if (r->tid >= 0)
		fprintf(c->f, " %6.2f%%  %8" PRIu64 "%s", r->share, r->samples,
			r->task && r->task->exited ? "  exited" : "");
	else
		fprintf(c->f, " %6.2f%%  %8" PRIu64 "  %7u%s", r->share, r->samples,
			r->task ? r->task->threads : 0, r->task && r->task->exited ? "  exited" : "");
	dump_text_ratios(c->f, r->ratios);
	fputc('\n', c->f);
}

static void text_wait(struct dctx *c, const struct drow *r)
{
	fprintf(c->f, "  %10.1f  %10.1f  ", (double)r->sym->ch_iv.period[0] / 1e6, (double)r->sym->iv.period[0] / 1e6);
	dump_text_cell(c->f, dso_name(r->dso ? r->dso : ""), 28, false);
	fprintf(c->f, " %s ", r->kernel ? "[k]" : "[.]");
	dump_text_cell(c->f, r->name, 0, true);
	fputc('\n', c->f);
}

/* --- the tables --------------------------------------------------------------- */

const struct dtable dump_tables[] = {
	{ "events", "event", NULL, NULL, text_event, collect_events, false,
	  { F_NAME, F_ENABLED, F_SAMPLES, F_PERIOD, F_LOST, F_THROTTLED, F_SAMPLES_TOTAL,
	    F_LOST_TOTAL, F_THROTTLED_TOTAL, F_RUNNING, F_EXCLUDE, F_END } },
	{ "symbols", "symbol", "\n  Overhead   Samples  Shared Object                    Symbol\n",
	  "\n  Children      Self   Samples  Shared Object                    Symbol\n",
	  text_symbol, collect_symbols, false,
	  { F_SYMBOL, F_DSO, F_KERNEL, F_SAMPLES, F_SHARE, F_BASELINE, F_SELF, F_CHILDREN, F_COUNTS, F_CALLERS,
	    F_CALLEES, F_END } },
	{ "tasks", "task", "\n      PID  COMM                 Share   Samples  Threads\n", NULL,
	  text_task, collect_tasks, false,
	  { F_PID, F_COMM, F_SAMPLES, F_SHARE, F_THREADS, F_EXITED, F_COUNTS, F_COUNTERS, F_RATIOS, F_OFFCPU,
	    F_PPID, F_END } },
	{ "tasks", "thread", "\n      PID      TID  COMM                 Share   Samples\n", NULL,
	  text_task, collect_threads, true,
	  { F_PID, F_TID, F_COMM, F_SAMPLES, F_SHARE, F_EXITED, F_COUNTS, F_COUNTERS, F_RATIOS, F_OFFCPU, F_END } },
	{ "cpus", "cpu", NULL, NULL, NULL, collect_cpus, false,
	  { F_CPU, F_SAMPLES, F_SHARE, F_LOST, F_THROTTLED, F_END } },
	{ "waits", NULL, "\n  Off-CPU ms     Self ms  Shared Object                    Wait symbol\n", NULL,
	  text_wait, collect_waits, false, { F_SYMBOL, F_DSO, F_KERNEL, F_WAIT, F_END } },
	/* --sort's rows (dump_group.c): only with keys; the text's main table then. */
	{ "groups", "group", NULL, NULL, dump_group_text, dump_group_collect, false,
	  { F_GROUP, F_SAMPLES, F_SHARE, F_BASELINE, F_COUNTS, F_END } },
};
const size_t dump_ntables = sizeof(dump_tables) / sizeof(dump_tables[0]);

bool dump_offcpu_table(const struct dtable *t)
{
	return t->collect == collect_waits;
}

size_t dump_collect(struct dctx *c, const struct dtable *t)
{
	c->nrows = 0;
	if ((t->threads_only && !c->m->threads) || (dump_offcpu_table(t) && c->s->wait == NULL) ||
	    (DUMP_GROUPED(t) && !c->grouped))
		return 0;
	t->collect(c);
	return c->nrows;
}
