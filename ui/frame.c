/* frame: what the screen shows, copied from the aggregation API at a tick. */
#include <stdlib.h>
#include <string.h>

#include "ui.h"

enum agg_scope ui_scope(const struct ui *u)
{
	return u->cumulative ? AGG_TOTAL : AGG_INTERVAL;
}

/* The event shares are computed against: the first one switched on. */
size_t ui_primary(const struct ui *u)
{
	for (size_t i = 0; i < u->fr.nev; i++)
		if (u->fr.ev[i].enabled)
			return i;
	return 0;
}

uint64_t ui_base(const struct ui *u, size_t ev)
{
	if (ev >= u->fr.nev)
		return 0;
	return ui_scope(u) == AGG_INTERVAL ? u->fr.ev[ev].samples_iv : u->fr.ev[ev].samples_total;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *np;

	if (n <= *cap)
		return true;
	np = reallocarray(*p, n, size);
	if (np == NULL)
		return false;
	*p = np;
	*cap = n;
	return true;
}

static double rate(uint64_t now, uint64_t *prev, double lap)
{
	uint64_t d = now >= *prev ? now - *prev : 0;

	*prev = now;
	return lap > 0 ? (double)d / lap : 0.0;
}

/* Focus mode: the counters as the engine's last read left them. */
static void counters_take(struct ui *u)
{
	struct ui_frame *f = &u->fr;
	const struct counters *c = u->s->cnt;
	const struct counter_row *rows;
	size_t n;

	f->ncnt = f->ncprocs = f->ncthreads = 0;
	if (c == NULL)
		return;
	f->ncnt = counters_nevents(c) < COUNTERS_MAX ? counters_nevents(c) : COUNTERS_MAX;
	for (size_t i = 0; i < f->ncnt; i++)
		strlcpy(f->cnt_name[i], counters_event(c, i)->name, sizeof(f->cnt_name[i]));
	n = counters_processes(c, &rows);
	if (n && grow((void **)&f->cprocs, &f->cprocs_cap, n, sizeof(*rows))) {
		memcpy(f->cprocs, rows, n * sizeof(*rows));
		f->ncprocs = n;
	}
	n = counters_threads(c, &rows);
	if (n && grow((void **)&f->cthreads, &f->cthreads_cap, n, sizeof(*rows))) {
		memcpy(f->cthreads, rows, n * sizeof(*rows));
		f->ncthreads = n;
	}
}

/* Rates come from the running totals (the interval counts may be decayed
 * history); they are kept up while paused so that resuming shows a true
 * rate. Rows are copied only when not paused. */
void frame_take(struct ui *u, struct agg *a, double lap)
{
	struct ui_frame *f = &u->fr;
	const struct agg_sym **srows;
	const struct agg_task **trows;
	const struct agg_cpu **crows;
	double ev_rate[AGG_MAX_EVENTS];
	size_t nev = agg_nevents(a), n, i;

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
	if (!grow((void **)&f->cpus, &f->cpus_cap, n, sizeof(*f->cpus)) ||
	    !grow((void **)&f->cpu_rate, &f->rate_cap, n, sizeof(*f->cpu_rate)))
		n = 0;
	for (i = 0; i < n; i++) {
		uint64_t t = 0;

		f->cpus[i] = *crows[i];
		for (size_t e = 0; e < nev; e++)
			t += crows[i]->total.samples[e];
		f->cpu_rate[i] = i < u->prev_ncpus ? rate(t, &u->prev_cpu_total[i], lap) : 0.0;
	}
	f->ncpus = n;

	n = agg_symbols(a, ui_scope(u), &srows);
	if (!grow((void **)&f->syms, &f->syms_cap, n, sizeof(*f->syms)))
		n = 0;
	for (i = 0; i < n; i++)
		f->syms[i] = *srows[i];
	f->nsyms = n;

	n = agg_tasks(a, ui_scope(u), &trows);
	if (!grow((void **)&f->tasks, &f->tasks_cap, n, sizeof(*f->tasks)))
		n = 0;
	for (i = 0; i < n; i++)
		f->tasks[i] = *trows[i];
	f->ntasks = n;
	/* Both sets, so that H shows this same interval at once. */
	n = agg_threads(a, ui_scope(u), &trows);
	if (!grow((void **)&f->threads, &f->threads_cap, n, sizeof(*f->threads)))
		n = 0;
	for (i = 0; i < n; i++)
		f->threads[i] = *trows[i];
	f->nthreads = n;

	for (i = 0; i < nev; i++) {
		f->ev[i] = *agg_event(a, i);
		f->ev_rate[i] = ev_rate[i];
	}
	f->nev = nev;
	f->lap = lap;
	counters_take(u);
	for (i = 0; i < RATIO_COUNT; i++)
		f->ratio_avail[i] = false;
	for (i = 0; i < f->ntasks + f->nthreads; i++) {
		struct ratio r[RATIO_COUNT];

		ui_task_ratios(u, i < f->ntasks ? &f->tasks[i] : &f->threads[i - f->ntasks], r);
		for (size_t k = 0; k < RATIO_COUNT; k++)
			f->ratio_avail[k] = f->ratio_avail[k] || r[k].valid;
	}
}

const struct counter_row *ui_counter_row(const struct ui *u, pid_t pid, pid_t tid)
{
	const struct ui_frame *f = &u->fr;

	if (tid) {
		for (size_t i = 0; i < f->ncthreads; i++)
			if (f->cthreads[i].tid == tid)
				return &f->cthreads[i];
		return NULL;
	}
	for (size_t i = 0; i < f->ncprocs; i++)
		if (f->cprocs[i].pid == pid)
			return &f->cprocs[i];
	return NULL;
}

void ui_counter_ratios(const struct ui *u, const struct counter_row *r, struct ratio out[RATIO_COUNT])
{
	struct ratio_part parts[COUNTERS_MAX];
	size_t n = u->fr.ncnt;
	bool total = ui_scope(u) == AGG_TOTAL;

	for (size_t i = 0; i < n; i++) {
		const struct counter_value *v = &r->v[i];

		parts[i] = (struct ratio_part){
			.name = u->fr.cnt_name[i], .count = total ? v->total : v->value,
			.usable = v->state == COUNTER_OK || v->state == COUNTER_SCALED,
			.estimate = v->state == COUNTER_SCALED,
		};
	}
	ratios_compute(parts, n, out);
}

void ui_task_ratios(const struct ui *u, const struct agg_task *t, struct ratio out[RATIO_COUNT])
{
	const struct counter_row *cr = ui_counter_row(u, t->pid, t->tid);
	struct ratio exact[RATIO_COUNT];

	ratios_from_sample_events(u->fr.ev, u->fr.nev, ui_scope(u) == AGG_TOTAL ? &t->total : &t->iv, out);
	if (cr == NULL)
		return;
	ui_counter_ratios(u, cr, exact);
	for (size_t k = 0; k < RATIO_COUNT; k++)
		if (exact[k].valid)
			out[k] = exact[k];
}

/* Before the agg goes (focus, back): nothing may point into it. */
void frame_clear(struct ui *u)
{
	u->fr.nsyms = u->fr.ntasks = u->fr.nthreads = 0;
	u->fr.ncnt = u->fr.ncprocs = u->fr.ncthreads = 0;
	u->nrows = 0;
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
	free(u->fr.cpu_rate);
	free(u->fr.cprocs);
	free(u->fr.cthreads);
	free(u->prev_cpu_total);
	free(u->rows);
	memset(&u->fr, 0, sizeof(u->fr));
	u->prev_cpu_total = NULL;
	u->rows = NULL;
	u->nrows = u->rows_cap = 0;
}
