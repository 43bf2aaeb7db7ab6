/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spans: the open span of each thread by tid (htab -> index + 1 into an
 * array of slots: no allocation per switch once a thread has been seen),
 * the stacks by id (an array, ids reused through a free list; htab from the
 * key's hash -> id, the key compared), the pending charges (an array, htab
 * from their key's hash -> index + 1; a charge taken leaves its entry for
 * its key's next span until everything is taken), and the blocked time
 * rows by tid and by pid (key with bit 32 set). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "spans.h"
#include "util.h"

const char *const spans_state_names[SPANS_NSTATES] = { "S", "D", "R" };

struct slot {
	pid_t pid, tid;
	int cpu;
	bool open;
	enum spans_state state;
	uint64_t start;
	uint32_t stack;
};

/* A stack: its key then its words in one block. */
struct stack {
	uint64_t hash;           /* of the key; 0: a free id */
	uint64_t used;           /* the roll it was last used in */
	uint32_t nkey, nwords;
	uint32_t woff;           /* where the words start in mem: nkey, or 0 (the key is the words) */
	uint32_t next_free;      /* free: the next free id, 0 none */
	uint64_t *mem;
};

struct row {
	pid_t pid, tid;
	struct spans_time t;
};

#define PEND_PID_BITS 1024

static inline uint32_t pid_bit(pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) >> 22; /* the top 10 bits: 0..1023 */
}

struct spans {
	uint64_t thresh;
	struct htab open;        /* tid -> slot index + 1 */
	struct slot *slots;
	size_t nslots, cap;
	struct htab rows;        /* key -> row index + 1 */
	struct row *row;
	size_t nrows, rcap;
	struct htab stack_ix;    /* key hash -> id */
	struct stack *stk;       /* id - 1 */
	size_t nstk, scap;
	uint32_t free_id;        /* the first free id, 0 none */
	struct htab pend_ix;     /* charge key hash -> index + 1 */
	struct spans_charge *pend;
	size_t npend, pcap;
	uint64_t pend_since;
	/* A bit per pid hash with charges pending: a process's COMM, FORK,
	 * EXIT and MMAP each take its own, and most have none. */
	uint64_t pend_pids[PEND_PID_BITS / 64];
	uint64_t rolls;
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
	if (htab_init(&sp->open, 64) || htab_init(&sp->rows, 64) || htab_init(&sp->stack_ix, 64) ||
	    htab_init(&sp->pend_ix, 64)) {
		spans_free(sp);
		return NULL;
	}
	return sp;
}

void spans_free(struct spans *sp)
{
	if (sp == NULL)
		return;
	for (size_t i = 0; i < sp->nstk; i++)
		free(sp->stk[i].mem);
	free(sp->stk);
	free(sp->slots);
	free(sp->row);
	htab_free(&sp->open);
	htab_free(&sp->rows);
	htab_free(&sp->stack_ix);
	htab_free(&sp->pend_ix);
	free(sp->pend);
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
	if (!util_grow((void **)&sp->slots, &sp->cap, sp->nslots + 1, sizeof(*sp->slots)))
		return NULL;
	if (htab_put(&sp->open, (uint64_t)(uint32_t)tid, sp->nslots + 1))
		return NULL;
	memset(&sp->slots[sp->nslots], 0, sizeof(struct slot));
	sp->slots[sp->nslots].tid = tid;
	return &sp->slots[sp->nslots++];
}

/* Products summed, not chained: the multiplies run side by side. */
static uint64_t key_hash(const uint64_t *key, size_t n)
{
	uint64_t h = n;

	for (size_t i = 0; i < n; i++)
		h += key[i] * (0x9e3779b97f4a7c15ULL + 2 * i);
	h = htab_mix64(h);
	return h ? h : 1;
}

static uint32_t stack_find(struct spans *sp, uint64_t h, const uint64_t *key, size_t nkey)
{
	for (size_t i = htab_first(&sp->stack_ix, h); i != SIZE_MAX; i = htab_next(&sp->stack_ix, h, i)) {
		uint32_t id = (uint32_t)sp->stack_ix.tab[i].val;
		const struct stack *k = &sp->stk[id - 1];

		if (k->nkey == nkey && memcmp(k->mem, key, nkey * sizeof(*key)) == 0)
			return id;
	}
	return 0;
}

/* A free id (its entry zeroed), or 0. */
static uint32_t stack_id_new(struct spans *sp)
{
	uint32_t id = sp->free_id;

	if (id) {
		sp->free_id = sp->stk[id - 1].next_free;
		return id;
	}
	if (sp->nstk == UINT32_MAX - 1)
		return 0;
	if (!util_grow((void **)&sp->stk, &sp->scap, sp->nstk + 1, sizeof(*sp->stk)))
		return 0;
	memset(&sp->stk[sp->nstk], 0, sizeof(struct stack));
	return (uint32_t)++sp->nstk;
}

static void stack_id_free(struct spans *sp, uint32_t id)
{
	struct stack *k = &sp->stk[id - 1];

	free(k->mem);
	memset(k, 0, sizeof(*k));
	k->next_free = sp->free_id;
	sp->free_id = id;
	sp->st.stacks--;
}

uint32_t spans_stack(struct spans *sp, const uint64_t *key, size_t nkey, spans_words_fn make, void *arg)
{
	uint64_t words[SPANS_WORDS_MAX], h;
	size_t nw = nkey;
	uint32_t id;
	struct stack *k;

	if (nkey == 0 || nkey > SPANS_WORDS_MAX)
		return 0;
	h = key_hash(key, nkey);
	if ((id = stack_find(sp, h, key, nkey)) != 0) {
		sp->stk[id - 1].used = sp->rolls;
		sp->st.stack_hits++;
		return id;
	}
	sp->st.stack_misses++;
	if (make)
		nw = make(arg, words, SPANS_WORDS_MAX);
	if ((id = stack_id_new(sp)) == 0)
		return 0;
	k = &sp->stk[id - 1];
	/* The key, then the words (the key itself when make is NULL). */
	k->mem = malloc((nkey + (make ? nw : 0)) * sizeof(*k->mem) + 1);
	if (k->mem == NULL || htab_put(&sp->stack_ix, h, id)) {
		free(k->mem);
		k->mem = NULL;
		k->next_free = sp->free_id;
		sp->free_id = id;
		return 0;
	}
	memcpy(k->mem, key, nkey * sizeof(*key));
	if (make && nw)
		memcpy(k->mem + nkey, words, nw * sizeof(*words));
	k->hash = h;
	k->nkey = (uint32_t)nkey;
	k->nwords = (uint32_t)nw;
	k->woff = make ? (uint32_t)nkey : 0;
	k->used = sp->rolls;
	sp->st.stacks++;
	return id;
}

void spans_stack_unkey(struct spans *sp, uint32_t id)
{
	struct stack *k = id && id <= sp->nstk ? &sp->stk[id - 1] : NULL;

	/* Off the index only: spans and charges holding the id keep it until a
	 * roll finds it unused (used + 1 < rolls: a stamp of 0 is old by then). */
	if (k && k->hash && htab_del(&sp->stack_ix, k->hash, (uintptr_t)id))
		k->used = 0;
}

const uint64_t *spans_stack_words(const struct spans *sp, uint32_t id, size_t *nwords)
{
	const struct stack *k;

	*nwords = 0;
	if (id == 0 || id > sp->nstk || (k = &sp->stk[id - 1])->hash == 0)
		return NULL;
	*nwords = k->nwords;
	return k->mem + k->woff;
}

int spans_out(struct spans *sp, pid_t pid, pid_t tid, int cpu, uint64_t time, enum spans_state state,
	      uint32_t stack)
{
	struct slot *s = slot_of(sp, tid, true);

	if (s == NULL)
		return -ENOMEM;
	sp->st.outs++;
	if (s->open)
		sp->st.open--; /* its switch-in never came: not charged */
	s->stack = stack;
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
	if (!util_grow((void **)&sp->row, &sp->rcap, sp->nrows + 1, sizeof(*sp->row)))
		return NULL;
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
				    .ns = time - s->start, .stack = s->stack };
	return true;
}

uint64_t spans_us(uint64_t ns)
{
	return ns >= 1500 ? (ns + 500) / 1000 : 1;
}

static uint64_t pend_hash(const struct spans_span *s)
{
	return htab_mix64((uint64_t)s->stack << 32 ^ (uint64_t)(uint32_t)s->tid ^ (uint64_t)(uint32_t)s->cpu << 48);
}

/* n spans of us and ns in all added to s's pending charge. */
static int pend_add(struct spans *sp, const struct spans_span *s, uint64_t now, uint64_t n, uint64_t us, uint64_t ns)
{
	uint64_t h = pend_hash(s);
	struct spans_charge *c = NULL;

	for (size_t i = htab_first(&sp->pend_ix, h); i != SIZE_MAX; i = htab_next(&sp->pend_ix, h, i)) {
		struct spans_charge *q = &sp->pend[sp->pend_ix.tab[i].val - 1];

		if (q->stack == s->stack && q->tid == s->tid && q->cpu == s->cpu && q->pid == s->pid) {
			c = q;
			break;
		}
	}
	if (c == NULL) {
		if (!util_grow((void **)&sp->pend, &sp->pcap, sp->npend + 1, sizeof(*sp->pend)))
			return -ENOMEM;
		if (htab_put(&sp->pend_ix, h, sp->npend + 1))
			return -ENOMEM;
		c = &sp->pend[sp->npend++];
		*c = (struct spans_charge){ .stack = s->stack, .pid = s->pid, .tid = s->tid, .cpu = s->cpu };
	}
	if (sp->pend_since == 0)
		sp->pend_since = now ? now : 1;
	sp->pend_pids[pid_bit(s->pid) / 64] |= 1ull << (pid_bit(s->pid) % 64);
	c->spans += n;
	c->us += us;
	c->ns += ns;
	return 0;
}

int spans_pend(struct spans *sp, const struct spans_span *s, uint64_t now)
{
	return pend_add(sp, s, now, 1, spans_us(s->ns), s->ns);
}

int spans_add(struct spans *sp, const struct spans_sum *sum, uint64_t now)
{
	struct spans_span s = { .pid = sum->pid, .tid = sum->tid, .cpu = sum->cpu, .state = sum->state,
				.stack = sum->stack };

	if (sum->spans == 0)
		return 0;
	sp->st.spans += sum->spans;
	charge(sp, sum->pid, sum->tid, sum->state, sum->ns);
	return pend_add(sp, &s, now, sum->spans, sum->us, sum->ns);
}

void spans_note(struct spans *sp, uint64_t outs, uint64_t ins, uint64_t short_spans, uint64_t lost_spans)
{
	sp->st.outs += outs;
	sp->st.ins += ins;
	sp->st.short_spans += short_spans;
	sp->st.lost_spans += lost_spans;
}

uint64_t spans_pend_since(const struct spans *sp) { return sp->pend_since; }

void spans_take(struct spans *sp, pid_t pid, void (*fn)(void *arg, const struct spans_charge *c), void *arg)
{
	if (pid >= 0 && !(sp->pend_pids[pid_bit(pid) / 64] >> (pid_bit(pid) % 64) & 1))
		return;
	for (size_t i = 0; i < sp->npend; i++) {
		struct spans_charge *c = &sp->pend[i];

		if (c->spans && (pid < 0 || c->pid == pid)) {
			fn(arg, c);
			sp->st.charges++;
			c->spans = c->us = c->ns = 0;
		}
	}
	if (pid < 0) {
		htab_clear(&sp->pend_ix);
		sp->npend = 0;
		sp->pend_since = 0;
		memset(sp->pend_pids, 0, sizeof(sp->pend_pids));
	}
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
	/* An open span's stack is in use however long it sleeps; a pending
	 * charge's until it is taken. */
	for (size_t i = 0; i < sp->nslots; i++)
		if (sp->slots[i].open && sp->slots[i].stack)
			sp->stk[sp->slots[i].stack - 1].used = sp->rolls;
	for (size_t i = 0; i < sp->npend; i++)
		if (sp->pend[i].spans && sp->pend[i].stack)
			sp->stk[sp->pend[i].stack - 1].used = sp->rolls;
	for (size_t i = 0; i < sp->nstk; i++) {
		struct stack *k = &sp->stk[i];

		/* Used neither in the interval ending nor the one before. */
		if (k->hash && k->used + 1 < sp->rolls) {
			(void)htab_del(&sp->stack_ix, k->hash, (uintptr_t)(i + 1));
			stack_id_free(sp, (uint32_t)(i + 1));
		}
	}
	htab_shrink(&sp->stack_ix, 64);
	sp->rolls++;
}

void spans_stats(const struct spans *sp, struct spans_stats *st) { *st = sp->st; }
