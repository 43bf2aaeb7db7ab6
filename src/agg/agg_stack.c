/* SPDX-License-Identifier: GPL-2.0-or-later */
/* agg_stack: the samples with a stack (-g): children counts, the call
 * graph, and the stack memo that replays a stack counted before. */
#include "agg_int.h"

#include <stdlib.h>
#include <string.h>

#include "callgraph.h"

#define AGG_STACK_MAX 512

/* Products summed, not chained: the multiplies run side by side. */
static uint64_t stack_hash(const struct agg_task *t, const struct sym_result *frames, size_t n)
{
	uint64_t h = (uint64_t)(uintptr_t)t ^ n;

	for (size_t i = 0; i < n; i++)
		h += frames[i].key * (0x9e3779b97f4a7c15ULL + 2 * i);
	h = agg_hash64(h);
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



/* Remembers what the long way found, in the way of its set used least
 * lately; out of memory, the way stays empty. */
static void memo_fill(struct agg *a, uint64_t h, const struct sym_result *frames, size_t n,
		      struct agg_sym *const *rows, size_t nrows, uint32_t leaf, uint64_t comm_gen)
{
	struct agg_memo *m = memo_set(a, h);

	if (m[0].hash != h && (m[1].hash == h || m[1].used < m[0].used))
		m++; /* way 1: its own, or older (an empty way is the oldest) */
	if (m->pend_n)
		agg_settle_memo(a, m);
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
	if ((m->nnodes = (uint32_t)callgraph_path_nodes(a->cg, leaf, m->nodes, n + 2)) == 0)
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

/* The path just added counted hits - 1 more times (agg_sample_stack_n). */
static void stack_hits(struct agg *a, size_t ev, uint32_t leaf, size_t k, uint64_t more)
{
	uint32_t nodes[AGG_STACK_MAX + 2];
	size_t nn = callgraph_path_nodes(a->cg, leaf, nodes, k + 2 <= AGG_STACK_MAX + 2 ? k + 2 : AGG_STACK_MAX + 2);

	if (nn)
		callgraph_add_nodes(a->cg, ev, nodes, nn, more, false);
}

void agg_sample_stack(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
		      const struct sym_result *frames, size_t n, uint64_t period)
{
	agg_sample_stack_n(a, ev, cpu, pid, tid, frames, n, 1, period);
}

void agg_sample_stack_n(struct agg *a, size_t ev, int cpu, pid_t pid, pid_t tid,
			const struct sym_result *frames, size_t n, uint64_t hits, uint64_t period)
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
	t = agg_tasks_row(a, pid, tid, &frames[0]);
	memo = a->memo && !a->memo_off && t && n <= AGG_MEMO_FRAMES;
	if (memo) {
		h = stack_hash(t, frames, n);
		m = memo_find(a, h, frames, n, t);
	}
	if (m) {
		agg_sample_rows(a, ev, cpu, m->rows[0], t, hits, period, frames[0].sym_off);
		if (m->pend_n && m->pend_ev != ev)
			agg_settle_memo(a, m);
		m->pend_ev = ev;
		m->pend_n += hits;
		m->pend_period += period;
		a->memo_pending = true;
		a->memo_hits++;
		return;
	}
	agg_sample_rows(a, ev, cpu, agg_sym_row(a, &frames[0]), t, hits, period, frames[0].sym_off);
	if (a->cg == NULL) {
		a->cg = callgraph_new(a->nevents, a->cg_max ? a->cg_max : CG_MAX_NODES_DEFAULT);
		if (a->cg == NULL)
			return;
		a->memo = calloc(AGG_MEMO_SLOTS, sizeof(*a->memo)); /* NULL: no memo, same counts */
	}
	a->stamp++;
	for (size_t i = 0; i < n && k < AGG_STACK_MAX; i++) {
		struct agg_sym *s = agg_sym_row(a, &frames[i]);

		if (s == NULL)
			continue;
		rows[k++] = s;
		s->pid = pid;
		s->in_cg = true; /* the call graph keeps pointers to it */
		if (s->stamp != a->stamp) {
			s->stamp = a->stamp;
			agg_count_n(&s->ch_iv, &s->ch_total, ev, hits, period);
			agg_sym_active(a, s);
			dist[nd++] = s;
		}
	}
	leaf = callgraph_add_path(a->cg, ev, a->last_task ? a->last_task->comm : frames[0].comm, rows, k);
	if (hits > 1 && leaf != UINT32_MAX)
		stack_hits(a, ev, leaf, k, hits - 1);
	/* Only a stack counted in full, under its task's name, is replayed. */
	if (memo && leaf != UINT32_MAX && k == n && a->last_task == t)
		memo_fill(a, h, frames, n, dist, nd, leaf, t->comm_gen);
}

const struct cg *agg_callgraph(struct agg *a)
{
	agg_settle(a);
	return a->cg;
}
