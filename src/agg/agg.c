/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg: the symbol rows, the CPU and event counts, and the path of samples
 * without a stack (with the flat memo) that feeds them; the tasks' rows are
 * agg_tasks.c's, stacks agg_stack.c's, the interval's end agg_roll.c's. */
#include "agg_int.h"

#include <stdlib.h>
#include <string.h>

#include "callgraph.h"




static struct agg_sym *sym_alloc(size_t nev)
{
	struct agg_sym *s = calloc(1, AGG_SYM_BYTES(nev));

	if (s) {
		uint64_t *v = (uint64_t *)(void *)(s + 1);

		agg_rows_counts_at(&s->iv, 1, v, nev);
		agg_rows_counts_at(&s->total, 1, v + 2 * nev, nev);
		agg_rows_counts_at(&s->ch_iv, 1, v + 4 * nev, nev);
		agg_rows_counts_at(&s->ch_total, 1, v + 6 * nev, nev);
	}
	return s;
}

struct agg *agg_new(size_t nevents, const int *cpus, size_t ncpus)
{
	struct agg *a;

	if (nevents == 0 || nevents > AGG_MAX_EVENTS)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->nevents = nevents;
	a->rows_gen = 1;
	a->keep_top = AGG_KEEP_TOP;
	a->annot_keep = AGG_ANNOT_SYMS;
	for (size_t i = 0; i < nevents; i++)
		a->ev[i].running_pct = -1;
	a->max_cpu = -1;
	for (size_t i = 0; i < ncpus; i++)
		if (cpus[i] > a->max_cpu)
			a->max_cpu = cpus[i];
	agg_rows_counts_at(&a->st.sym_expired, 1, &a->st_counts[0][0][0], AGG_MAX_EVENTS);
	agg_rows_counts_at(&a->st.task_expired, 1, &a->st_counts[1][0][0], AGG_MAX_EVENTS);
	agg_rows_counts_at(&a->st.thread_expired, 1, &a->st_counts[2][0][0], AGG_MAX_EVENTS);
	agg_rows_counts_at(&a->st.sym_ch_expired, 1, &a->st_counts[3][0][0], AGG_MAX_EVENTS);
	a->cpus = calloc(ncpus ? ncpus : 1, sizeof(*a->cpus));
	a->cpu_counts = calloc((ncpus ? ncpus : 1) * 4 * nevents, sizeof(uint64_t));
	a->cpu_index = malloc((size_t)(a->max_cpu + 1 > 0 ? a->max_cpu + 1 : 1) * sizeof(int));
	if (a->cpus == NULL || a->cpu_counts == NULL || a->cpu_index == NULL || htab_init(&a->syms, 1024) ||
	    htab_init(&a->tasks, 256) || htab_init(&a->tids, 256)) {
		agg_free(a);
		return NULL;
	}
	for (int c = 0; c <= a->max_cpu; c++)
		a->cpu_index[c] = -1;
	for (size_t i = 0; i < ncpus; i++) {
		a->cpus[i].cpu = cpus[i];
		agg_rows_counts_at(&a->cpus[i].iv, 1, a->cpu_counts + i * 4 * nevents, nevents);
		agg_rows_counts_at(&a->cpus[i].total, 1, a->cpu_counts + i * 4 * nevents + 2 * nevents, nevents);
		a->cpu_index[cpus[i]] = (int)i;
	}
	a->ncpus = ncpus;
	return a;
}


void agg_free(struct agg *a)
{
	if (a == NULL)
		return;
	if (a->syms.tab)
		for (size_t i = 0; i <= a->syms.mask; i++)
			if (agg_row_at(&a->syms, i))
				agg_rows_sym_free(agg_row_at(&a->syms, i));
	if (a->tasks.tab)
		for (size_t i = 0; i <= a->tasks.mask; i++)
			free(agg_row_at(&a->tasks, i));
	if (a->tids.tab)
		for (size_t i = 0; i <= a->tids.mask; i++)
			free(agg_row_at(&a->tids, i));
	htab_free(&a->syms);
	htab_free(&a->tasks);
	htab_free(&a->tids);
	free(a->cpus);
	free(a->cpu_counts);
	free(a->cpu_index);
	free(a->sorted);
	free(a->rank);
	callgraph_free(a->cg);
	for (size_t i = 0; a->memo && i < AGG_MEMO_SLOTS; i++)
		free(a->memo[i].keys);
	free(a->memo);
	free(a->flat);
	free(a->flat_pend);
	agg_rows_free_dead(a);
	free(a->dead_syms.v);
	free(a->dead_tasks.v);
	free(a->idle_syms.v);
	free(a->idle_tasks.v);
	agg_pairs_free(a);
	agg_annot_free(a);
	agg_kin_free(a);
	agg_group_free(a);
	free(a->act_syms.v);
	free(a->act_tasks.v);
	free(a->aging.v);
	free(a->cnt.procs);
	free(a->cnt.threads);
	free(a);
}

struct agg_event *agg_event(struct agg *a, size_t ev)
{
	return ev < a->nevents ? &a->ev[ev] : NULL;
}

size_t agg_nevents(const struct agg *a) { return a->nevents; }

/* Process-wide, so that no two rows of any agg share one. */
static uint64_t row_serial;

struct agg_sym *agg_sym_row(struct agg *a, const struct sym_result *sr)
{
	struct agg_sym *s = a->last_sym;

	if (s && s->key == sr->key)
		return s;
	s = (void *)htab_get(&a->syms, sr->key);
	if (s == NULL) {
		s = sym_alloc(a->nevents);
		if (s == NULL)
			return NULL;
		s->key = sr->key;
		s->serial = ++row_serial;
		s->kernel = sr->kernel;
		if (sr->build_id && sr->build_id_len <= AGG_BUILD_ID_MAX) {
			memcpy(s->build_id, sr->build_id, sr->build_id_len);
			s->build_id_len = (uint8_t)sr->build_id_len;
		}
		s->start = sr->sym_start;
		s->size = sr->sym_size;
		s->sym = strdup(sr->sym ? sr->sym : "[unknown]");
		s->dso = strdup(sr->dso ? sr->dso : "[unknown]");
		if (s->sym == NULL || s->dso == NULL || htab_put(&a->syms, sr->key, (uintptr_t)s)) {
			agg_rows_sym_free(s);
			return NULL;
		}
		if (agg_annot_maybe(a, s->key))
			agg_annot_row(a, s);
	}
	a->last_sym = s;
	return s;
}

static struct agg_cpu *cpu_row(struct agg *a, int cpu)
{
	if (cpu < 0 || cpu > a->max_cpu || a->cpu_index[cpu] < 0)
		return NULL;
	return &a->cpus[a->cpu_index[cpu]];
}

/* n samples' event and CPU counts. */
static inline void sample_counts(struct agg *a, size_t ev, int cpu, uint64_t n, uint64_t period)
{
	struct agg_cpu *c;

	a->ev[ev].samples_iv += n;
	a->ev[ev].samples_total += n;
	a->ev[ev].period_iv += period;
	a->ev[ev].period_total += period;
	if ((c = cpu_row(a, cpu)) != NULL)
		agg_count_n(&c->iv, &c->total, ev, n, period);
}


/* n samples' self, task and CPU counts, their rows looked up already. */
void agg_sample_rows(struct agg *a, size_t ev, int cpu, struct agg_sym *s, struct agg_task *t, uint64_t n,
			uint64_t period, uint64_t off)
{
	sample_counts(a, ev, cpu, n, period);
	agg_annot_count(a, s, ev, off, n);
	if (t && a->keep_pairs && ev == 0 && s)
		agg_pairs_add(a, t, s, n, period);
	agg_rows_count(a, ev, s, t, t ? a->last_thread : NULL, n, period);
	if (a->grp)
		agg_group_count(a, ev, cpu, s, t, off, n, period);
}

static inline struct agg_flat *flat_slot(struct agg *a, const struct agg_where *w)
{
	uint64_t h = (w->ip ^ (uint64_t)(uint32_t)w->tid << 40 ^ (uint64_t)w->kernel << 63) * 0x9e3779b97f4a7c15ull;

	return &a->flat[h >> (64 - AGG_FLAT_BITS)];
}



bool agg_sample_memo(struct agg *a, size_t ev, int cpu, const struct agg_where *w, uint64_t period)
{
	return agg_samples_memo(a, ev, cpu, w, 1, period);
}

bool agg_samples_memo(struct agg *a, size_t ev, int cpu, const struct agg_where *w, uint32_t n, uint64_t period)
{
	struct agg_flat *f;

	if (a->flat == NULL || w->tag == 0 || ev >= a->nevents)
		return false;
	f = flat_slot(a, w);
	if (f->ip != w->ip || f->tag != w->tag || f->gen != a->rows_gen || f->pid != w->pid || f->tid != w->tid ||
	    f->kernel != w->kernel)
		return false;
	/* As task_row would have left them. */
	a->last_sym = f->sym;
	a->last_task = f->task;
	a->last_tid = w->tid;
	a->last_thread = f->thread;
	a->flat_hits++;
	if (a->keep_pairs) { /* the pairs want each sample's rows */
		agg_sample_rows(a, ev, cpu, f->sym, f->task, n, period, f->off);
		return true;
	}
	/* sample_rows, the three rows' counts left for agg_settle. */
	sample_counts(a, ev, cpu, n, period);
	if (a->grp) /* a lookup, not a resolve: its keys may hold the CPU */
		agg_group_count(a, ev, cpu, f->sym, f->task, f->off, n, period);
	if (!f->listed) {
		f->listed = true;
		a->flat_pend[a->flat_npend++] = (uint16_t)(f - a->flat);
	} else if (f->pend_n && (f->pend_ev != ev || f->pend_n > UINT32_MAX - n)) {
		agg_settle_flat(a, f);
	}
	f->pend_ev = (uint8_t)ev;
	f->pend_n += n;
	f->pend_period += period;
	return true;
}

static bool flat_ready(struct agg *a)
{
	size_t n = (size_t)1 << AGG_FLAT_BITS;

	if (a->flat)
		return true;
	a->flat_pend = calloc(n, sizeof(*a->flat_pend));
	a->flat = a->flat_pend ? calloc(n, sizeof(*a->flat)) : NULL;
	if (a->flat == NULL) {
		free(a->flat_pend);
		a->flat_pend = NULL;
	}
	return a->flat != NULL;
}

void agg_sample_at(struct agg *a, size_t ev, int cpu, const struct agg_where *w, const struct sym_result *sr,
		   uint64_t period)
{
	agg_samples_at(a, ev, cpu, w, sr, 1, period);
}

void agg_samples_at(struct agg *a, size_t ev, int cpu, const struct agg_where *w, const struct sym_result *sr,
		    uint32_t n, uint64_t period)
{
	struct agg_sym *s;
	struct agg_task *t;
	struct agg_flat *f;

	if (ev >= a->nevents)
		return;
	s = agg_sym_row(a, sr);
	t = agg_tasks_row(a, w->pid, w->tid, sr);
	if (s)
		s->pid = w->pid;
	agg_sample_rows(a, ev, cpu, s, t, n, period, sr->sym_off);
	/* Only rows found in full: a missing one may come at the next try. */
	if (w->tag == 0 || a->flat_off || s == NULL || t == NULL || a->last_thread == NULL || !flat_ready(a))
		return;
	f = flat_slot(a, w);
	if (f->pend_n)
		agg_settle_flat(a, f); /* to the rows it held: they are still there */
	*f = (struct agg_flat){ .ip = w->ip, .tag = w->tag, .pid = w->pid, .tid = w->tid, .gen = a->rows_gen,
				.kernel = w->kernel, .listed = f->listed, .sym = s, .task = t, .thread = a->last_thread,
				.off = sr->sym_off > UINT32_MAX ? UINT32_MAX : (uint32_t)sr->sym_off };
}

void agg_sample(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
		const struct sym_result *sr, uint64_t period)
{
	struct agg_where w = { .pid = pid, .tid = tid };

	agg_sample_at(a, ev, cpu, &w, sr, period);
}


void agg_lost(struct agg *a, size_t ev, int cpu, uint64_t n)
{
	struct agg_cpu *c = cpu_row(a, cpu);

	if (ev < a->nevents) {
		a->ev[ev].lost_iv += n;
		a->ev[ev].lost_total += n;
	}
	if (c) {
		c->lost_iv += n;
		c->lost_total += n;
		if (ev < a->nevents)
			c->ev_lost_total[ev] += n;
	}
}

void agg_throttle(struct agg *a, size_t ev, int cpu)
{
	struct agg_cpu *c = cpu_row(a, cpu);

	if (ev < a->nevents) {
		a->ev[ev].throttled_iv++;
		a->ev[ev].throttled_total++;
	}
	if (c) {
		c->throttled_iv++;
		c->throttled_total++;
		if (ev < a->nevents)
			c->ev_throttled_total[ev]++;
	}
}
