/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_view: what the dump, the screen and the exporter read of the agg:
 * rows in order (the top few without sorting the rest), shares, and the
 * focus counters as the session handed them. */
#include "agg_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptrheap.h"

static uint64_t sum_samples(const struct agg_counts *c, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += c->samples[i];
	return s;
}

struct sort_ctx {
	size_t nevents;
	size_t offset; /* of the agg_counts in the row */
};

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *ctx = arg;
	const struct agg_counts *a = (const void *)(*(const char *const *)pa + ctx->offset);
	const struct agg_counts *b = (const void *)(*(const char *const *)pb + ctx->offset);
	uint64_t x = a->samples[0], y = b->samples[0];

	if (x == y) {
		x = sum_samples(a, ctx->nevents);
		y = sum_samples(b, ctx->nevents);
	}
	return (x < y) - (x > y);
}

/* A heap whose root is the row that sorts LAST, so the root is the one to
 * evict when a better row comes. */
static bool sorts_after(const void *x, const void *y, void *ctx)
{
	return cmp_rows(&x, &y, ctx) > 0;
}

/* The scratch array of row pointers, big enough for every row of m. */
static bool sorted_fit(struct agg *a, const struct htab *m)
{
	void **p;

	if (m->used <= a->sorted_cap)
		return true;
	if ((p = reallocarray(a->sorted, m->used, sizeof(*p))) == NULL)
		return false;
	a->sorted = p;
	a->sorted_cap = m->used;
	return true;
}

static size_t sorted_rows(struct agg *a, struct htab *m, size_t offset, size_t limit, void ***out)
{
	struct sort_ctx ctx = { a->nevents, offset };
	size_t n = 0;

	agg_settle(a);
	if (!sorted_fit(a, m)) {
		*out = NULL;
		return 0;
	}
	*out = a->sorted;
	if (limit == 0)
		return 0;
	if (limit >= m->used) {
		/* Rows without a sample in scope all sort last, as equals: only
		 * the others are sorted, so the live view's frame costs what the
		 * interval's active rows do, not every row ever seen. The idle
		 * ones fill the array from its end, then are turned round: both
		 * runs keep the table's order, as the stable sort did. */
		size_t idle = 0, end = m->used;

		for (size_t i = 0; i <= m->mask && n + idle < end; i++) {
			const struct agg_counts *c;

			if (agg_row_at(m, i) == NULL)
				continue;
			c = (const void *)((const char *)agg_row_at(m, i) + offset);
			if (c->samples[0] || sum_samples(c, a->nevents))
				a->sorted[n++] = agg_row_at(m, i);
			else
				a->sorted[end - 1 - idle++] = agg_row_at(m, i);
		}
		if (n + idle < end) /* fewer rows than counted: close the gap */
			memmove(&a->sorted[n], &a->sorted[end - idle], idle * sizeof(*a->sorted));
		for (size_t i = 0; i < idle / 2; i++) {
			void *t = a->sorted[n + i];

			a->sorted[n + i] = a->sorted[n + idle - 1 - i];
			a->sorted[n + idle - 1 - i] = t;
		}
		if (n > 1)
			qsort_r(a->sorted, n, sizeof(*a->sorted), cmp_rows, &ctx);
		return n + idle;
	}
	/* Top `limit`: a bounded heap, O(rows log limit), then sort those. */
	for (size_t i = 0; i <= m->mask; i++) {
		void *row = agg_row_at(m, i);

		if (row == NULL)
			continue;
		if (n < limit) {
			a->sorted[n++] = row;
			if (n == limit)
				for (size_t k = n / 2; k-- > 0;)
					ptrheap_down(a->sorted, n, k, sorts_after, &ctx);
		} else if (cmp_rows(&row, &a->sorted[0], &ctx) < 0) {
			a->sorted[0] = row;
			ptrheap_down(a->sorted, n, 0, sorts_after, &ctx);
		}
	}
	if (n > 1)
		qsort_r(a->sorted, n, sizeof(*a->sorted), cmp_rows, &ctx);
	return n;
}

/* The roll's lists are exactly the rows with interval counts, unless one
 * could not grow (walk_all): then every row of the map, as it lies. */
static size_t active_rows(struct agg *a, struct htab *m, struct rowlist *l, void ***out)
{
	size_t n = 0;

	agg_settle(a);
	if (!a->walk_all) {
		*out = l->v;
		return l->n;
	}
	if (!sorted_fit(a, m)) {
		*out = NULL;
		return 0;
	}
	for (size_t i = 0; i <= m->mask; i++)
		if (agg_row_at(m, i))
			a->sorted[n++] = agg_row_at(m, i);
	*out = a->sorted;
	return n;
}

size_t agg_symbols_active(struct agg *a, const struct agg_sym ***rows)
{
	return active_rows(a, &a->syms, &a->act_syms, (void ***)rows);
}

size_t agg_tasks_active(struct agg *a, const struct agg_task ***rows)
{
	return active_rows(a, &a->tasks, &a->act_tasks, (void ***)rows);
}

#define SCOPE_OFF(type, scope) \
	((scope) == AGG_INTERVAL ? offsetof(type, iv) : offsetof(type, total))

size_t agg_symbols_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_sym ***rows)
{
	return sorted_rows(a, &a->syms, SCOPE_OFF(struct agg_sym, scope), limit, (void ***)rows);
}

size_t agg_symbols_children_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_sym ***rows)
{
	size_t off = scope == AGG_INTERVAL ? offsetof(struct agg_sym, ch_iv) : offsetof(struct agg_sym, ch_total);

	return sorted_rows(a, &a->syms, off, limit, (void ***)rows);
}

size_t agg_tasks_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_task ***rows)
{
	return sorted_rows(a, &a->tasks, SCOPE_OFF(struct agg_task, scope), limit, (void ***)rows);
}

size_t agg_threads_top(struct agg *a, enum agg_scope scope, size_t limit, const struct agg_task ***rows)
{
	return sorted_rows(a, &a->tids, SCOPE_OFF(struct agg_task, scope), limit, (void ***)rows);
}

size_t agg_symbols(struct agg *a, enum agg_scope scope, const struct agg_sym ***rows)
{
	return agg_symbols_top(a, scope, SIZE_MAX, rows);
}

size_t agg_tasks(struct agg *a, enum agg_scope scope, const struct agg_task ***rows)
{
	return agg_tasks_top(a, scope, SIZE_MAX, rows);
}

size_t agg_threads(struct agg *a, enum agg_scope scope, const struct agg_task ***rows)
{
	return agg_threads_top(a, scope, SIZE_MAX, rows);
}

enum row_kind { ROW_SYM, ROW_TASK, ROW_THREAD };

static bool counts_any(const struct agg_counts *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++)
		if (c->samples[e])
			return true;
	return false;
}

/* One list holds process and thread rows: process rows have no tid, but
 * neither has the idle task's thread row (pid 0, tid 0). For that one, the
 * map m of the kind asked for says whether it holds the row. */
static bool of_kind(const struct htab *m, enum row_kind kind, const struct agg_task *t)
{
	if (t->tid != 0)
		return kind == ROW_THREAD;
	if (t->pid != 0)
		return kind == ROW_TASK;
	for (size_t i = 0; i <= m->mask; i++)
		if (agg_row_at(m, i) == t)
			return true;
	return false;
}

static bool in_scope(const struct agg *a, enum row_kind kind, const void *row, enum agg_scope scope)
{
	bool iv = scope == AGG_INTERVAL;

	if (kind == ROW_SYM) {
		const struct agg_sym *s = row;

		return counts_any(iv ? &s->iv : &s->total, a->nevents) ||
		       counts_any(iv ? &s->ch_iv : &s->ch_total, a->nevents);
	} else {
		const struct agg_task *t = row;

		return counts_any(iv ? &t->iv : &t->total, a->nevents);
	}
}

static size_t rows_in_scope(struct agg *a, const struct htab *m, const struct rowlist *l, enum row_kind kind,
			    enum agg_scope scope, void ***out)
{
	/* The roll's list holds every row with interval counts, unless it
	 * could not grow (walk_all): then the map, as for the totals. */
	bool listed = scope == AGG_INTERVAL && !a->walk_all;
	size_t cap = listed ? l->n : m->used, n = 0;

	if (cap > a->sorted_cap) {
		void **p = reallocarray(a->sorted, cap, sizeof(*p));

		if (p == NULL) {
			*out = NULL;
			return 0;
		}
		a->sorted = p;
		a->sorted_cap = cap;
	}
	*out = a->sorted;
	if (listed) {
		for (size_t i = 0; i < l->n; i++)
			if (in_scope(a, kind, l->v[i], scope) && (kind == ROW_SYM || of_kind(m, kind, l->v[i])))
				a->sorted[n++] = l->v[i];
		return n;
	}
	for (size_t i = 0; i <= m->mask && n < cap; i++)
		if (agg_row_at(m, i) && in_scope(a, kind, agg_row_at(m, i), scope))
			a->sorted[n++] = agg_row_at(m, i);
	return n;
}

size_t agg_symbols_in_scope(struct agg *a, enum agg_scope scope, const struct agg_sym ***rows)
{
	agg_settle(a);
	return rows_in_scope(a, &a->syms, &a->act_syms, ROW_SYM, scope, (void ***)rows);
}

size_t agg_tasks_in_scope(struct agg *a, enum agg_scope scope, const struct agg_task ***rows)
{
	agg_settle(a);
	return rows_in_scope(a, &a->tasks, &a->act_tasks, ROW_TASK, scope, (void ***)rows);
}

size_t agg_threads_in_scope(struct agg *a, enum agg_scope scope, const struct agg_task ***rows)
{
	agg_settle(a);
	return rows_in_scope(a, &a->tids, &a->act_tasks, ROW_THREAD, scope, (void ***)rows);
}

size_t agg_cpus(struct agg *a, const struct agg_cpu ***rows)
{
	if (a->ncpus > a->sorted_cap) {
		void **p = reallocarray(a->sorted, a->ncpus, sizeof(*p));

		if (p == NULL)
			return 0;
		a->sorted = p;
		a->sorted_cap = a->ncpus;
	}
	for (size_t i = 0; i < a->ncpus; i++)
		a->sorted[i] = &a->cpus[i];
	*rows = (const struct agg_cpu **)a->sorted;
	return a->ncpus;
}


uint64_t agg_base(const struct agg *a, enum agg_scope scope)
{
	return scope == AGG_INTERVAL ? a->ev[0].samples_iv : a->ev[0].samples_total;
}

double agg_share(const struct agg *a, const struct agg_counts *c, enum agg_scope scope)
{
	uint64_t base = agg_base(a, scope);

	return base ? 100.0 * (double)c->samples[0] / (double)base : 0.0;
}

int agg_counters_begin(struct agg *a, const char *const *names, size_t n)
{
	struct agg_counters *c = &a->cnt;

	if (n > COUNTERS_MAX)
		n = COUNTERS_MAX;
	c->nevents = n;
	for (size_t i = 0; i < n; i++)
		strlcpy(c->names[i], names[i], sizeof(c->names[i]));
	c->nprocs = c->nthreads = 0;
	a->has_cnt = true;
	return 0;
}

int agg_counters_add(struct agg *a, const struct counter_row *r, const char *comm)
{
	struct agg_counters *c = &a->cnt;
	struct agg_counter_row **rows = r->tid ? &c->threads : &c->procs;
	size_t *n = r->tid ? &c->nthreads : &c->nprocs;
	size_t *cap = r->tid ? &c->threads_cap : &c->procs_cap;

	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct agg_counter_row *p = reallocarray(*rows, ncap, sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		*rows = p;
		*cap = ncap;
	}
	(*rows)[*n].c = *r;
	strlcpy((*rows)[*n].comm, comm ? comm : "?", sizeof((*rows)[*n].comm));
	(*n)++;
	return 0;
}

const struct agg_counters *agg_counters(const struct agg *a)
{
	return a->has_cnt ? &a->cnt : NULL;
}

const struct agg_counter_row *agg_counter_row(const struct agg_counters *c, pid_t pid, pid_t tid)
{
	const struct agg_counter_row *rows;
	size_t n;

	if (c == NULL)
		return NULL;
	rows = tid ? c->threads : c->procs;
	n = tid ? c->nthreads : c->nprocs;
	for (size_t i = 0; i < n; i++)
		if (tid ? rows[i].c.tid == tid : rows[i].c.pid == pid)
			return &rows[i];
	return NULL;
}

