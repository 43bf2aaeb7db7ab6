/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frame: what the screen shows, copied from the aggregation API at a tick. */
#include <stdlib.h>
#include <string.h>

#include "ui.h"
#include "util.h"

static double rate(uint64_t now, uint64_t *prev, double lap)
{
	uint64_t d = now >= *prev ? now - *prev : 0;

	*prev = now;
	return lap > 0 ? (double)d / lap : 0.0;
}

static void counter_rows(struct counter_row **dst, size_t *cap, size_t *nout,
			 const struct agg_counter_row *src, size_t n)
{
	*nout = 0;
	if (n == 0 || !util_grow((void **)dst, cap, n, sizeof(**dst)))
		return;
	for (size_t i = 0; i < n; i++)
		(*dst)[i] = src[i].c;
	*nout = n;
}

/* Focus mode: the counters as the session handed them to the agg. */
static void counters_take(struct ui *u, const struct agg *a)
{
	struct ui_frame *f = &u->fr;
	const struct agg_counters *c = agg_counters(a);

	f->ncnt = f->ncprocs = f->ncthreads = 0;
	if (c == NULL)
		return;
	f->ncnt = c->nevents;
	memcpy(f->cnt_name, c->names, sizeof(f->cnt_name));
	counter_rows(&f->cprocs, &f->cprocs_cap, &f->ncprocs, c->procs, c->nprocs);
	counter_rows(&f->cthreads, &f->cthreads_cap, &f->ncthreads, c->threads, c->nthreads);
}

void frame_events(struct ui *u)
{
	for (size_t i = 0; i < u->fr.nev; i++) {
		struct session_event e = { .enabled = true };

		if (u->s)
			session_event(u->s, i, &e);
		u->fr.on[i] = e.enabled;
		u->fr.excl[i] = e.exclude;
	}
}

/* Busy % of each CPU over the interval, from /proc/stat, as htop shows it. */
static void busy_take(struct ui *u)
{
	static struct procstat_cpu now[CPUMAP_MAX];
	struct ui_frame *f = &u->fr;
	int n;

	for (size_t i = 0; i < f->ncpus; i++)
		f->cpu_busy[i] = -1;
	f->sys_ok = false;
	if (u->fixed_time) /* the render test: no /proc */
		return;
	f->sys_ok = procstat_sys(&f->sys) == 0;
	n = procstat_cpus(now, CPUMAP_MAX);
	if (n < 0)
		return;
	for (size_t i = 0; i < f->ncpus; i++)
		for (size_t j = 0; j < (size_t)n && j < u->nprev_stat; j++) {
			const struct procstat_cpu *a = &u->prev_stat[j], *b = &now[j];
			uint64_t dt, db;

			if (b->cpu != f->cpus[i].cpu || a->cpu != b->cpu)
				continue;
			dt = b->total - a->total;
			db = b->busy >= a->busy ? b->busy - a->busy : 0;
			f->cpu_busy[i] = dt ? 100.0 * (double)(db > dt ? dt : db) / (double)dt : 0.0;
			break;
		}
	memcpy(u->prev_stat, now, (size_t)n * sizeof(*now));
	u->nprev_stat = (size_t)n;
}

/* A row's counts point into the row: the copy gets its own, so that it
 * still shows this tick after the roll. p: where they go; returns past them. */
static uint64_t *counts_copy(struct agg_counts *c, uint64_t *p, size_t nev)
{
	memcpy(p, c->samples, nev * sizeof(*p));
	memcpy(p + nev, c->period, nev * sizeof(*p));
	c->samples = p;
	c->period = p + nev;
	return p + 2 * nev;
}

static void frame_counts(struct ui_frame *f, size_t nev)
{
	size_t words = (4 * f->nsyms + 2 * (f->ntasks + f->nthreads + f->ncpus)) * 2 * nev;
	uint64_t *p;

	if (!util_grow((void **)&f->counts, &f->counts_cap, words ? words : 1, sizeof(*f->counts))) {
		f->nsyms = f->ntasks = f->nthreads = f->ncpus = 0;
		return;
	}
	p = f->counts;
	for (size_t i = 0; i < f->nsyms; i++) {
		p = counts_copy(&f->syms[i].iv, p, nev);
		p = counts_copy(&f->syms[i].total, p, nev);
		p = counts_copy(&f->syms[i].ch_iv, p, nev);
		p = counts_copy(&f->syms[i].ch_total, p, nev);
	}
	for (size_t i = 0; i < f->ntasks; i++) {
		p = counts_copy(&f->tasks[i].iv, p, nev);
		p = counts_copy(&f->tasks[i].total, p, nev);
	}
	for (size_t i = 0; i < f->nthreads; i++) {
		p = counts_copy(&f->threads[i].iv, p, nev);
		p = counts_copy(&f->threads[i].total, p, nev);
	}
	for (size_t i = 0; i < f->ncpus; i++) {
		p = counts_copy(&f->cpus[i].iv, p, nev);
		p = counts_copy(&f->cpus[i].total, p, nev);
	}
}

/* Rates come from the running totals (the interval counts may be decayed
 * history); they are kept up while paused so that resuming shows a true
 * rate. Rows are copied only when not paused. */
/* The rows' copies; none if there is no memory for them. */
static size_t copy_tasks(struct agg_task **dst, size_t *cap, const struct agg_task **rows, size_t n)
{
	if (!util_grow((void **)dst, cap, n, sizeof(**dst)))
		return 0;
	for (size_t i = 0; i < n; i++)
		(*dst)[i] = *rows[i];
	return n;
}

/* The parents as the agg has them now, for the task tree. */
static void kin_take(struct ui_frame *f, struct agg *a)
{
	const struct agg_kin **k;
	size_t n = agg_kin_all(a, &k);

	if (!util_grow((void **)&f->kin, &f->kin_cap, n, sizeof(*f->kin)))
		n = 0;
	for (size_t i = 0; i < n; i++)
		f->kin[i] = *k[i];
	f->nkin = n;
}

void frame_take(struct ui *u, struct agg *a, double lap)
{
	struct ui_frame *f = &u->fr;
	const struct agg_sym **srows;
	const struct agg_task **trows;
	const struct agg_cpu **crows;
	double ev_rate[AGG_MAX_EVENTS];
	size_t nev = agg_nevents(a), n, i;

	/* A paused screen keeps drawing its old copies: no row may be freed. */
	agg_hold(a, u->paused);
	if (u->s && u->s->wait)
		agg_hold(u->s->wait, u->paused);
	for (i = 0; i < nev; i++)
		ev_rate[i] = rate(agg_event(a, i)->samples_total, &u->prev_ev_total[i], lap);
	n = agg_cpus(a, &crows);
	if (n != u->prev_ncpus) {
		free(u->prev_cpu_total);
		u->prev_cpu_total = calloc(n ? n : 1, sizeof(*u->prev_cpu_total));
		u->prev_ncpus = u->prev_cpu_total ? n : 0;
	}
	if (u->paused) {
		for (i = 0; i < u->prev_ncpus; i++) {
			uint64_t t = 0;

			for (size_t e = 0; e < nev; e++)
				t += crows[i]->total.samples[e];
			u->prev_cpu_total[i] = t;
		}
		return;
	}
	if (!util_grow((void **)&f->cpus, &f->cpus_cap, n, sizeof(*f->cpus)) ||
	    !util_grow((void **)&f->cpu_rate, &f->rate_cap, n, sizeof(*f->cpu_rate)) ||
	    !util_grow((void **)&f->cpu_busy, &f->busy_cap, n, sizeof(*f->cpu_busy)))
		n = 0;
	for (i = 0; i < n; i++) {
		uint64_t t = 0;

		f->cpus[i] = *crows[i];
		for (size_t e = 0; e < nev; e++)
			t += crows[i]->total.samples[e];
		f->cpu_rate[i] = i < u->prev_ncpus ? rate(t, &u->prev_cpu_total[i], lap) : 0.0;
	}
	f->ncpus = n;
	busy_take(u);
	u->frame_seq++;

	/* Only rows with samples in scope (self, or children with -g): the
	 * views show no others, and a copy of every row ever seen was most of
	 * the live view's CPU on a machine that runs many programs. */
	if (!groups_take(u, a)) { /* --sort: the group rows, as symbol rows */
		n = agg_symbols_in_scope(a, ui_scope(u), &srows);
		if (!util_grow((void **)&f->syms, &f->syms_cap, n, sizeof(*f->syms)))
			n = 0;
		for (i = 0; i < n; i++)
			f->syms[i] = *srows[i];
		f->nsyms = n;
	}

	n = agg_tasks_in_scope(a, ui_scope(u), &trows);
	f->ntasks = copy_tasks(&f->tasks, &f->tasks_cap, trows, n);
	/* Both sets, so that H shows this same interval at once. */
	n = agg_threads_in_scope(a, ui_scope(u), &trows);
	f->nthreads = copy_tasks(&f->threads, &f->threads_cap, trows, n);
	frame_counts(f, nev);
	kin_take(f, a);

	for (i = 0; i < nev; i++) {
		f->ev[i] = *agg_event(a, i);
		f->ev_rate[i] = ev_rate[i];
	}
	f->nev = nev;
	f->lap = lap;
	frame_events(u);
	counters_take(u, a);
	if (u->callgraph)
		calltree_snap_take(u, a);
	annview_take(u, a);
	for (i = 0; i < RATIO_COUNT; i++)
		f->ratio_avail[i] = false;
	for (i = 0; i < f->ntasks + f->nthreads; i++) {
		struct ratio r[RATIO_COUNT];

		ui_task_ratios(u, i < f->ntasks ? &f->tasks[i] : &f->threads[i - f->ntasks], r);
		for (size_t k = 0; k < RATIO_COUNT; k++)
			f->ratio_avail[k] = f->ratio_avail[k] || r[k].valid;
	}
	waits_take(u, lap);
}

/* Before the agg goes (focus, back): nothing may point into it. */
void frame_clear(struct ui *u)
{
	u->fr.nsyms = u->fr.ntasks = u->fr.nthreads = 0;
	u->fr.ncnt = u->fr.ncprocs = u->fr.ncthreads = 0;
	u->fr.nkin = 0;
	u->nrows = 0;
	waits_clear(u);
	calltree_snap_clear(u);
	annview_forget(u);
	if (u->tree.open)
		calltree_build(u, &u->tree);
	if (u->mode == MODE_PATHS)
		calltree_build(u, &u->paths);
	memset(u->prev_ev_total, 0, sizeof(u->prev_ev_total));
	if (u->prev_cpu_total)
		memset(u->prev_cpu_total, 0, u->prev_ncpus * sizeof(*u->prev_cpu_total));
}

void frame_free(struct ui *u)
{
	free(u->fr.syms);
	free(u->fr.tasks);
	free(u->fr.threads);
	free(u->fr.cpus);
	free(u->fr.counts);
	free(u->fr.cpu_rate);
	free(u->fr.cpu_busy);
	free(u->fr.cprocs);
	free(u->fr.cthreads);
	free(u->fr.kin);
	tasktree_free(u);
	groups_free(u);
	compare_free(u);
	free(u->prev_cpu_total);
	free(u->rows);
	free(u->items);
	calltree_snap_free(u);
	waits_free(u);
	memset(&u->fr, 0, sizeof(u->fr));
	u->prev_cpu_total = NULL;
	u->rows = NULL;
	u->items = NULL;
	u->nrows = u->rows_cap = u->items_cap = 0;
}
