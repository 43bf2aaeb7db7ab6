/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "metrics.h"
#include "offmetrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "deltamap.h"

/* A comm's series, once named, only grows: it accumulates while the comm is
 * in the top N, and its counts go to "other" while it is not. So each series
 * is monotonic and together they add up to every sample. */
struct comm_acc {
	char comm[AGG_COMM_MAX];
	double score;                     /* decayed samples of event 0 a interval */
	uint64_t iv[AGG_MAX_EVENTS];      /* this update's growth */
	uint64_t acc[AGG_MAX_EVENTS];     /* exported while top */
	bool top, named;                  /* named: has been top, acc is a series */
};

/* A symbol of the top N, copied: only rows that grew can change the top,
 * so each update looks at those alone (agg_symbols_active), never at every
 * row ever seen; a row agg drops later keeps its last figures here. */
struct sym_top {
	uint64_t key;
	char *sym, *dso;
	uint64_t total[AGG_MAX_EVENTS];
};

/* Every so many updates a full pass over agg's tasks, which forgets the
 * PIDs gone from agg; in between only the tasks that grew are read. */
#define METRICS_FULL_EVERY 64

struct metrics {
	size_t ncomms, nsyms, cap;
	struct comm_acc *comms;
	size_t n;
	uint64_t other[AGG_MAX_EVENTS];
	struct deltamap tasks;            /* pid -> samples[AGG_MAX_EVENTS] last seen */
	struct sym_top *top;              /* nsyms of them at most, in no order */
	size_t ntop;
	struct deltamap top_ix;           /* symbol key -> index in top + 1, 0: not there */
	size_t low;                       /* the lowest of a full top, when low_ok */
	bool low_ok;
	const struct agg *agg;            /* the one read last: another one starts over */
	uint64_t agg_samples;             /* its samples then: fewer now, a new agg */
	uint64_t updates;
	size_t page_len[2];               /* the last page of each format: the next is about as long */
};

struct metrics *metrics_new(size_t ncomms, size_t nsyms)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->ncomms = ncomms;
	m->nsyms = nsyms;
	/* Room for comms that come and go around the top N. */
	m->cap = ncomms * 4 + 16;
	m->comms = calloc(m->cap, sizeof(*m->comms));
	m->top = calloc(nsyms ? nsyms : 1, sizeof(*m->top));
	if (m->comms == NULL || m->top == NULL || deltamap_init(&m->tasks, AGG_MAX_EVENTS) ||
	    deltamap_init(&m->top_ix, 1)) {
		deltamap_free(&m->tasks);
		free(m->top);
		free(m->comms);
		free(m);
		return NULL;
	}
	return m;
}

static void top_clear(struct metrics *m)
{
	for (size_t i = 0; i < m->ntop; i++) {
		free(m->top[i].sym);
		free(m->top[i].dso);
	}
	m->ntop = 0;
	m->low_ok = false;
	deltamap_free(&m->top_ix);
}

void metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	top_clear(m);
	deltamap_free(&m->tasks);
	free(m->top);
	free(m->comms);
	free(m);
}

static struct comm_acc *comm_find(struct metrics *m, const char *comm)
{
	struct comm_acc *victim = NULL;

	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->comms[i].comm, comm) == 0)
			return &m->comms[i];
	if (m->n < m->cap) {
		victim = &m->comms[m->n++];
	} else {
		/* Full: the coldest comm that was never named and took nothing
		 * this update goes. A named one stays, its series with it: a
		 * series that vanished or restarted lower would read as a reset,
		 * and the comm series would no longer add up to the samples.
		 * None to spare: the comm counts under "other". */
		for (size_t i = 0; i < m->n; i++) {
			struct comm_acc *c = &m->comms[i];
			bool busy = false;

			for (size_t e = 0; e < AGG_MAX_EVENTS && !busy; e++)
				busy = c->iv[e] != 0;
			if (c->top || c->named || busy)
				continue;
			if (victim == NULL || c->score < victim->score)
				victim = c;
		}
		if (victim == NULL)
			return NULL;
	}
	memset(victim, 0, sizeof(*victim));
	strlcpy(victim->comm, comm, sizeof(victim->comm));
	return victim;
}

static int by_score(const void *a, const void *b)
{
	const struct comm_acc *x = *(const struct comm_acc *const *)a, *y = *(const struct comm_acc *const *)b;

	return x->score < y->score ? 1 : x->score > y->score ? -1 : strcmp(x->comm, y->comm);
}

/* agg's order: samples of the first event, then of all events. */
static bool ranks_above(const uint64_t *x, const uint64_t *y, size_t ne)
{
	uint64_t sx = 0, sy = 0;

	if (x[0] != y[0])
		return x[0] > y[0];
	for (size_t e = 0; e < ne; e++) {
		sx += x[e];
		sy += y[e];
	}
	return sx > sy;
}

/* A row that grew: its figures if it is in the top, else in place of the
 * lowest when it now ranks above it. */
static int top_offer(struct metrics *m, const struct agg_sym *r, size_t ne)
{
	uint64_t *ix;
	size_t low = 0;
	struct sym_top *t;

	/* Most rows that grew are far below the top: a member ranks at least
	 * as the lowest, and above it once grown, so these need no lookup. */
	if (m->low_ok && m->ntop == m->nsyms && !ranks_above(r->total.samples, m->top[m->low].total, ne))
		return 0;
	ix = deltamap_find(&m->top_ix, r->key);
	if (ix && *ix) {
		memcpy(m->top[*ix - 1].total, r->total.samples, ne * sizeof(m->top[0].total[0]));
		m->low_ok &= *ix - 1 != m->low; /* the lowest grew: maybe no longer */
		return 0;
	}
	if (m->nsyms == 0)
		return 0;
	if (m->ntop < m->nsyms) {
		t = &m->top[m->ntop++];
		m->low_ok = false;
	} else {
		if (!m->low_ok) {
			for (size_t i = 1; i < m->ntop; i++)
				if (ranks_above(m->top[low].total, m->top[i].total, ne))
					low = i;
			m->low = low;
			m->low_ok = true;
		}
		low = m->low;
		if (!ranks_above(r->total.samples, m->top[low].total, ne))
			return 0;
		m->low_ok = false;
		t = &m->top[low];
		*deltamap_find(&m->top_ix, t->key) = 0; /* there: it is in the top */
		free(t->sym);
		free(t->dso);
	}
	*t = (struct sym_top){ .key = r->key, .sym = strdup(r->sym), .dso = strdup(r->dso) };
	memcpy(t->total, r->total.samples, ne * sizeof(*t->total)); /* the row holds ne of them */
	if (t->sym == NULL || t->dso == NULL || (ix = deltamap_get(&m->top_ix, r->key)) == NULL) {
		free(t->sym);
		free(t->dso);
		*t = m->top[--m->ntop]; /* the last one moves here */
		if (t != &m->top[m->ntop])
			*deltamap_find(&m->top_ix, t->key) = (uint64_t)(t - m->top) + 1;
		return -ENOMEM;
	}
	*ix = (uint64_t)(t - m->top) + 1;
	return 0;
}

static int symbols_update(struct metrics *m, struct agg *a, bool full)
{
	const struct agg_sym **rows;
	size_t ne = agg_nevents(a), n;
	int rc = 0;

	if (full) {
		top_clear(m);
		if (deltamap_init(&m->top_ix, 1))
			return -ENOMEM;
		n = agg_symbols_top(a, AGG_TOTAL, m->nsyms, &rows);
	} else {
		n = agg_symbols_active(a, &rows);
	}
	for (size_t i = 0; i < n; i++)
		if (top_offer(m, rows[i], ne))
			rc = -ENOMEM;
	return rc;
}

int metrics_update(struct metrics *m, struct agg *a)
{
	const struct agg_task **rows;
	size_t ne = agg_nevents(a), n;
	struct comm_acc **order;
	bool full;
	int rc = 0;

	/* Another agg (the live view re-aimed the session), or the first: read
	 * all of it. Totals less than before say so even at the same address. */
	full = a != m->agg || agg_event(a, 0)->samples_total < m->agg_samples ||
	       m->updates % METRICS_FULL_EVERY == 0;
	m->agg = a;
	m->agg_samples = agg_event(a, 0)->samples_total;
	m->updates++;
	if (symbols_update(m, a, full))
		rc = -ENOMEM;
	n = full ? agg_tasks(a, AGG_TOTAL, &rows) : agg_tasks_active(a, &rows);
	for (size_t i = 0; i < m->n; i++)
		memset(m->comms[i].iv, 0, sizeof(m->comms[i].iv));
	for (size_t i = 0; i < n; i++) {
		uint64_t *last;
		uint64_t d[AGG_MAX_EVENTS];
		struct comm_acc *c;

		if (rows[i]->tid != 0)
			continue; /* a thread's row: its process has the counts */
		last = deltamap_get(&m->tasks, (uint64_t)rows[i]->pid);
		if (last == NULL) {
			rc = -ENOMEM;
			continue;
		}
		for (size_t e = 0; e < ne; e++) {
			/* Less than before: the PID was reused by a new task. */
			d[e] = rows[i]->total.samples[e] >= last[e] ? rows[i]->total.samples[e] - last[e]
								   : rows[i]->total.samples[e];
			last[e] = rows[i]->total.samples[e];
		}
		/* A task really named "other" would collide with the bucket. */
		c = strcmp(rows[i]->comm, METRICS_OTHER) ? comm_find(m, rows[i]->comm) : NULL;
		for (size_t e = 0; e < ne; e++) {
			if (c)
				c->iv[e] += d[e];
			else
				m->other[e] += d[e];
		}
	}
	if (full && deltamap_sweep(&m->tasks))
		rc = -ENOMEM;

	order = calloc(m->n ? m->n : 1, sizeof(*order));
	if (order == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		m->comms[i].score = m->comms[i].score * 0.8 + (double)m->comms[i].iv[0];
		order[i] = &m->comms[i];
	}
	if (m->n > 1)
		qsort(order, m->n, sizeof(*order), by_score);
	for (size_t i = 0; i < m->n; i++)
		order[i]->top = i < m->ncomms && order[i]->score > 0;
	free(order);
	for (size_t i = 0; i < m->n; i++) {
		struct comm_acc *c = &m->comms[i];

		for (size_t e = 0; e < ne; e++) {
			if (c->top)
				c->acc[e] += c->iv[e];
			else
				m->other[e] += c->iv[e];
		}
		c->named |= c->top;
	}
	return rc;
}

static void cpu_label(char *buf, size_t len, int cpu)
{
	snprintf(buf, len, "%d", cpu);
}

static void event_families(struct promtext *p, struct agg *a)
{
	size_t ne = agg_nevents(a);

	promtext_family(p, "perftop_samples_total", PROMTEXT_COUNTER, "Samples taken, per event.");
	for (size_t e = 0; e < ne; e++) {
		struct promtext_label l[] = { { "event", agg_event(a, e)->name } };

		promtext_sample_u64(p, "perftop_samples_total", l, 1, agg_event(a, e)->samples_total);
	}
	promtext_family(p, "perftop_lost_samples_total", PROMTEXT_COUNTER,
			"Samples the kernel dropped, per event (per CPU in perftop_cpu_lost_samples_total).");
	for (size_t e = 0; e < ne; e++) {
		struct promtext_label l[] = { { "event", agg_event(a, e)->name } };

		promtext_sample_u64(p, "perftop_lost_samples_total", l, 1, agg_event(a, e)->lost_total);
	}
	promtext_family(p, "perftop_throttled_total", PROMTEXT_COUNTER,
			"Times the kernel throttled sampling, per event.");
	for (size_t e = 0; e < ne; e++) {
		struct promtext_label l[] = { { "event", agg_event(a, e)->name } };

		promtext_sample_u64(p, "perftop_throttled_total", l, 1, agg_event(a, e)->throttled_total);
	}
	promtext_family(p, "perftop_event_running_ratio", PROMTEXT_GAUGE,
			"Share of the last interval the event was on the PMU (multiplexing).");
	for (size_t e = 0; e < ne; e++) {
		struct promtext_label l[] = { { "event", agg_event(a, e)->name } };

		if (agg_event(a, e)->running_pct >= 0)
			promtext_sample(p, "perftop_event_running_ratio", l, 1,
					agg_event(a, e)->running_pct / 100.0);
	}
}

static void cpu_families(struct promtext *p, struct agg *a)
{
	const struct agg_cpu **cpus;
	size_t n = agg_cpus(a, &cpus), ne = agg_nevents(a);
	char c[16];

	promtext_family(p, "perftop_cpu_samples_total", PROMTEXT_COUNTER, "Samples taken, per event and CPU.");
	for (size_t i = 0; i < n; i++) {
		cpu_label(c, sizeof(c), cpus[i]->cpu);
		for (size_t e = 0; e < ne; e++) {
			struct promtext_label l[] = { { "event", agg_event(a, e)->name }, { "cpu", c } };

			promtext_sample_u64(p, "perftop_cpu_samples_total", l, 2, cpus[i]->total.samples[e]);
		}
	}
	promtext_family(p, "perftop_cpu_lost_samples_total", PROMTEXT_COUNTER,
			"Samples the kernel dropped, per CPU (all events).");
	for (size_t i = 0; i < n; i++) {
		struct promtext_label l[] = { { "cpu", c } };

		cpu_label(c, sizeof(c), cpus[i]->cpu);
		promtext_sample_u64(p, "perftop_cpu_lost_samples_total", l, 1, cpus[i]->lost_total);
	}
	promtext_family(p, "perftop_cpu_throttled_total", PROMTEXT_COUNTER,
			"Times the kernel throttled sampling, per CPU (all events).");
	for (size_t i = 0; i < n; i++) {
		struct promtext_label l[] = { { "cpu", c } };

		cpu_label(c, sizeof(c), cpus[i]->cpu);
		promtext_sample_u64(p, "perftop_cpu_throttled_total", l, 1, cpus[i]->throttled_total);
	}
	/* The pair: which event lost on which CPU (summed over cpu, the per-event
	 * families; over event, the per-CPU ones). */
	promtext_family(p, "perftop_event_cpu_lost_samples_total", PROMTEXT_COUNTER,
			"Samples the kernel dropped, per event and CPU.");
	for (size_t i = 0; i < n; i++) {
		cpu_label(c, sizeof(c), cpus[i]->cpu);
		for (size_t e = 0; e < ne; e++) {
			struct promtext_label l[] = { { "event", agg_event(a, e)->name }, { "cpu", c } };

			promtext_sample_u64(p, "perftop_event_cpu_lost_samples_total", l, 2, cpus[i]->ev_lost_total[e]);
		}
	}
	promtext_family(p, "perftop_event_cpu_throttled_total", PROMTEXT_COUNTER,
			"Times the kernel throttled sampling, per event and CPU.");
	for (size_t i = 0; i < n; i++) {
		cpu_label(c, sizeof(c), cpus[i]->cpu);
		for (size_t e = 0; e < ne; e++) {
			struct promtext_label l[] = { { "event", agg_event(a, e)->name }, { "cpu", c } };

			promtext_sample_u64(p, "perftop_event_cpu_throttled_total", l, 2,
					    cpus[i]->ev_throttled_total[e]);
		}
	}
}

static void comm_families(struct promtext *p, struct metrics *m, struct agg *a)
{
	size_t ne = agg_nevents(a);

	promtext_family(p, "perftop_comm_samples_total", PROMTEXT_COUNTER,
			"Samples of the tasks named comm (the top N; the rest under comm other).");
	/* Every comm once named: one out of the top keeps its series, stopped. */
	for (size_t i = 0; i < m->n; i++) {
		if (!m->comms[i].named)
			continue;
		for (size_t e = 0; e < ne; e++) {
			struct promtext_label l[] = { { "event", agg_event(a, e)->name },
						      { "comm", m->comms[i].comm } };

			promtext_sample_u64(p, "perftop_comm_samples_total", l, 2, m->comms[i].acc[e]);
		}
	}
	for (size_t e = 0; e < ne; e++) {
		struct promtext_label l[] = { { "event", agg_event(a, e)->name }, { "comm", METRICS_OTHER } };

		promtext_sample_u64(p, "perftop_comm_samples_total", l, 2, m->other[e]);
	}
}

/* Called for every pair of the top N each render: the first byte settles most. */
static bool same_sym(const struct sym_top *x, const struct sym_top *y)
{
	return x->sym[0] == y->sym[0] && strcmp(x->sym, y->sym) == 0 && strcmp(x->dso, y->dso) == 0;
}

static int by_rank(const void *a, const void *b, void *arg)
{
	const struct sym_top *x = *(const struct sym_top *const *)a, *y = *(const struct sym_top *const *)b;
	size_t ne = *(const size_t *)arg;

	return ranks_above(x->total, y->total, ne) ? -1 : ranks_above(y->total, x->total, ne) ? 1 : 0;
}

/* Rows of different keys may carry the same names; one series each name. */
static void symbol_families(struct promtext *p, struct metrics *m, struct agg *a)
{
	const struct sym_top **rows = malloc((m->ntop ? m->ntop : 1) * sizeof(*rows));
	size_t ne = agg_nevents(a), n = m->ntop;

	promtext_family(p, "perftop_symbol_samples_total", PROMTEXT_COUNTER,
			"Samples of the top N symbols since start.");
	if (rows == NULL) {
		p->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = &m->top[i];
	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), by_rank, &ne);
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = same_sym(rows[i], rows[j]);
		if (dup)
			continue;
		for (size_t e = 0; e < ne; e++) {
			struct promtext_label l[] = { { "event", agg_event(a, e)->name },
						      { "symbol", rows[i]->sym }, { "dso", rows[i]->dso } };
			uint64_t v = rows[i]->total[e];

			for (size_t j = i + 1; j < n; j++)
				if (same_sym(rows[i], rows[j]))
					v += rows[j]->total[e];
			promtext_sample_u64(p, "perftop_symbol_samples_total", l, 3, v);
		}
	}
	free(rows);
}

/* Focus mode's exact counters, as the session handed them to the agg. */
static void counter_families(struct promtext *p, const struct agg *a)
{
	const struct agg_counters *c = agg_counters(a);

	if (c == NULL)
		return;
	promtext_family(p, "perftop_counter_total", PROMTEXT_COUNTER,
			"Exact counts of focused processes since focus began (scaled when multiplexed).");
	for (size_t i = 0; i < c->nprocs; i++) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", (int)c->procs[i].c.pid);
		for (size_t e = 0; e < c->nevents; e++) {
			struct promtext_label l[] = { { "event", c->names[e] },
						      { "pid", pid }, { "comm", c->procs[i].comm } };
			const struct counter_value *v = &c->procs[i].c.v[e];

			if (v->state == COUNTER_OK || v->state == COUNTER_SCALED)
				promtext_sample_u64(p, "perftop_counter_total", l, 3, v->total);
		}
	}
}

static void own_families(struct promtext *p, const struct metrics_figures *f)
{
	static const struct {
		const char *name, *help;
		enum promtext_type type;
		size_t off;
	} u64s[] = {
#define F(n, t, h, fld) { n, h, t, offsetof(struct metrics_figures, fld) }
		F("perftop_intervals_total", PROMTEXT_COUNTER, "Intervals ended.", intervals),
		F("perftop_process_resident_memory_bytes", PROMTEXT_GAUGE, "perftop's resident memory.", rss_bytes),
		F("perftop_tracking_lost_total", PROMTEXT_COUNTER,
		  "Tracking records (mmap, comm, exit) the kernel dropped.", tracking_lost),
		F("perftop_push_sent_total", PROMTEXT_COUNTER, "Profiles sent by --push.", push_sent),
		F("perftop_push_failed_total", PROMTEXT_COUNTER,
		  "Profiles --push could not send after its retries.", push_failed),
		F("perftop_push_dropped_total", PROMTEXT_COUNTER,
		  "Profiles --push dropped because its queue was full.", push_dropped),
		F("perftop_http_requests_total", PROMTEXT_COUNTER, "HTTP requests served.", http_requests),
		F("perftop_http_rejected_total", PROMTEXT_COUNTER,
		  "HTTP requests refused (bad request, too many profiles).", http_rejected),
		F("perftop_textfile_errors_total", PROMTEXT_COUNTER,
		  "Writes of the --textfile file that failed.", textfile_errors),
#undef F
	};

	promtext_family(p, "perftop_process_cpu_seconds_total", PROMTEXT_COUNTER,
			"perftop's own CPU time, user and system.");
	promtext_sample(p, "perftop_process_cpu_seconds_total", NULL, 0, f->cpu_seconds);
	promtext_family(p, "perftop_export_cpu_seconds_total", PROMTEXT_COUNTER,
			"Of perftop's CPU time, what exporting took (pages, profiles, the HTTP server's threads).");
	promtext_sample(p, "perftop_export_cpu_seconds_total", NULL, 0, f->export_cpu_seconds);
	promtext_family(p, "perftop_interval_seconds", PROMTEXT_GAUGE, "The last interval's measured length.");
	promtext_sample(p, "perftop_interval_seconds", NULL, 0, f->interval);
	for (size_t i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++) {
		promtext_family(p, u64s[i].name, u64s[i].type, u64s[i].help);
		promtext_sample_u64(p, u64s[i].name, NULL, 0,
				    *(const uint64_t *)((const char *)f + u64s[i].off));
	}
	promtext_family(p, "perftop_engine_backlog_bytes", PROMTEXT_GAUGE,
			"Bytes taken from the kernel rings, not yet decoded.");
	promtext_sample_u64(p, "perftop_engine_backlog_bytes", NULL, 0, f->backlog_bytes);
	promtext_family(p, "perftop_engine_records_total", PROMTEXT_COUNTER, "Records decoded.");
	promtext_sample_u64(p, "perftop_engine_records_total", NULL, 0, f->records);
}

int metrics_render(struct metrics *m, struct agg *a, const struct metrics_figures *f,
		   enum promtext_fmt fmt, char **out, size_t *len)
{
	struct promtext p;

	promtext_init(&p, fmt);
	/* One allocation, not a doubling chain, each interval. */
	promtext_reserve(&p, m->page_len[fmt] + m->page_len[fmt] / 8);
	event_families(&p, a);
	cpu_families(&p, a);
	comm_families(&p, m, a);
	offmetrics_families(&p, f->off);
	symbol_families(&p, m, a);
	counter_families(&p, a);
	own_families(&p, f);
	promtext_end(&p);
	*out = promtext_take(&p, len);
	if (*out)
		m->page_len[fmt] = *len;
	return *out ? 0 : -ENOMEM;
}
