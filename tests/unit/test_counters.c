/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counter groups, attrs, group-read parsing and scaling: the parts of focus
 * mode that must be right on machines with a PMU, which ours lack. */
#include "check.h"
#include "counters.h"

#include <unistd.h>

static struct evspec ev(const char *name, uint32_t type, uint64_t config)
{
	struct evspec s;

	memset(&s, 0, sizeof(s));
	strlcpy(s.name, name, sizeof(s.name));
	s.attr.size = sizeof(s.attr);
	s.attr.type = type;
	s.attr.config = config;
	return s;
}

static void test_plan(void)
{
	struct evspec evs[] = {
		ev("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
		ev("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES),
		ev("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES),
		ev("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
		ev("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS),
		ev("cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES),
		ev("r1a8", PERF_TYPE_RAW, 0x1a8),
	};
	struct counter_group g[COUNTERS_MAX];
	size_t n = counters_plan(evs, 7, g);

	CHECK(n == 4, "software group + two hardware pairs + one raw alone (%zu groups)", n);
	CHECK(g[0].n == 2 && g[0].ev[0] == 0 && g[0].ev[1] == 3, "software events share the first group");
	CHECK(g[1].n == 2 && g[1].ev[0] == 1 && g[1].ev[1] == 4, "cycles paired with instructions");
	CHECK(g[2].n == 2 && g[2].ev[0] == 2 && g[2].ev[1] == 5, "cache-misses paired with cache-references");
	CHECK(g[3].n == 1 && g[3].ev[0] == 6, "raw event alone");
	n = counters_plan(evs + 1, 1, g);
	CHECK(n == 1 && g[0].n == 1 && g[0].ev[0] == 0, "a lone hardware event gets its own group");
}

static void test_attr(void)
{
	struct evspec e = ev("cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	struct perf_event_attr a;

	e.attr.exclude_kernel = 1;
	e.attr.precise_ip = 2;
	e.attr.sample_freq = 4000;
	counters_attr(&a, &e, true, true);
	CHECK(a.read_format == (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING), "read_format GROUP|ID|ENABLED|RUNNING");
	CHECK(a.disabled && a.inherit, "leader starts disabled; inherited by new threads");
	CHECK(a.sample_period == 0 && !a.freq && a.sample_type == 0 && a.precise_ip == 0,
	      "counting, not sampling");
	CHECK(a.exclude_kernel && a.type == PERF_TYPE_HARDWARE, "modifiers kept");
	counters_attr(&a, &e, false, false);
	CHECK(!a.disabled && !a.inherit, "members follow the leader; -t does not inherit");
}

static void test_scale(void)
{
	enum counter_state st;

	CHECK(counters_scale(1000, 100, 100, &st) == 1000 && st == COUNTER_OK, "ran the whole time: exact");
	CHECK(counters_scale(1000, 100, 25, &st) == 4000 && st == COUNTER_SCALED, "ran a quarter: x4, marked scaled");
	CHECK(counters_scale(1, 3, 2, &st) == 2 && st == COUNTER_SCALED, "rounds to nearest (1.5 -> 2)");
	CHECK(counters_scale(0, 100, 0, &st) == 0 && st == COUNTER_NOT_RUN, "never scheduled: not run, not 0");
	CHECK(counters_scale(0, 0, 0, &st) == 0 && st == COUNTER_OK, "not enabled yet: 0, exact");
	CHECK(counters_scale(UINT64_C(1) << 62, 4, 2, &st) == (UINT64_C(1) << 63) && st == COUNTER_SCALED,
	      "large counts scale without overflow");
}

static void test_parse(void)
{
	uint64_t buf[] = { 2, 500, 250, 11, 101, 22, 102 };
	uint64_t ids[4], vals[4], en, run;

	CHECK(counters_parse_read(buf, sizeof(buf), 4, &en, &run, ids, vals) == 2 && en == 500 && run == 250 &&
	      vals[0] == 11 && ids[0] == 101 && vals[1] == 22 && ids[1] == 102, "group read parsed");
	CHECK(counters_parse_read(buf, sizeof(buf) - 8, 4, &en, &run, ids, vals) == -1, "short buffer rejected");
	CHECK(counters_parse_read(buf, sizeof(buf), 1, &en, &run, ids, vals) == -1, "more members than room rejected");
	CHECK(counters_parse_read(buf, 16, 4, &en, &run, ids, vals) == -1, "header cut short rejected");
}

/* Counters that are not measurements: user-only context switches and
 * migrations are n/a, not 0; events that did not open are not shown, and
 * the notice names them. Opened on ourselves (perf_event_open may be
 * refused: then skipped). */
static void test_not_measured(void)
{
	struct evspec evs[3] = {
		ev("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
		ev("context-switches:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
		ev("bogus", PERF_TYPE_SOFTWARE, 0x7fff), /* no such software event: EINVAL/ENOENT */
	};
	pid_t me = getpid();
	struct counters_target t = { .pids = &me, .npids = 1, .pids_are_tids = true };
	struct counters *c;
	const struct counter_row *rows;
	char err[256];

	evs[1].attr.exclude_kernel = 1;
	evs[1].has_modifiers = 1;
	CHECK(counters_kernel_only(&evs[1].attr) && !counters_kernel_only(&evs[0].attr),
	      "user-only context switches see nothing; task-clock does");
	evs[0].attr.exclude_kernel = 1;
	CHECK(!counters_kernel_only(&evs[0].attr), "user-only task-clock still counts");
	if (counters_open(&c, evs, 3, &t, err, sizeof(err)) != 0) {
		printf("# skip: cannot count here (%s)\n", err);
		return;
	}
	counters_enable(c);
	for (volatile int i = 0; i < 1000000; i++)
		;
	usleep(1000); /* a context switch, which user-only counting would read as 0 */
	counters_read(c);
	CHECK(counters_nevents(c) == 2 && strcmp(counters_event(c, 1)->name, "context-switches:u") == 0,
	      "the event that did not open is not shown");
	CHECK(counters_notice(c) && strstr(counters_notice(c), "not shown: bogus") &&
	      strstr(counters_notice(c), "context-switches:u n/a"),
	      "the notice names what is not counted and what is n/a, and why");
	CHECK(counters_threads(c, &rows) == 1 && rows[0].v[0].state == COUNTER_OK && rows[0].v[0].value > 0,
	      "task-clock measured");
	CHECK(rows[0].v[1].state == COUNTER_UNSUPPORTED && rows[0].v[1].value == 0 && rows[0].v[1].total == 0,
	      "user-only context switches: n/a, not a measured 0");
	CHECK(counters_processes(c, &rows) == 1 && rows[0].v[1].state == COUNTER_UNSUPPORTED,
	      "the process row too");
	counters_close(c);
}

int main(void)
{
	test_plan();
	test_attr();
	test_scale();
	test_parse();
	test_not_measured();
	return check_done();
}
