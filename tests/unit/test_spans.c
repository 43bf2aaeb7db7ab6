/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spans: switch-outs and switch-ins across CPUs, states, the threshold,
 * losses dropping what was open, and the per-task and thread sums. */
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

	CHECK(sp != NULL, "spans_new");
	CHECK(spans_out(sp, 100, 101, 0, 10 * MS, SPANS_S, words, 3) == 0, "a switch-out");
	CHECK(!spans_in(sp, 102, 11 * MS, &s), "another thread's switch-in ends nothing");
	CHECK(spans_in(sp, 101, 25 * MS, &s) && s.ns == 15 * MS && s.pid == 100 && s.tid == 101 && s.cpu == 0 &&
	      s.state == SPANS_S && s.nwords == 3 && s.words[2] == 0xbbb,
	      "its switch-in (any CPU) ends the span: 15 ms, the switch-out's stack and state");
	CHECK(!spans_in(sp, 101, 30 * MS, &s), "a second switch-in ends nothing (no span open)");
	spans_out(sp, 100, 101, 1, 40 * MS, SPANS_D, words, 1);
	spans_out(sp, 100, 103, 1, 41 * MS, SPANS_R, NULL, 0);
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
	spans_out(sp, 100, 101, 0, 50 * MS, SPANS_S, words, 3);
	spans_out(sp, 100, 101, 0, 60 * MS, SPANS_S, words, 3);
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

	spans_out(sp, 1, 2, 0, 0, SPANS_S, NULL, 0);
	CHECK(!spans_in(sp, 2, 4 * MS, &s), "a span below --off-cpu-thresh is dropped");
	spans_out(sp, 1, 2, 0, 10 * MS, SPANS_S, NULL, 0);
	CHECK(spans_in(sp, 2, 15 * MS, &s) && s.ns == 5 * MS, "one at the threshold is kept");
	/* A loss on CPU 1 drops every open span, begun on any CPU: the lost
	 * records may have held the switch-in of any of them. */
	spans_out(sp, 1, 2, 0, 20 * MS, SPANS_S, NULL, 0);
	spans_out(sp, 1, 3, 1, 20 * MS, SPANS_S, NULL, 0);
	spans_lost(sp, 1, 7);
	CHECK(!spans_in(sp, 2, 90 * MS, &s) && !spans_in(sp, 3, 90 * MS, &s),
	      "spans open across a loss are not charged (their ends may be lost)");
	spans_stats(sp, &st);
	CHECK(st.lost_records == 7 && st.lost_spans == 2 && st.short_spans == 1,
	      "counted: 7 lost records, 2 spans dropped, 1 short");
	spans_task(sp, 1, 0, &t);
	CHECK(t.total[SPANS_S] == 5 * MS, "only the known span is charged");
	spans_out(sp, 1, 3, 1, 100 * MS, SPANS_S, NULL, 0);
	spans_exit(sp, 3);
	CHECK(!spans_in(sp, 3, 110 * MS, &s), "an exited thread's open span goes");
	spans_free(sp);
}

int main(void)
{
	test_states();
	test_spans();
	test_thresh_and_loss();
	return check_done();
}
