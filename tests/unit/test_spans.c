/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spans: switch-outs and switch-ins across CPUs, states, the threshold,
 * losses dropping what was open, the per-task and thread sums, and the
 * stacks kept once by id. */
#include "check.h"
#include "spans.h"

#define MS 1000000ull

static void test_states(void)
{
	CHECK(spans_state_of(1) == SPANS_S && spans_state_of(2) == SPANS_D && spans_state_of(0) == SPANS_R &&
	      spans_state_of(0x100) == SPANS_R && spans_state_of(0x80) == SPANS_S,
	      "prev_state: 1 S, 2 D, 0 and preempted (TASK_REPORT_MAX) R, idle I as S");
}

static void test_spans(void)
{
	struct spans *sp = spans_new(0);
	struct spans_span s;
	struct spans_time t;
	struct spans_stats st;
	uint64_t words[3] = { 2, 0xaaa, 0xbbb };
	uint32_t id;

	CHECK(sp != NULL, "spans_new");
	id = spans_stack(sp, words, 3, NULL, NULL);
	CHECK(spans_out(sp, 100, 101, 0, 10 * MS, SPANS_S, id) == 0, "a switch-out");
	CHECK(!spans_in(sp, 102, 11 * MS, &s), "another thread's switch-in ends nothing");
	CHECK(spans_in(sp, 101, 25 * MS, &s) && s.ns == 15 * MS && s.pid == 100 && s.tid == 101 && s.cpu == 0 &&
	      s.state == SPANS_S && s.stack == id && id != 0,
	      "its switch-in (any CPU) ends the span: 15 ms, the switch-out's stack and state");
	CHECK(!spans_in(sp, 101, 30 * MS, &s), "a second switch-in ends nothing (no span open)");
	spans_out(sp, 100, 101, 1, 40 * MS, SPANS_D, id);
	spans_out(sp, 100, 103, 1, 41 * MS, SPANS_R, 0);
	CHECK(spans_in(sp, 101, 42 * MS, &s) && s.state == SPANS_D && s.ns == 2 * MS, "a D span");
	CHECK(spans_in(sp, 103, 44 * MS, &s) && s.state == SPANS_R && s.ns == 3 * MS, "an R span of another thread");
	CHECK(spans_task(sp, 100, 0, &t) && t.iv[SPANS_S] == 15 * MS && t.iv[SPANS_D] == 2 * MS &&
	      t.iv[SPANS_R] == 3 * MS, "the process sums its threads per state");
	CHECK(spans_task(sp, 100, 101, &t) && t.iv[SPANS_S] == 15 * MS && t.iv[SPANS_R] == 0, "the thread its own");
	CHECK(!spans_task(sp, 999, 101, &t), "a thread row asked under another pid is not it");
	spans_roll(sp);
	CHECK(spans_task(sp, 100, 0, &t) && t.iv[SPANS_S] == 0 && t.total[SPANS_S] == 15 * MS,
	      "a roll empties the interval, keeps the total");
	/* A switch-out whose switch-in never came is replaced, not charged. */
	spans_out(sp, 100, 101, 0, 50 * MS, SPANS_S, id);
	spans_out(sp, 100, 101, 0, 60 * MS, SPANS_S, id);
	CHECK(spans_in(sp, 101, 61 * MS, &s) && s.ns == 1 * MS, "a second switch-out restarts the span");
	spans_stats(sp, &st);
	CHECK(st.spans == 4 && st.open == 0, "4 spans charged, none open (%llu, %llu)", (unsigned long long)st.spans,
	      (unsigned long long)st.open);
	spans_free(sp);
}

static void test_thresh_and_loss(void)
{
	struct spans *sp = spans_new(5 * MS);
	struct spans_span s;
	struct spans_stats st;
	struct spans_time t;

	spans_out(sp, 1, 2, 0, 0, SPANS_S, 0);
	CHECK(!spans_in(sp, 2, 4 * MS, &s), "a span below --off-cpu-thresh is dropped");
	spans_out(sp, 1, 2, 0, 10 * MS, SPANS_S, 0);
	CHECK(spans_in(sp, 2, 15 * MS, &s) && s.ns == 5 * MS, "one at the threshold is kept");
	/* A loss on CPU 1 drops every open span, begun on any CPU: the lost
	 * records may have held the switch-in of any of them. */
	spans_out(sp, 1, 2, 0, 20 * MS, SPANS_S, 0);
	spans_out(sp, 1, 3, 1, 20 * MS, SPANS_S, 0);
	spans_lost(sp, 1, 7);
	CHECK(!spans_in(sp, 2, 90 * MS, &s) && !spans_in(sp, 3, 90 * MS, &s),
	      "spans open across a loss are not charged (their ends may be lost)");
	spans_stats(sp, &st);
	CHECK(st.lost_records == 7 && st.lost_spans == 2 && st.short_spans == 1,
	      "counted: 7 lost records, 2 spans dropped, 1 short");
	spans_task(sp, 1, 0, &t);
	CHECK(t.total[SPANS_S] == 5 * MS, "only the known span is charged");
	spans_out(sp, 1, 3, 1, 100 * MS, SPANS_S, 0);
	spans_exit(sp, 3);
	CHECK(!spans_in(sp, 3, 110 * MS, &s), "an exited thread's open span goes");
	spans_free(sp);
}

static unsigned made, cramped;

/* Words from a key: its first word doubled (standing for the scheduler's
 * frames left out), counted. */
static size_t make(void *arg, uint64_t *w, size_t max)
{
	const uint64_t *key = arg;

	made++;
	if (max < 2)
		return cramped++, 0;
	w[0] = key[0] * 2;
	w[1] = 7;
	return 2;
}

static void test_stacks(void)
{
	struct spans *sp = spans_new(0);
	struct spans_span s;
	struct spans_stats st;
	uint64_t k1[3] = { 1, 2, 3 }, k2[3] = { 1, 2, 4 }, k3[2] = { 1, 2 };
	const uint64_t *w;
	size_t n;
	uint32_t a, b, c;

	a = spans_stack(sp, k1, 3, make, k1);
	CHECK(a != 0 && made == 1, "a new stack's words are worked out");
	CHECK(spans_stack(sp, k1, 3, make, k1) == a && made == 1, "the same key again: the same id, nothing worked out");
	b = spans_stack(sp, k2, 3, make, k2);
	c = spans_stack(sp, k3, 2, make, k3);
	CHECK(b != a && c != a && c != b && made == 3, "a key differing in a word, or in length, is another stack");
	w = spans_stack_words(sp, a, &n);
	CHECK(w && n == 2 && w[0] == 2 && w[1] == 7, "the words kept are make's, not the key");
	w = spans_stack_words(sp, spans_stack(sp, k1, 3, NULL, NULL), &n);
	CHECK(w && n == 2 && w[0] == 2, "found by key, whatever the caller would make");
	CHECK(spans_stack(sp, k1, 0, NULL, NULL) == 0 && spans_stack_words(sp, 0, &n) == NULL && n == 0,
	      "no key, no stack; id 0 has no words");
	spans_stats(sp, &st);
	CHECK(st.stacks == 3 && st.stack_hits == 2 && st.stack_misses == 3, "3 kept, 2 found, 3 made");

	/* a is held by an open span through every roll; b is used in the
	 * next interval; c never again. */
	spans_out(sp, 1, 2, 0, 0, SPANS_S, a);
	spans_roll(sp);
	spans_stack(sp, k2, 3, make, k2);
	spans_roll(sp);
	CHECK(spans_stack_words(sp, c, &n) != NULL, "a stack used in the interval before the last stays");
	spans_roll(sp);
	CHECK(spans_stack_words(sp, c, &n) == NULL, "a stack no span used for two whole intervals goes");
	CHECK(spans_stack_words(sp, b, &n) != NULL, "one used in the interval before stays");
	spans_roll(sp);
	CHECK(spans_stack_words(sp, b, &n) == NULL, "and goes a roll later");
	CHECK(spans_stack_words(sp, a, &n) != NULL && spans_in(sp, 2, 5 * MS, &s) && s.stack == a,
	      "a stack an open span holds stays however long it sleeps");
	spans_stats(sp, &st);
	CHECK(st.stacks == 1, "one stack kept (%llu)", (unsigned long long)st.stacks);
	made = 0;
	CHECK(spans_stack(sp, k3, 2, make, k3) != 0 && made == 1, "a stack that went is worked out anew");
	CHECK(spans_stack(sp, k1, 3, make, k1) == a && made == 1, "the kept one still found");
	CHECK(cramped == 0, "make was given room");
	spans_free(sp);
}

struct took {
	struct spans_charge c[8];
	size_t n;
};

static void take(void *arg, const struct spans_charge *c)
{
	struct took *t = arg;

	if (t->n < 8)
		t->c[t->n++] = *c;
}

static void test_pending(void)
{
	struct spans *sp = spans_new(0);
	struct spans_span s;
	struct spans_stats st;
	struct took t = { .n = 0 };
	uint64_t k[2] = { 5, 6 };
	uint32_t id = spans_stack(sp, k, 2, NULL, NULL);

	CHECK(spans_us(400) == 1 && spans_us(1500) == 2 && spans_us(2 * MS) == 2000,
	      "a span weighs its microseconds, at least one");
	CHECK(spans_pend_since(sp) == 0, "nothing pending at first");
	/* Thread 11 of 10 sleeps twice at one stack on CPU 0, once on CPU 1;
	 * thread 21 of 20 once. */
	spans_out(sp, 10, 11, 0, 0, SPANS_S, id);
	spans_in(sp, 11, 1 * MS, &s);
	CHECK(spans_pend(sp, &s, 1 * MS) == 0 && spans_pend_since(sp) == 1 * MS, "pending since the first span's end");
	spans_out(sp, 10, 11, 0, 2 * MS, SPANS_S, id);
	spans_in(sp, 11, 5 * MS, &s);
	spans_pend(sp, &s, 5 * MS);
	spans_out(sp, 10, 11, 1, 6 * MS, SPANS_S, id);
	spans_in(sp, 11, 7 * MS, &s);
	spans_pend(sp, &s, 7 * MS);
	spans_out(sp, 20, 21, 0, 0, SPANS_D, id);
	spans_in(sp, 21, 400, &s);
	spans_pend(sp, &s, 400);
	CHECK(spans_pend_since(sp) == 1 * MS, "still since the first");

	spans_take(sp, 20, take, &t);
	CHECK(t.n == 1 && t.c[0].pid == 20 && t.c[0].tid == 21 && t.c[0].spans == 1 && t.c[0].us == 1 &&
	      t.c[0].ns == 400, "taken for one process: its one charge");
	t.n = 0;
	spans_take(sp, 20, take, &t);
	CHECK(t.n == 0, "taken once only");
	spans_take(sp, -1, take, &t);
	CHECK(t.n == 2, "the rest: one charge per (stack, thread, CPU) (%zu)", t.n);
	CHECK(t.n == 2 && t.c[0].tid == 11 && t.c[0].cpu == 0 && t.c[0].spans == 2 && t.c[0].us == 4000 &&
	      t.c[0].ns == 4 * MS && t.c[0].stack == id,
	      "CPU 0's two spans summed: 2 spans, 4000 us, 4 ms, at its stack");
	CHECK(t.n == 2 && t.c[1].cpu == 1 && t.c[1].spans == 1 && t.c[1].ns == 1 * MS, "CPU 1's apart");
	CHECK(spans_pend_since(sp) == 0, "nothing pending once all is taken");
	t.n = 0;
	spans_take(sp, -1, take, &t);
	CHECK(t.n == 0, "nothing taken twice");
	spans_stats(sp, &st);
	CHECK(st.charges == 3 && st.spans == 4, "4 spans made 3 charges");

	/* A pending charge keeps its stack past the rolls that drop unused ones. */
	spans_out(sp, 10, 11, 0, 10 * MS, SPANS_S, id);
	spans_in(sp, 11, 11 * MS, &s);
	spans_pend(sp, &s, 11 * MS);
	for (int i = 0; i < 4; i++)
		spans_roll(sp);
	t.n = 0;
	spans_take(sp, -1, take, &t);
	CHECK(t.n == 1 && spans_stack_words(sp, t.c[0].stack, &(size_t){ 0 }) != NULL,
	      "a pending charge's stack is kept until it is taken");
	spans_free(sp);
}

/* Sums made elsewhere (the kernel's): rows, pending charges and counts. */
static void test_sums(void)
{
	struct spans *sp = spans_new(0);
	struct spans_time tm;
	struct spans_stats st;
	struct took t = { .n = 0 };
	uint64_t k[2] = { 7, 8 };
	uint32_t id = spans_stack(sp, k, 2, NULL, NULL), id2;
	struct spans_sum a = { .pid = 10, .tid = 11, .cpu = 1, .state = SPANS_D, .stack = id, .spans = 3, .us = 3000,
			       .ns = 3 * MS };
	struct spans_sum b = a;

	b.spans = 2, b.us = 2, b.ns = 1500;
	CHECK(spans_add(sp, &a, 1) == 0 && spans_add(sp, &b, 2) == 0, "two sums added");
	CHECK(spans_task(sp, 10, 11, &tm) && tm.iv[SPANS_D] == 3 * MS + 1500 && tm.iv[SPANS_S] == 0,
	      "the thread's D time is both sums' ns");
	CHECK(spans_task(sp, 10, 0, &tm) && tm.total[SPANS_D] == 3 * MS + 1500, "and its process's");
	CHECK(spans_pend_since(sp) == 1, "pending since the first sum's time");
	spans_take(sp, -1, take, &t);
	CHECK(t.n == 1 && t.c[0].spans == 5 && t.c[0].us == 3002 && t.c[0].ns == 3 * MS + 1500 && t.c[0].cpu == 1 &&
	      t.c[0].stack == id, "one charge: 5 spans, their us and ns summed as given");
	spans_note(sp, 40, 39, 2, 1);
	spans_stats(sp, &st);
	CHECK(st.spans == 5 && st.outs == 40 && st.ins == 39 && st.short_spans == 2 && st.lost_spans == 1,
	      "the counts noted join the stats");

	/* A stack whose words were made wrong: its key makes it again, the
	 * old id stays for what holds it until a roll. */
	spans_stack_unkey(sp, id);
	id2 = spans_stack(sp, k, 2, NULL, NULL);
	CHECK(id2 != 0 && id2 != id && spans_stack_words(sp, id, &(size_t){ 0 }) != NULL,
	      "unkeyed: the key makes a new id, the old one still readable");
	for (int i = 0; i < 3; i++) /* the first two rolls of a run keep everything */
		spans_roll(sp);
	CHECK(spans_stack_words(sp, id, &(size_t){ 0 }) == NULL, "and the old id goes at a roll");
	spans_free(sp);
}

int main(void)
{
	test_sums();
	test_states();
	test_spans();
	test_thresh_and_loss();
	test_stacks();
	test_pending();
	return check_done();
}
