/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spans: the open span of each thread by tid (htab -> index + 1 into an
 * array of slots, a slot's stack buffer reused by its next span: no
 * allocation per switch once a thread has been seen), and the blocked time
 * rows by tid and by pid (key with bit 32 set). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "spans.h"

const char *const spans_state_names[SPANS_NSTATES] = { "S", "D", "R" };

struct slot {
	pid_t pid, tid;
	int cpu;
	bool open;
	enum spans_state state;
	uint64_t start;
	uint64_t *words;
	size_t nwords, cap;
};

struct row {
	pid_t pid, tid;
	struct spans_time t;
};

struct spans {
	uint64_t thresh;
	struct htab open;        /* tid -> slot index + 1 */
	struct slot *slots;
	size_t nslots, cap;
	struct htab rows;        /* key -> row index + 1 */
	struct row *row;
	size_t nrows, rcap;
	struct spans_stats st;
};

/* The kernel's __trace_sched_switch_state: TASK_RUNNING 0, the report bits
 * (1 S, 2 D, 4 T, ... 0x80 I), and TASK_REPORT_MAX (the bit above) when the
 * task was preempted. */
enum spans_state spans_state_of(int64_t prev_state)
{
	if (prev_state == 0 || prev_state >= 0x100)
		return SPANS_R;
	if (prev_state & 2)
		return SPANS_D;
	return SPANS_S;
}

struct spans *spans_new(uint64_t thresh_ns)
{
	struct spans *sp = calloc(1, sizeof(*sp));

	if (sp == NULL)
		return NULL;
	sp->thresh = thresh_ns;
	if (htab_init(&sp->open, 64) || htab_init(&sp->rows, 64)) {
		spans_free(sp);
		return NULL;
	}
	return sp;
}

void spans_free(struct spans *sp)
{
	if (sp == NULL)
		return;
	for (size_t i = 0; i < sp->nslots; i++)
		free(sp->slots[i].words);
	free(sp->slots);
	free(sp->row);
	htab_free(&sp->open);
	htab_free(&sp->rows);
	free(sp);
}

void spans_set_thresh(struct spans *sp, uint64_t thresh_ns) { sp->thresh = thresh_ns; }

static struct slot *slot_of(struct spans *sp, pid_t tid, bool make)
{
	uintptr_t v = htab_get(&sp->open, (uint64_t)(uint32_t)tid);

	if (v)
		return &sp->slots[v - 1];
	if (!make)
		return NULL;
	if (sp->nslots == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 64;
		struct slot *n = reallocarray(sp->slots, cap, sizeof(*n));

		if (n == NULL)
			return NULL;
		sp->slots = n;
		sp->cap = cap;
	}
	if (htab_put(&sp->open, (uint64_t)(uint32_t)tid, sp->nslots + 1))
		return NULL;
	memset(&sp->slots[sp->nslots], 0, sizeof(struct slot));
	sp->slots[sp->nslots].tid = tid;
	return &sp->slots[sp->nslots++];
}

int spans_out(struct spans *sp, pid_t pid, pid_t tid, int cpu, uint64_t time, enum spans_state state,
	      const uint64_t *words, size_t nwords)
{
	struct slot *s = slot_of(sp, tid, true);

	if (s == NULL)
		return -ENOMEM;
	sp->st.outs++;
	if (s->open)
		sp->st.open--; /* its switch-in never came: not charged */
	if (nwords > s->cap) {
		uint64_t *w = reallocarray(s->words, nwords, sizeof(*w));

		if (w == NULL) {
			s->open = false;
			return -ENOMEM;
		}
		s->words = w;
		s->cap = nwords;
	}
	if (nwords)
		memcpy(s->words, words, nwords * sizeof(*words));
	s->nwords = nwords;
	s->pid = pid;
	s->cpu = cpu;
	s->state = state;
	s->start = time;
	s->open = true;
	sp->st.open++;
	return 0;
}

static struct row *row_of(struct spans *sp, pid_t pid, pid_t tid)
{
	uint64_t key = tid ? (uint64_t)(uint32_t)tid : (1ull << 32) | (uint32_t)pid;
	uintptr_t v = htab_get(&sp->rows, key);

	if (v)
		return &sp->row[v - 1];
	if (sp->nrows == sp->rcap) {
		size_t cap = sp->rcap ? 2 * sp->rcap : 64;
		struct row *n = reallocarray(sp->row, cap, sizeof(*n));

		if (n == NULL)
			return NULL;
		sp->row = n;
		sp->rcap = cap;
	}
	if (htab_put(&sp->rows, key, sp->nrows + 1))
		return NULL;
	memset(&sp->row[sp->nrows], 0, sizeof(struct row));
	sp->row[sp->nrows].pid = pid;
	sp->row[sp->nrows].tid = tid;
	return &sp->row[sp->nrows++];
}

static void charge(struct spans *sp, pid_t pid, pid_t tid, enum spans_state st, uint64_t ns)
{
	struct row *r = row_of(sp, pid, 0);

	if (r) {
		r->t.iv[st] += ns;
		r->t.total[st] += ns;
	}
	if ((r = row_of(sp, pid, tid)) != NULL) {
		r->pid = pid; /* a tid reused by another process */
		r->t.iv[st] += ns;
		r->t.total[st] += ns;
	}
}

bool spans_in(struct spans *sp, pid_t tid, uint64_t time, struct spans_span *out)
{
	struct slot *s = slot_of(sp, tid, false);

	sp->st.ins++;
	if (s == NULL || !s->open)
		return false;
	s->open = false;
	sp->st.open--;
	if (time < s->start)
		return false;
	if (time - s->start < sp->thresh) {
		sp->st.short_spans++;
		return false;
	}
	sp->st.spans++;
	charge(sp, s->pid, tid, s->state, time - s->start);
	*out = (struct spans_span){ .pid = s->pid, .tid = tid, .cpu = s->cpu, .state = s->state, .start = s->start,
				    .ns = time - s->start, .words = s->words, .nwords = s->nwords };
	return true;
}

static uint64_t drop_open(struct spans *sp)
{
	uint64_t n = 0;

	for (size_t i = 0; i < sp->nslots; i++)
		if (sp->slots[i].open) {
			sp->slots[i].open = false;
			n++;
		}
	sp->st.open = 0;
	return n;
}

/* A switch-in can land on any CPU: a record lost on one may have ended a
 * span begun on another, so none still open can be trusted. */
void spans_lost(struct spans *sp, int cpu, uint64_t n)
{
	(void)cpu;
	sp->st.lost_records += n;
	sp->st.lost_spans += drop_open(sp);
}

void spans_drop_open(struct spans *sp) { (void)drop_open(sp); }

void spans_exit(struct spans *sp, pid_t tid)
{
	struct slot *s = slot_of(sp, tid, false);

	if (s && s->open) {
		s->open = false;
		sp->st.open--;
	}
}

bool spans_task(const struct spans *sp, pid_t pid, pid_t tid, struct spans_time *out)
{
	uint64_t key = tid ? (uint64_t)(uint32_t)tid : (1ull << 32) | (uint32_t)pid;
	uintptr_t v = htab_get(&sp->rows, key);

	if (v == 0 || (tid && sp->row[v - 1].pid != pid)) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	*out = sp->row[v - 1].t;
	return true;
}

void spans_each(const struct spans *sp, void (*fn)(void *arg, pid_t pid, pid_t tid, const struct spans_time *t),
		void *arg)
{
	for (size_t i = 0; i < sp->nrows; i++)
		fn(arg, sp->row[i].pid, sp->row[i].tid, &sp->row[i].t);
}

void spans_roll(struct spans *sp)
{
	for (size_t i = 0; i < sp->nrows; i++)
		memset(sp->row[i].t.iv, 0, sizeof(sp->row[i].t.iv));
}

void spans_stats(const struct spans *sp, struct spans_stats *st) { *st = sp->st; }
