/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_roll: the end of an interval: counts decayed or zeroed, idle rows
 * and exited tasks expired into the expired sums, their memory freed a
 * roll later. */
#include "agg_int.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "ptrheap.h"

/* The idle queues: a row is on one at most once (queued). */
static void idle_push(struct idleq *q, void *row, uint64_t tick, bool *queued)
{
	if (*queued)
		return;
	if (q->head > 0 && q->n == q->cap) { /* reuse the popped front */
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof(*q->v));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		size_t ncap = q->cap ? 2 * q->cap : 64;
		struct idle *p = reallocarray(q->v, ncap, sizeof(*p));

		if (p == NULL)
			return; /* not queued: it stays, which is only memory */
		q->v = p;
		q->cap = ncap;
	}
	q->v[q->n++] = (struct idle){ row, tick };
	*queued = true;
}


static void decay(struct agg_counts *c, unsigned pct, size_t nev)
{
	for (size_t i = 0; i < nev; i++) {
		c->samples[i] = c->samples[i] * pct / 100;
		c->period[i] = c->period[i] * pct / 100;
	}
}

static bool counts_zero(const struct agg_counts *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		if (c->samples[e] || c->period[e])
			return false;
	return true;
}

/* The lists again from the maps: after a list could not grow. */
static void relist(struct agg *a)
{
	a->walk_all = false;
	a->act_syms.n = a->act_tasks.n = a->aging.n = 0;
	for (size_t i = 0; i <= a->syms.mask; i++) {
		struct agg_sym *s = agg_row_at(&a->syms, i);

		if (s == NULL)
			continue;
		s->active = false;
		if (!counts_zero(&s->iv, a->nevents) || !counts_zero(&s->ch_iv, a->nevents))
			agg_sym_active(a, s);
	}
	for (int m = 0; m < 2; m++) {
		struct htab *map = m ? &a->tids : &a->tasks;

		for (size_t i = 0; i <= map->mask; i++) {
			struct agg_task *t = agg_row_at(map, i);

			if (t == NULL)
				continue;
			t->active = t->aging = false;
			if (!counts_zero(&t->iv, a->nevents))
				agg_task_active(a, t);
			if (t->exited) {
				t->aging = true;
				agg_rows_push(a, &a->aging, t);
			}
		}
	}
}

static void dead_push(struct rowlist *l, void *row)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 64;
		void **p = reallocarray(l->v, ncap, sizeof(*p));

		if (p == NULL) /* cannot defer its free: leak it rather than free it early */
			return;
		l->v = p;
		l->cap = ncap;
	}
	l->v[l->n++] = row;
}

/* Unlinks a row: its cumulative counts go to the expired sums, its memory
 * to the dead list (freed by the next roll not held). */
static void sym_expire(struct agg *a, struct agg_sym *s)
{
	agg_counts_add(&a->st.sym_expired, &s->total, a->nevents);
	agg_counts_add(&a->st.sym_ch_expired, &s->ch_total, a->nevents);
	a->st.expired_syms++;
	htab_del(&a->syms, s->key, (uintptr_t)s);
	dead_push(&a->dead_syms, s);
	agg_annot_unrow(s); /* a wanted key's record waits for its next row */
	s->gone = true; /* flat_forget */
}

static void task_expire(struct agg *a, struct agg_task *t)
{
	if (t->gone)
		return;
	t->gone = true;
	agg_tasks_fold(a, t);
	if (t->is_thread)
		htab_del(&a->tids, (uint64_t)t->tid + 1, (uintptr_t)t);
	else
		htab_del(&a->tasks, (uint64_t)t->pid + 1, (uintptr_t)t);
	dead_push(&a->dead_tasks, t);
}

/* After a roll's expiries: the last lookups, and the flat memo's slots that
 * hold an expired row. Not rows_moved: a roll expires rows most intervals,
 * and emptying the whole memo each time had every IP counted before
 * resolved again. The rows are freed a roll later, so reading their flags
 * here is safe. */
static void flat_forget(struct agg *a)
{
	a->last_sym = NULL;
	a->last_task = a->last_thread = NULL;
	if (a->flat == NULL)
		return;
	for (size_t i = 0; i < (size_t)1 << AGG_FLAT_BITS; i++) {
		struct agg_flat *f = &a->flat[i];

		if (f->tag && ((f->sym && f->sym->gone) || (f->task && f->task->gone) || (f->thread && f->thread->gone)))
			f->tag = 0;
	}
}

/* Drops gone rows from a list. */
static void rowlist_purge(struct rowlist *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!((struct agg_task *)l->v[i])->gone)
			l->v[n++] = l->v[i];
	l->n = n;
}

static void idleq_purge(struct idleq *q)
{
	size_t n = 0;

	for (size_t i = q->head; i < q->n; i++)
		if (!((struct agg_task *)q->v[i].row)->gone)
			q->v[n++] = q->v[i];
	q->head = 0;
	q->n = n;
}

/* --- what "since start" keeps (AGG_KEEP_TOP) ------------------------------ */

enum rank_kind { RANK_SYMS, RANK_TASKS, RANK_THREADS };

static uint64_t *rank_roll_of(enum rank_kind k, void *row)
{
	return k == RANK_SYMS ? &((struct agg_sym *)row)->rank_roll : &((struct agg_task *)row)->rank_roll;
}

static uint64_t rank_count(enum rank_kind k, const void *row, size_t ev)
{
	return k == RANK_SYMS ? ((const struct agg_sym *)row)->total.samples[ev]
			      : ((const struct agg_task *)row)->total.samples[ev];
}

/* The row's key in its map: ties are broken by it, so that two aggs fed
 * alike keep alike (a strict order keeps the kept rows to keep_top). */
static uint64_t rank_key(enum rank_kind k, const void *row)
{
	const struct agg_task *t = row;

	return k == RANK_SYMS ? ((const struct agg_sym *)row)->key : k == RANK_TASKS ? (uint64_t)t->pid : (uint64_t)t->tid;
}

/* Whether x ranks below y: fewer samples, or as many and a higher key. */
static bool rank_below(enum rank_kind k, size_t ev, const void *x, const void *y)
{
	uint64_t cx = rank_count(k, x, ev), cy = rank_count(k, y, ev);

	return cx != cy ? cx < cy : rank_key(k, x) > rank_key(k, y);
}

struct rank_by {
	enum rank_kind k;
	size_t ev;
};

/* A heap whose root ranks lowest: the one a better row replaces. */
static bool rank_first(const void *x, const void *y, void *arg)
{
	const struct rank_by *by = arg;

	return rank_below(by->k, by->ev, x, y);
}

/* Marks the top keep_top rows of m by each event's samples since start.
 * False when the heap cannot be had: then nothing is judged to rank. */
static bool rank_mark(struct agg *a, struct htab *m, enum rank_kind k)
{
	if (a->rank == NULL && (a->rank = calloc(a->keep_top, sizeof(*a->rank))) == NULL)
		return false;
	for (size_t ev = 0; ev < a->nevents; ev++) {
		struct rank_by by = { k, ev };
		size_t n = 0;

		for (size_t i = 0; i <= m->mask; i++) {
			void *row = agg_row_at(m, i);

			if (row == NULL || rank_count(k, row, ev) == 0)
				continue;
			if (n < a->keep_top) {
				a->rank[n++] = row;
				if (n == a->keep_top)
					for (size_t j = n / 2; j-- > 0;)
						ptrheap_down(a->rank, n, j, rank_first, &by);
			} else if (rank_below(k, ev, a->rank[0], row)) {
				a->rank[0] = row;
				ptrheap_down(a->rank, n, 0, rank_first, &by);
			}
		}
		for (size_t i = 0; i < n; i++)
			*rank_roll_of(k, a->rank[i]) = a->rolls;
	}
	return true;
}

/* Whether a row that would expire is kept: it ranks within keep_top of
 * its kind by some event's samples since start. Ranked once a roll. */
static bool ranks(struct agg *a, enum rank_kind k, void *row)
{
	struct htab *m = k == RANK_SYMS ? &a->syms : k == RANK_TASKS ? &a->tasks : &a->tids;

	if (a->keep_top == 0)
		return false;
	if (m->used <= a->keep_top)
		return true;
	if (a->rank_rolls[k] != a->rolls) {
		a->rank_rolls[k] = a->rolls;
		if (!rank_mark(a, m, k))
			return false;
	}
	return *rank_roll_of(k, row) == a->rolls;
}

/* The rows idle since AGG_EXPIRE_IDLE rolls ago or more. A queued row that
 * came back is dropped from the queue (it queues again when idle), or put
 * back with its new idle tick. */
static size_t expire_syms(struct agg *a)
{
	struct idleq *q = &a->idle_syms;
	size_t n = 0;

	while (q->head < q->n && q->v[q->head].tick + AGG_EXPIRE_IDLE <= a->rolls) {
		struct agg_sym *s = q->v[q->head++].row;

		s->queued = false;
		if (s->active || s->in_cg)
			continue;
		if (s->idle_since + AGG_EXPIRE_IDLE <= a->rolls && ranks(a, RANK_SYMS, s)) {
			idle_push(q, s, a->rolls, &s->queued); /* judged again later */
		} else if (s->idle_since + AGG_EXPIRE_IDLE <= a->rolls) {
			sym_expire(a, s);
			n++;
		} else { /* idle again since: queued again, at the back */
			idle_push(q, s, s->idle_since, &s->queued);
		}
	}
	return n;
}

static size_t expire_tasks(struct agg *a)
{
	struct idleq *q = &a->idle_tasks;
	size_t n = 0;

	while (q->head < q->n && q->v[q->head].tick + AGG_EXPIRE_IDLE <= a->rolls) {
		struct agg_task *t = q->v[q->head++].row;

		t->queued = false;
		if (t->active || t->gone)
			continue;
		if (t->idle_since + AGG_EXPIRE_IDLE <= a->rolls && ranks(a, t->is_thread ? RANK_THREADS : RANK_TASKS, t)) {
			idle_push(q, t, a->rolls, &t->queued); /* judged again later */
		} else if (t->idle_since + AGG_EXPIRE_IDLE <= a->rolls) {
			task_expire(a, t);
			n++;
		} else {
			idle_push(q, t, t->idle_since, &t->queued);
		}
	}
	return n;
}

void agg_hold(struct agg *a, bool hold)
{
	a->held = hold;
}

void agg_get_stats(const struct agg *a, struct agg_stats *st)
{
	*st = a->st;
	st->syms = a->syms.used;
	st->tasks = a->tasks.used;
	st->threads = a->tids.used;
	st->active_syms = a->act_syms.n;
	st->active_tasks = a->act_tasks.n;
	st->held = a->dead_syms.n + a->dead_tasks.n;
}

void agg_roll(struct agg *a, unsigned decay_pct)
{
	size_t n, gone = 0;

	agg_settle(a); /* the hits of the interval ending, before it rolls */
	/* Rows the previous rolls unlinked: every copy of them is older than
	 * the show that came before this roll. */
	if (!a->held)
		agg_rows_free_dead(a);
	a->rolls++;
	if (decay_pct > 100)
		decay_pct = 100;
	agg_pairs_clear(a); /* first: the rows they point to may go below */
	a->annot_ntop = 0; /* the walk below ranks the hottest (agg_annot_consider) */
	agg_kin_roll(a);
	agg_group_roll(a, decay_pct);
	for (size_t i = 0; i < a->nevents; i++) {
		struct agg_event *e = &a->ev[i];

		e->samples_iv = e->samples_iv * decay_pct / 100;
		e->period_iv = e->period_iv * decay_pct / 100;
		e->lost_iv = 0;
		e->throttled_iv = 0;
	}
	if (a->walk_all)
		relist(a);
	n = 0;
	for (size_t i = 0; i < a->act_syms.n; i++) {
		struct agg_sym *s = a->act_syms.v[i];

		agg_annot_consider(a, s); /* by the interval's counts, before they decay */
		decay(&s->iv, decay_pct, a->nevents);
		decay(&s->ch_iv, decay_pct, a->nevents);
		if (counts_zero(&s->iv, a->nevents) && counts_zero(&s->ch_iv, a->nevents)) {
			s->active = false;
			s->idle_since = a->rolls;
			if (!s->in_cg)
				idle_push(&a->idle_syms, s, a->rolls, &s->queued);
		} else {
			a->act_syms.v[n++] = s;
		}
	}
	a->act_syms.n = n;
	agg_annot_roll(a, decay_pct);
	if (a->cg)
		callgraph_roll(a->cg, decay_pct);
	n = 0;
	for (size_t i = 0; i < a->act_tasks.n; i++) {
		struct agg_task *t = a->act_tasks.v[i];

		decay(&t->iv, decay_pct, a->nevents);
		if (counts_zero(&t->iv, a->nevents)) {
			t->active = false;
			t->idle_since = a->rolls;
			idle_push(&a->idle_tasks, t, a->rolls, &t->queued);
		} else {
			a->act_tasks.v[n++] = t;
		}
	}
	a->act_tasks.n = n;
	n = 0;
	for (size_t i = 0; i < a->aging.n; i++) {
		struct agg_task *t = a->aging.v[i];

		if (!t->exited) { /* its pid was taken by a new task */
			t->aging = false;
			continue;
		}
		if (++t->exited_ticks > AGG_EXIT_GRACE && ranks(a, t->is_thread ? RANK_THREADS : RANK_TASKS, t)) {
			t->aging = false; /* kept: judged again once idle (expire_tasks) */
			continue;
		}
		if (t->exited_ticks > AGG_EXIT_GRACE) {
			task_expire(a, t);
			gone++;
			continue;
		}
		a->aging.v[n++] = t;
	}
	a->aging.n = n;
	for (size_t i = 0; i < a->ncpus; i++) {
		decay(&a->cpus[i].iv, decay_pct, a->nevents);
		a->cpus[i].lost_iv = 0;
		a->cpus[i].throttled_iv = 0;
	}
	n = expire_syms(a);
	if (n)
		htab_shrink(&a->syms, 1024);
	gone += expire_tasks(a);
	if (n || gone)
		flat_forget(a);
	if (gone) {
		rowlist_purge(&a->act_tasks);
		rowlist_purge(&a->aging);
		idleq_purge(&a->idle_tasks);
		htab_shrink(&a->tasks, 256);
		htab_shrink(&a->tids, 256);
	}
}
