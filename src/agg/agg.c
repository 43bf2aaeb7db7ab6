/* agg: the rows and the sample path that feeds them, exits and new
 * owners, the roll. */
#include "agg_int.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

static void rowlist_push(struct agg *a, struct rowlist *l, void *row)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 64;
		void **p = reallocarray(l->v, ncap, sizeof(*p));

		if (p == NULL) {
			a->walk_all = true;
			return;
		}
		l->v = p;
		l->cap = ncap;
	}
	l->v[l->n++] = row;
}

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

static inline void sym_active(struct agg *a, struct agg_sym *s)
{
	if (!s->active) {
		s->active = true;
		rowlist_push(a, &a->act_syms, s);
	}
}

static inline void task_active(struct agg *a, struct agg_task *t)
{
	if (!t->active) {
		t->active = true;
		rowlist_push(a, &a->act_tasks, t);
	}
}

/* A row a lookup remembered may be gone or have a new owner: the last
 * lookups and the flat memo forget. */
static void rows_moved(struct agg *a)
{
	a->last_sym = NULL;
	a->last_task = a->last_thread = NULL;
	if (++a->rows_gen == 0)
		a->rows_gen = 1;
}

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

/* Points n sets of counts at v (2 * nevents words each, zeroed). */
static void counts_at(struct agg_counts *c, size_t n, uint64_t *v, size_t nev)
{
	for (size_t i = 0; i < n; i++, v += 2 * nev) {
		c[i].samples = v;
		c[i].period = v + nev;
	}
}

/* A row and its sets of counts in one block: a symbol row has four (self
 * and children, interval and total), a task row two. */
static size_t row_bytes(size_t head, size_t sets, size_t nev)
{
	return head + sets * 2 * nev * sizeof(uint64_t);
}

#define sym_bytes(nev) row_bytes(sizeof(struct agg_sym), 4, (nev))
#define task_bytes(nev) row_bytes(sizeof(struct agg_task), 2, (nev))

static struct agg_sym *sym_alloc(size_t nev)
{
	struct agg_sym *s = calloc(1, sym_bytes(nev));

	if (s) {
		uint64_t *v = (uint64_t *)(void *)(s + 1);

		counts_at(&s->iv, 1, v, nev);
		counts_at(&s->total, 1, v + 2 * nev, nev);
		counts_at(&s->ch_iv, 1, v + 4 * nev, nev);
		counts_at(&s->ch_total, 1, v + 6 * nev, nev);
	}
	return s;
}

static struct agg_task *task_alloc(size_t nev)
{
	struct agg_task *t = calloc(1, task_bytes(nev));

	if (t) {
		uint64_t *v = (uint64_t *)(void *)(t + 1);

		counts_at(&t->iv, 1, v, nev);
		counts_at(&t->total, 1, v + 2 * nev, nev);
	}
	return t;
}

static int map_init(struct map *m, size_t cap)
{
	m->tab = calloc(cap, sizeof(*m->tab));
	m->mask = cap - 1;
	m->used = 0;
	return m->tab ? 0 : -ENOMEM;
}

static inline void *map_get(const struct map *m, uint64_t key)
{
	for (size_t i = hash64(key) & m->mask; m->tab[i].row; i = (i + 1) & m->mask)
		if (m->tab[i].key == key)
			return m->tab[i].row;
	return NULL;
}

static void map_put_raw(struct map *m, uint64_t key, void *row)
{
	size_t i;

	for (i = hash64(key) & m->mask; m->tab[i].row; i = (i + 1) & m->mask)
		;
	m->tab[i].key = key;
	m->tab[i].row = row;
	m->used++;
}

static int map_put(struct map *m, uint64_t key, void *row)
{
	if (2 * (m->used + 1) > m->mask + 1) {
		struct map n;

		if (map_init(&n, 2 * (m->mask + 1)))
			return -ENOMEM;
		for (size_t i = 0; i <= m->mask; i++)
			if (m->tab[i].row)
				map_put_raw(&n, m->tab[i].key, m->tab[i].row);
		free(m->tab);
		*m = n;
	}
	map_put_raw(m, key, row);
	return 0;
}

/* Removes key's entry; the entries after it in its probe run move back
 * into the hole, so lookups never need tombstones. */
static void map_del(struct map *m, uint64_t key, const void *row)
{
	size_t i = hash64(key) & m->mask, j;

	for (; m->tab[i].row; i = (i + 1) & m->mask)
		if (m->tab[i].key == key && m->tab[i].row == row)
			break;
	if (m->tab[i].row == NULL)
		return;
	for (j = i;;) {
		size_t home;

		j = (j + 1) & m->mask;
		if (m->tab[j].row == NULL)
			break;
		home = hash64(m->tab[j].key) & m->mask;
		/* Stays if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->tab[i] = m->tab[j];
		i = j;
	}
	m->tab[i].key = 0;
	m->tab[i].row = NULL;
	m->used--;
}

/* After expiry: a table an eighth full is halved, so that walking it (the
 * sorted views) follows the rows kept, not the most ever seen. */
static void map_shrink(struct map *m, size_t min_cap)
{
	struct map n;
	size_t cap = m->mask + 1;

	while (cap > min_cap && m->used * 8 < cap)
		cap /= 2;
	if (cap == m->mask + 1 || map_init(&n, cap))
		return;
	for (size_t i = 0; i <= m->mask; i++)
		if (m->tab[i].row)
			map_put_raw(&n, m->tab[i].key, m->tab[i].row);
	free(m->tab);
	*m = n;
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
	for (size_t i = 0; i < nevents; i++)
		a->ev[i].running_pct = -1;
	a->max_cpu = -1;
	for (size_t i = 0; i < ncpus; i++)
		if (cpus[i] > a->max_cpu)
			a->max_cpu = cpus[i];
	counts_at(&a->st.sym_expired, 1, &a->st_counts[0][0][0], AGG_MAX_EVENTS);
	counts_at(&a->st.task_expired, 1, &a->st_counts[1][0][0], AGG_MAX_EVENTS);
	counts_at(&a->st.thread_expired, 1, &a->st_counts[2][0][0], AGG_MAX_EVENTS);
	counts_at(&a->st.sym_ch_expired, 1, &a->st_counts[3][0][0], AGG_MAX_EVENTS);
	a->cpus = calloc(ncpus ? ncpus : 1, sizeof(*a->cpus));
	a->cpu_counts = calloc((ncpus ? ncpus : 1) * 4 * nevents, sizeof(uint64_t));
	a->cpu_index = malloc((size_t)(a->max_cpu + 1 > 0 ? a->max_cpu + 1 : 1) * sizeof(int));
	if (a->cpus == NULL || a->cpu_counts == NULL || a->cpu_index == NULL || map_init(&a->syms, 1024) ||
	    map_init(&a->tasks, 256) || map_init(&a->tids, 256)) {
		agg_free(a);
		return NULL;
	}
	for (int c = 0; c <= a->max_cpu; c++)
		a->cpu_index[c] = -1;
	for (size_t i = 0; i < ncpus; i++) {
		a->cpus[i].cpu = cpus[i];
		counts_at(&a->cpus[i].iv, 1, a->cpu_counts + i * 4 * nevents, nevents);
		counts_at(&a->cpus[i].total, 1, a->cpu_counts + i * 4 * nevents + 2 * nevents, nevents);
		a->cpu_index[cpus[i]] = (int)i;
	}
	a->ncpus = ncpus;
	return a;
}

static void sym_free(void *row)
{
	struct agg_sym *s = row;

	free(s->sym);
	free(s->dso);
	free(s);
}

/* Bytes freed before the heap's free pages are handed back: rows are small
 * and scattered, so free() alone leaves RSS where the churn's peak put it. */
#define AGG_TRIM_BYTES ((size_t)1 << 20)

static void dead_free(struct agg *a)
{
	for (size_t i = 0; i < a->dead_syms.n; i++) {
		struct agg_sym *s = a->dead_syms.v[i];

		a->freed += sym_bytes(a->nevents) + strlen(s->sym) + strlen(s->dso) + 2;
		sym_free(s);
	}
	a->freed += a->dead_tasks.n * task_bytes(a->nevents);
	for (size_t i = 0; i < a->dead_tasks.n; i++)
		free(a->dead_tasks.v[i]);
	a->dead_syms.n = a->dead_tasks.n = 0;
	if (a->freed >= AGG_TRIM_BYTES) {
		malloc_trim(0);
		a->freed = 0;
	}
}

void agg_free(struct agg *a)
{
	if (a == NULL)
		return;
	if (a->syms.tab)
		for (size_t i = 0; i <= a->syms.mask; i++)
			if (a->syms.tab[i].row)
				sym_free(a->syms.tab[i].row);
	if (a->tasks.tab)
		for (size_t i = 0; i <= a->tasks.mask; i++)
			free(a->tasks.tab[i].row);
	if (a->tids.tab)
		for (size_t i = 0; i <= a->tids.mask; i++)
			free(a->tids.tab[i].row);
	free(a->syms.tab);
	free(a->tasks.tab);
	free(a->tids.tab);
	free(a->cpus);
	free(a->cpu_counts);
	free(a->cpu_index);
	free(a->sorted);
	cg_free(a->cg);
	for (size_t i = 0; a->memo && i < AGG_MEMO_SLOTS; i++)
		free(a->memo[i].keys);
	free(a->memo);
	free(a->flat);
	free(a->flat_pend);
	dead_free(a);
	free(a->dead_syms.v);
	free(a->dead_tasks.v);
	free(a->idle_syms.v);
	free(a->idle_tasks.v);
	aggp_free(a);
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

static struct agg_sym *sym_row(struct agg *a, const struct sym_result *sr)
{
	struct agg_sym *s = a->last_sym;

	if (s && s->key == sr->key)
		return s;
	s = map_get(&a->syms, sr->key);
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
		s->sym = strdup(sr->sym ? sr->sym : "[unknown]");
		s->dso = strdup(sr->dso ? sr->dso : "[unknown]");
		if (s->sym == NULL || s->dso == NULL || map_put(&a->syms, sr->key, s)) {
			sym_free(s);
			return NULL;
		}
	}
	a->last_sym = s;
	return s;
}

static void add_counts(struct agg_counts *to, const struct agg_counts *c, size_t nev)
{
	for (size_t e = 0; e < nev; e++) {
		to->samples[e] += c->samples[e];
		to->period[e] += c->period[e];
	}
}

/* The old owner's cumulative counts leave the row: into the expired sums,
 * as if its row had expired and a new one come. */
static void task_fold(struct agg *a, const struct agg_task *t)
{
	if (t->is_thread) {
		add_counts(&a->st.thread_expired, &t->total, a->nevents);
		a->st.expired_threads++;
	} else {
		add_counts(&a->st.task_expired, &t->total, a->nevents);
		a->st.expired_tasks++;
	}
}

/* Every write of a task's name comes here: the stack memo tells a name
 * from the one its path was counted under by the generation, not the text. */
static void set_comm(struct agg *a, struct agg_task *t, const char *comm)
{
	strlcpy(t->comm, comm, sizeof(t->comm));
	t->comm_gen = ++a->comm_gens;
}

/* A row of an owner that exited, ready for the pid's (or tid's) new one. */
static void task_reset(struct agg_task *t, pid_t pid, size_t nev)
{
	t->pid = pid;
	t->comm[0] = '\0';
	t->comm_gen = 0; /* named anew (set_comm) before its next sample counts */
	t->threads = 0;
	t->exited = false;
	t->exited_ticks = 0;
	t->counted = false;
	memset(t->iv.samples, 0, 2 * nev * sizeof(uint64_t));
	memset(t->total.samples, 0, 2 * nev * sizeof(uint64_t));
}

/* pid 0 is the idle task on every CPU; keys are pid + 1 so 0 stays "empty". */
/* A thread's row, made on its first sample; its process counts it. */
static struct agg_task *thread_row(struct agg *a, struct agg_task *proc, pid_t tid, const char *comm)
{
	struct agg_task *t = map_get(&a->tids, (uint64_t)tid + 1);

	if (t && t->pid == proc->pid) {
		if (!t->counted) { /* reset for a new owner: counted by its first sample */
			if (t->comm[0] == '\0')
				set_comm(a, t, comm ? comm : proc->comm);
			t->counted = true;
			proc->threads++;
		}
		return t;
	}
	if (t && t->exited) { /* a tid reused by another process */
		agg_settle(a); /* hits of the old owner's, before its counts fold */
		if (++a->rows_gen == 0) /* not rows_moved: task_row is setting the last lookups */
			a->rows_gen = 1;
		task_fold(a, t);
		task_reset(t, proc->pid, a->nevents);
		t->tid = tid;
		set_comm(a, t, comm ? comm : proc->comm);
		t->counted = true;
		proc->threads++;
		return t;
	}
	if (t) /* still someone else's: its EXIT has not come yet */
		return NULL;
	t = task_alloc(a->nevents);
	if (t == NULL)
		return NULL;
	t->pid = proc->pid;
	t->tid = tid;
	t->is_thread = true;
	set_comm(a, t, comm ? comm : proc->comm);
	if (map_put(&a->tids, (uint64_t)tid + 1, t)) {
		free(t);
		return NULL;
	}
	t->counted = true;
	proc->threads++;
	return t;
}

static struct agg_task *task_row(struct agg *a, pid_t pid, pid_t tid, const struct sym_result *sr)
{
	struct agg_task *t = a->last_task;

	if (t && t->pid == pid && a->last_tid == tid)
		return t;
	t = map_get(&a->tasks, (uint64_t)pid + 1);
	if (t && t->comm[0] == '\0') /* reset for a new owner */
		set_comm(a, t, sr->comm ? sr->comm : "?");
	if (t == NULL) {
		t = task_alloc(a->nevents);
		if (t == NULL)
			return NULL;
		t->pid = pid;
		set_comm(a, t, sr->comm ? sr->comm : (pid == 0 ? "swapper" : "?"));
		if (map_put(&a->tasks, (uint64_t)pid + 1, t)) {
			free(t);
			return NULL;
		}
	}
	a->last_task = t;
	a->last_tid = tid;
	a->last_thread = thread_row(a, t, tid, sr->thread_comm);
	return t;
}

static struct agg_cpu *cpu_row(struct agg *a, int cpu)
{
	if (cpu < 0 || cpu > a->max_cpu || a->cpu_index[cpu] < 0)
		return NULL;
	return &a->cpus[a->cpu_index[cpu]];
}

/* n samples whose periods add up to period. */
static inline void count_n(struct agg_counts *iv, struct agg_counts *total, size_t ev, uint64_t n, uint64_t period)
{
	iv->samples[ev] += n;
	iv->period[ev] += period;
	total->samples[ev] += n;
	total->period[ev] += period;
}

static inline void count(struct agg_counts *iv, struct agg_counts *total, size_t ev, uint64_t period)
{
	count_n(iv, total, ev, 1, period);
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
		count_n(&c->iv, &c->total, ev, n, period);
}

/* n samples of this period in all to the symbol's, task's and thread's
 * rows (any may be NULL). */
static inline void rows_count(struct agg *a, size_t ev, struct agg_sym *s, struct agg_task *t, struct agg_task *th,
			      uint64_t n, uint64_t period)
{
	if (s) {
		count_n(&s->iv, &s->total, ev, n, period);
		sym_active(a, s);
	}
	if (t) {
		count_n(&t->iv, &t->total, ev, n, period);
		task_active(a, t);
	}
	if (th) {
		count_n(&th->iv, &th->total, ev, n, period);
		task_active(a, th);
	}
}

/* n samples' self, task and CPU counts, their rows looked up already. */
static void sample_rows(struct agg *a, size_t ev, int cpu, struct agg_sym *s, struct agg_task *t, uint64_t n,
			uint64_t period)
{
	sample_counts(a, ev, cpu, n, period);
	if (t && a->keep_pairs && ev == 0 && s)
		aggp_add(a, t, s, n, period);
	rows_count(a, ev, s, t, t ? a->last_thread : NULL, n, period);
}

static inline struct agg_flat *flat_slot(struct agg *a, const struct agg_where *w)
{
	uint64_t h = (w->ip ^ (uint64_t)(uint32_t)w->tid << 40 ^ (uint64_t)w->kernel << 63) * 0x9e3779b97f4a7c15ull;

	return &a->flat[h >> (64 - AGG_FLAT_BITS)];
}

/* A slot's pending hits added to its rows, as sample_rows would have. */
static void flat_apply(struct agg *a, struct agg_flat *f)
{
	rows_count(a, f->pend_ev, f->sym, f->task, f->thread, f->pend_n, f->pend_period);
	f->pend_n = 0;
	f->pend_period = 0;
}

static void flat_settle(struct agg *a)
{
	for (size_t i = 0; i < a->flat_npend; i++) {
		struct agg_flat *f = &a->flat[a->flat_pend[i]];

		if (f->pend_n)
			flat_apply(a, f);
		f->listed = false;
	}
	a->flat_npend = 0;
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
		sample_rows(a, ev, cpu, f->sym, f->task, n, period);
		return true;
	}
	/* sample_rows, the three rows' counts left for agg_settle. */
	sample_counts(a, ev, cpu, n, period);
	if (!f->listed) {
		f->listed = true;
		a->flat_pend[a->flat_npend++] = (uint16_t)(f - a->flat);
	} else if (f->pend_n && (f->pend_ev != ev || f->pend_n > UINT32_MAX - n)) {
		flat_apply(a, f);
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
	s = sym_row(a, sr);
	t = task_row(a, w->pid, w->tid, sr);
	sample_rows(a, ev, cpu, s, t, n, period);
	/* Only rows found in full: a missing one may come at the next try. */
	if (w->tag == 0 || a->flat_off || s == NULL || t == NULL || a->last_thread == NULL || !flat_ready(a))
		return;
	f = flat_slot(a, w);
	if (f->pend_n)
		flat_apply(a, f); /* to the rows it held: they are still there */
	*f = (struct agg_flat){ .ip = w->ip, .tag = w->tag, .pid = w->pid, .tid = w->tid, .gen = a->rows_gen,
				.kernel = w->kernel, .listed = f->listed, .sym = s, .task = t, .thread = a->last_thread };
}

void agg_sample(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
		const struct sym_result *sr, uint64_t period)
{
	struct agg_where w = { .pid = pid, .tid = tid };

	agg_sample_at(a, ev, cpu, &w, sr, period);
}

#define AGG_STACK_MAX 512

/* Products summed, not chained: the multiplies run side by side. */
static uint64_t stack_hash(const struct agg_task *t, const struct sym_result *frames, size_t n)
{
	uint64_t h = (uint64_t)(uintptr_t)t ^ n;

	for (size_t i = 0; i < n; i++)
		h += frames[i].key * (0x9e3779b97f4a7c15ULL + 2 * i);
	h = hash64(h);
	return h ? h : 1;
}

/* The two ways of h's set. */
static inline struct agg_memo *memo_set(struct agg *a, uint64_t h)
{
	return &a->memo[(h & (AGG_MEMO_SLOTS / 2 - 1)) * 2];
}

/* The memo of this stack by this task under its name now, or NULL. */
static struct agg_memo *memo_find(struct agg *a, uint64_t h, const struct sym_result *frames, size_t n,
				  const struct agg_task *t)
{
	struct agg_memo *m = memo_set(a, h);

	if (m->hash != h && (++m)->hash != h)
		return NULL;
	if (m->n != n || m->comm_gen != t->comm_gen || t->comm_gen == 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (m->keys[i] != frames[i].key)
			return NULL;
	m->used = ++a->memo_tick;
	return m;
}

/* A way's pending hits added to its rows' children counts and its path's
 * nodes, as each hit would have. */
static void memo_apply(struct agg *a, struct agg_memo *m)
{
	bool mark = m->roll != a->rolls; /* else its rows and nodes are listed */
	size_t ev = m->pend_ev;

	for (size_t j = 0; j < m->nrows; j++) {
		struct agg_sym *s = m->rows[j];

		count_n(&s->ch_iv, &s->ch_total, ev, m->pend_n, m->pend_period);
		if (mark)
			sym_active(a, s);
	}
	cg_add_nodes(a->cg, ev, m->nodes, m->nnodes, m->pend_n, mark);
	m->roll = a->rolls;
	m->pend_n = m->pend_period = 0;
}

void agg_settle(struct agg *a)
{
	if (a->flat_npend)
		flat_settle(a);
	if (!a->memo_pending)
		return;
	a->memo_pending = false;
	for (size_t i = 0; i < AGG_MEMO_SLOTS; i++)
		if (a->memo[i].pend_n)
			memo_apply(a, &a->memo[i]);
}

/* Remembers what the long way found, in the way of its set used least
 * lately; out of memory, the way stays empty. */
static void memo_fill(struct agg *a, uint64_t h, const struct sym_result *frames, size_t n,
		      struct agg_sym *const *rows, size_t nrows, uint32_t leaf, uint64_t comm_gen)
{
	struct agg_memo *m = memo_set(a, h);

	if (m[0].hash != h && (m[1].hash == h || m[1].used < m[0].used))
		m++; /* way 1: its own, or older (an empty way is the oldest) */
	if (m->pend_n)
		memo_apply(a, m);
	m->hash = 0;
	if (m->cap < n) {
		size_t bytes = n * (sizeof(*m->keys) + sizeof(*m->rows)) + (n + 2) * sizeof(*m->nodes);
		uint64_t *p = realloc(m->keys, bytes);

		if (p == NULL)
			return;
		m->keys = p;
		m->cap = (uint32_t)n;
	}
	m->rows = (struct agg_sym **)(void *)(m->keys + m->cap);
	m->nodes = (uint32_t *)(void *)(m->rows + m->cap);
	/* root, comm and a node per frame */
	if ((m->nnodes = (uint32_t)cg_path_nodes(a->cg, leaf, m->nodes, n + 2)) == 0)
		return;
	for (size_t i = 0; i < n; i++)
		m->keys[i] = frames[i].key;
	memcpy(m->rows, rows, nrows * sizeof(*rows));
	m->n = (uint32_t)n;
	m->nrows = (uint32_t)nrows;
	m->comm_gen = comm_gen;
	m->roll = a->rolls;
	m->used = ++a->memo_tick;
	m->hash = h;
}

void agg_sample_stack(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
		      const struct sym_result *frames, size_t n, uint64_t period)
{
	const struct agg_sym *rows[AGG_STACK_MAX];
	struct agg_sym *dist[AGG_STACK_MAX];
	size_t k = 0, nd = 0;
	struct agg_task *t;
	struct agg_memo *m = NULL;
	uint64_t h = 0;
	uint32_t leaf;
	bool memo;

	if (ev >= a->nevents || n == 0)
		return;
	t = task_row(a, pid, tid, &frames[0]);
	memo = a->memo && !a->memo_off && t && n <= AGG_MEMO_FRAMES;
	if (memo) {
		h = stack_hash(t, frames, n);
		m = memo_find(a, h, frames, n, t);
	}
	if (m) {
		sample_rows(a, ev, cpu, m->rows[0], t, 1, period);
		if (m->pend_n && m->pend_ev != ev)
			memo_apply(a, m);
		m->pend_ev = ev;
		m->pend_n++;
		m->pend_period += period;
		a->memo_pending = true;
		a->memo_hits++;
		return;
	}
	sample_rows(a, ev, cpu, sym_row(a, &frames[0]), t, 1, period);
	if (a->cg == NULL) {
		a->cg = cg_new(a->nevents, a->cg_max ? a->cg_max : CG_MAX_NODES_DEFAULT);
		if (a->cg == NULL)
			return;
		a->memo = calloc(AGG_MEMO_SLOTS, sizeof(*a->memo)); /* NULL: no memo, same counts */
	}
	a->stamp++;
	for (size_t i = 0; i < n && k < AGG_STACK_MAX; i++) {
		struct agg_sym *s = sym_row(a, &frames[i]);

		if (s == NULL)
			continue;
		rows[k++] = s;
		s->in_cg = true; /* the call graph keeps pointers to it */
		if (s->stamp != a->stamp) {
			s->stamp = a->stamp;
			count(&s->ch_iv, &s->ch_total, ev, period);
			sym_active(a, s);
			dist[nd++] = s;
		}
	}
	leaf = cg_add_path(a->cg, ev, a->last_task ? a->last_task->comm : frames[0].comm, rows, k);
	/* Only a stack counted in full, under its task's name, is replayed. */
	if (memo && leaf != UINT32_MAX && k == n && a->last_task == t)
		memo_fill(a, h, frames, n, dist, nd, leaf, t->comm_gen);
}

const struct cg *agg_callgraph(struct agg *a)
{
	agg_settle(a);
	return a->cg;
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

void agg_task_comm(struct agg *a, pid_t pid, const char *comm)
{
	struct agg_task *t = map_get(&a->tasks, (uint64_t)pid + 1);

	if (t)
		set_comm(a, t, comm);
}

static void mark_exited(struct agg *a, struct agg_task *t)
{
	if (t == NULL || t->exited)
		return;
	t->exited = true;
	if (!t->aging) {
		t->aging = true;
		rowlist_push(a, &a->aging, t);
	}
}

void agg_task_new(struct agg *a, pid_t pid)
{
	struct agg_task *t = map_get(&a->tasks, (uint64_t)pid + 1);
	struct agg_task *th = map_get(&a->tids, (uint64_t)pid + 1);

	bool reset = false;

	if ((t && t->exited) || (th && th->exited))
		agg_settle(a); /* hits of the old owners', before their counts fold */
	if (t && t->exited) {
		task_fold(a, t);
		task_reset(t, pid, a->nevents);
		reset = true;
	}
	if (th && th->exited) {
		task_fold(a, th);
		task_reset(th, pid, a->nevents);
		reset = true;
	}
	a->last_task = a->last_thread = NULL;
	if (reset) /* new owners: named and counted afresh at their next sample */
		rows_moved(a);
}

void agg_task_exit(struct agg *a, pid_t pid)
{
	mark_exited(a, map_get(&a->tasks, (uint64_t)pid + 1));
	agg_thread_exit(a, pid);
}

void agg_thread_comm(struct agg *a, pid_t tid, const char *comm)
{
	struct agg_task *t = map_get(&a->tids, (uint64_t)tid + 1);

	if (t)
		set_comm(a, t, comm);
}

void agg_thread_exit(struct agg *a, pid_t tid)
{
	mark_exited(a, map_get(&a->tids, (uint64_t)tid + 1));
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
		struct agg_sym *s = a->syms.tab[i].row;

		if (s == NULL)
			continue;
		s->active = false;
		if (!counts_zero(&s->iv, a->nevents) || !counts_zero(&s->ch_iv, a->nevents))
			sym_active(a, s);
	}
	for (int m = 0; m < 2; m++) {
		struct map *map = m ? &a->tids : &a->tasks;

		for (size_t i = 0; i <= map->mask; i++) {
			struct agg_task *t = map->tab[i].row;

			if (t == NULL)
				continue;
			t->active = t->aging = false;
			if (!counts_zero(&t->iv, a->nevents))
				task_active(a, t);
			if (t->exited) {
				t->aging = true;
				rowlist_push(a, &a->aging, t);
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
	add_counts(&a->st.sym_expired, &s->total, a->nevents);
	add_counts(&a->st.sym_ch_expired, &s->ch_total, a->nevents);
	a->st.expired_syms++;
	map_del(&a->syms, s->key, s);
	dead_push(&a->dead_syms, s);
	s->gone = true; /* flat_forget */
}

static void task_expire(struct agg *a, struct agg_task *t)
{
	if (t->gone)
		return;
	t->gone = true;
	task_fold(a, t);
	if (t->is_thread)
		map_del(&a->tids, (uint64_t)t->tid + 1, t);
	else
		map_del(&a->tasks, (uint64_t)t->pid + 1, t);
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
		if (s->idle_since + AGG_EXPIRE_IDLE <= a->rolls) {
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
		if (t->idle_since + AGG_EXPIRE_IDLE <= a->rolls) {
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
		dead_free(a);
	a->rolls++;
	if (decay_pct > 100)
		decay_pct = 100;
	aggp_clear(a); /* first: the rows they point to may go below */
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
	if (a->cg)
		cg_roll(a->cg, decay_pct);
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
		if (++t->exited_ticks > AGG_EXIT_GRACE) {
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
		map_shrink(&a->syms, 1024);
	gone += expire_tasks(a);
	if (n || gone)
		flat_forget(a);
	if (gone) {
		rowlist_purge(&a->act_tasks);
		rowlist_purge(&a->aging);
		idleq_purge(&a->idle_tasks);
		map_shrink(&a->tasks, 256);
		map_shrink(&a->tids, 256);
	}
}
