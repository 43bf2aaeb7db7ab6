/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How the engine builds perf_event_attr (hardware paths included, which the
 * build machines cannot open), sizes rings, and parses CPU/PID lists. */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cpumap.h"
#include "engine.h"
#include "perfsys.h"
#include "record.h"

static struct evspec hw_spec(uint64_t config, int excl_kernel, int precise)
{
	struct evspec s;

	memset(&s, 0, sizeof(s));
	strlcpy(s.name, "cycles:u", sizeof(s.name));
	s.attr.size = sizeof(s.attr);
	s.attr.type = PERF_TYPE_HARDWARE;
	s.attr.config = config;
	s.attr.exclude_kernel = (unsigned)excl_kernel;
	s.attr.exclude_hv = 1;
	s.attr.exclude_guest = 1;
	s.attr.precise_ip = (unsigned)precise;
	return s;
}

static void test_attr(void)
{
	struct evspec s = hw_spec(PERF_COUNT_HW_CPU_CYCLES, 1, 2);
	struct engine_opts o = { .freq = 4000 };
	struct perf_event_attr a;

	engine_attr_build(&a, &s, &o, false);
	CHECK(a.type == PERF_TYPE_HARDWARE && a.config == PERF_COUNT_HW_CPU_CYCLES, "hardware type and config kept");
	CHECK(a.size == sizeof(a), "attr size set");
	CHECK(a.sample_type == (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD), "sample_type is the decoder's layout");
	CHECK(a.sample_id_all && a.disabled && a.watermark, "sample_id_all, starts disabled, watermark wakeups");
	CHECK(a.freq && a.sample_freq == 4000, "frequency mode at -F");
	CHECK(a.exclude_kernel && a.exclude_hv && a.exclude_guest && !a.exclude_user, "exclude bits from the spec");
	CHECK(a.precise_ip == 2, "precise_ip from :pp");
	CHECK(!a.inherit && !a.mmap && !a.comm && !a.task, "system-wide: no inherit, no side-band on sampling events");
	CHECK(a.use_clockid && a.clockid == CLOCK_MONOTONIC,
	      "use_clockid with CLOCK_MONOTONIC: times comparable across CPUs and with clock_gettime");
	engine_attr_tracking(&a, true);
	CHECK(a.use_clockid && a.clockid == CLOCK_MONOTONIC && a.sample_id_all && (a.sample_type & PERF_SAMPLE_TIME),
	      "the tracking event on the same clock, with a time on every record");
	CHECK(a.mmap2 && a.comm && a.task && a.inherit && a.exclude_kernel, "tracking: side-band records, inherited");

	o.period = 100003;
	engine_attr_build(&a, &s, &o, true);
	CHECK(!a.freq && a.sample_period == 100003, "-c gives a fixed period");
	CHECK(a.inherit, "-p: inherited into new threads");
	CHECK(a.sample_type == (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU),
	      "-c: no PERF_SAMPLE_PERIOD (with it the kernel samples a software event's every hit)");
	for (uint32_t type = PERF_TYPE_HARDWARE; type <= PERF_TYPE_BREAKPOINT; type++) {
		struct evspec k = s;

		k.attr.type = type;
		engine_attr_build(&a, &k, &o, false);
		CHECK(!a.freq && a.sample_period == 100003 && !(a.sample_type & PERF_SAMPLE_PERIOD),
		      "-c: fixed period, none in the records, for every kind of event");
	}
	struct record_layout lay;
	struct callgraph_opts cg = { .mode = CALLGRAPH_NONE };

	engine_attr_layout(&lay, &cg, 100003);
	CHECK(lay.period == 100003 && lay.extra == 0, "-c: the layout gives the decoder the period");

	s = hw_spec(PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		    ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16), 0, 0);
	s.attr.type = PERF_TYPE_HW_CACHE;
	engine_attr_build(&a, &s, &o, false);
	CHECK(a.type == PERF_TYPE_HW_CACHE && a.config == 0x10000, "cache event config passed through");

	s.attr.type = PERF_TYPE_TRACEPOINT;
	o.period = 0;
	engine_attr_build(&a, &s, &o, false);
	CHECK(!a.freq && a.sample_period == 1 && (a.sample_type & PERF_SAMPLE_PERIOD),
	      "tracepoints sample every hit by default, each with its count as period");
}

static void test_pages(void)
{
	CHECK(engine_default_pages(100, 1, 4096) == 16, "at least 16 pages");
	CHECK(engine_default_pages(4000, 1, 4096) == 512, "4 kHz, one event: eight seconds are 1.79 MB -> 512 pages");
	CHECK(engine_default_pages(1000, 1, 4096) == 128, "1 kHz: 448 KB -> 128 pages");
	CHECK(engine_default_pages(20000, 1, 4096) == 2048, "20 kHz: 8.96 MB, capped at 2048 pages");
	CHECK(engine_default_pages(50000, 1, 4096) == 2048, "50 kHz: capped at 2048 pages");
	CHECK(engine_default_pages(10000000, 16, 4096) == ENGINE_RING_MAX_PAGES, "capped at 2048 pages");
	CHECK(engine_wake_bytes(512 << 10, false, 4000 * 56, false) == (512 << 10) - 112000,
	      "no call graph, 4 kHz: woken with half a second of room (past a 1 s tick)");
	CHECK(engine_wake_bytes(4 << 20, false, 50000 * 56, false) == (4 << 20) - 1400000,
	      "no call graph, 50 kHz: a 1.5 s ring woken with half a second of room");
	CHECK(engine_wake_bytes(4 << 20, false, 100000 * 56, false) == 2 << 20,
	      "no call graph, 100 kHz: a ring of under a second woken at half");
	CHECK(engine_wake_bytes(64 << 10, false, 100 * 56, false) == (64 << 10) - 2800, "a slow rate: the room for half a second");
	CHECK(engine_wake_bytes(4 << 20, true, 4000 * 800, false) == 512 << 10,
	      "-g at 4 kHz: about 6 wakeups a second (512 KiB), not 2 MiB held in the spill");
	CHECK(engine_wake_bytes(4 << 20, true, 20000 * 800, false) == ENGINE_CG_WAKE_MAX, "-g at 20 kHz: at most 1 MiB");
	CHECK(engine_wake_bytes(4 << 20, true, 4000 * 800, true) == 1 << 20,
	      "-g at 4 kHz read in place: a quarter of the ring (nothing waits in the spill)");
	CHECK(engine_wake_bytes(64 << 10, true, 20000 * 800, true) == 32 << 10, "in place too, never past half a small ring");
	CHECK(engine_wake_bytes(4 << 20, true, 10 * 800, false) == ENGINE_CG_WAKE_MIN, "a slow rate: at least 64 KiB");
	CHECK(engine_wake_bytes(64 << 10, true, 20000 * 800, false) == 32 << 10, "never past half a small ring (-m)");
	CHECK(engine_flat_main(100000 * 56, 8 << 20, 1.0), "flat at 100 kHz: more than half an 8 MiB ring a second, read as -g");
	CHECK(!engine_flat_main(50000 * 56, 8 << 20, 1.0), "flat at 50 kHz: the ticks read it in place");
	CHECK(!engine_flat_main(100000 * 56, 8 << 20, 0.5), "flat at 100 kHz with -d 0.5: the ticks too");
	CHECK(engine_flat_main(20000 * 56, 1 << 20, 1.0), "a small ring at 20 kHz: as -g");
	CHECK(engine_cg_pages(1024, 4000 * 800, 2, 4096) == 4096,
	      "-g at 4 kHz, 2 CPUs: 16 MiB rings (a quarter holds 1.3 s; an 8 MiB ring's 0.66 s)");
	CHECK(engine_wake_bytes(16 << 20, true, 4000 * 800, true) == 4 << 20, "-g at 4 kHz read in place: woken at 4 MiB");
	CHECK(engine_cg_pages(1024, 1000 * 800, 2, 4096) == 1024, "-g at 1 kHz: 4 MiB's quarter holds 1.3 s already");
	CHECK(engine_cg_pages(1024, 20000 * 800, 2, 4096) == 4096, "-g at 20 kHz: at most 4096 pages");
	CHECK(engine_direct_ns((size_t)4096 * 4096, 20000 * 900) != 0 && engine_direct_ns((size_t)2048 * 4096, 20000 * 900) == 0,
	      "-g at 20 kHz (~900-byte samples): a 16 MiB ring is read in place, an 8 MiB one was not");
	CHECK(engine_cg_pages(1024, 4000 * 800, 4, 4096) == 4096, "4 CPUs: 64 MiB of rings in all, still grown");
	CHECK(engine_cg_pages(1024, 4000 * 800, 8, 4096) == 2048, "8 CPUs: 8 MiB each, within 64 MiB");
	CHECK(engine_cg_pages(1024, 4000 * 800, 9, 4096) == 1024, "9 CPUs: 72 MiB would pass the 64 MiB bound: as before");
	CHECK(engine_cg_pages(16, 10 * 800, 2, 4096) == 16, "a slow rate: the ring as it was");
	for (uint64_t f = 1; f < 200000; f = f * 3 + 1) {
		size_t p = engine_default_pages(f, 2, 4096);

		if ((p & (p - 1)) != 0) {
			CHECK(0, "pages a power of two at %llu Hz", (unsigned long long)f);
			return;
		}
	}
	CHECK(1, "pages always a power of two");
	CHECK(engine_direct_ns(512 << 10, 4000 * 56) == 585142857ull,
	      "4 kHz: a pass may read a 512 KiB ring in place for 0.59 s (half of what fills half of it)");
	CHECK(engine_direct_ns(4 << 20, 4000 * 800) == 327680000ull, "-g at 4 kHz, a 4 MiB ring: 0.33 s");
	/* A slow record hands the rings back (engine_hand_back), but a
	 * preempted main loop keeps the reader off as long as it waits. */
	CHECK(engine_direct_ns(4 << 20, 20000 * 800) == 0,
	      "-g at 20 kHz: a 4 MiB ring's free half lasts 0.13 s, too short for a preempted turn: the spill");
	CHECK(engine_direct_ns(32 << 10, 4000 * 56) == 0, "-m 8 at 4 kHz (the stalled-reader test): the spill");
	CHECK(engine_direct_ns(4096, 20000 * 56) == 0, "a one-page ring (-m 1) at 20 kHz: never in place");
	CHECK(engine_direct_ns(4 << 20, 0) == 0, "no rate: never in place");
	{
		FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
		long long kb = 0;
		size_t p = perfsys_mlock_pages(4096);

		if (f == NULL || fscanf(f, "%lld", &kb) != 1)
			kb = 0;
		if (f)
			fclose(f);
		if (kb <= 0)
			CHECK(p == 0, "no perf_event_mlock_kb: no cap");
		else
			CHECK(p && (p & (p - 1)) == 0 && (p + 1) * 4096 <= (size_t)kb * 1024 && (2 * p + 1) * 4096 > (size_t)kb * 1024,
			      "perf_event_mlock_kb %lld: %zu data pages and the header fit, twice as many would not", kb, p);
	}
}

static void test_lists(void)
{
	int *c = NULL;
	pid_t *p = NULL;
	size_t n = 0;

	CHECK(cpumap_parse_cpus("0-3,8,2", &c, &n) == 0 && n == 5 && c[0] == 0 && c[3] == 3 && c[4] == 8,
	      "0-3,8,2 -> 0 1 2 3 8 (sorted, de-duplicated)");
	free(c);
	CHECK(cpumap_parse_cpus("0-1\n", &c, &n) == 0 && n == 2, "sysfs form with a newline");
	free(c);
	CHECK(cpumap_parse_cpus("3-1", &c, &n) < 0, "reversed range rejected");
	CHECK(cpumap_parse_cpus("", &c, &n) < 0, "empty rejected");
	CHECK(cpumap_parse_cpus("1,,2", &c, &n) < 0, "empty element rejected");
	CHECK(cpumap_parse_cpus("x", &c, &n) < 0, "garbage rejected");
	CHECK(cpumap_parse_cpus("99999", &c, &n) < 0, "CPU beyond CPUMAP_MAX rejected");
	CHECK(cpumap_parse_pids("12,34", &p, &n) == 0 && n == 2 && p[1] == 34, "PID list");
	free(p);
	CHECK(cpumap_parse_pids("0", &p, &n) < 0 && cpumap_parse_pids("-1", &p, &n) < 0 &&
	      cpumap_parse_pids("12,", &p, &n) < 0 && cpumap_parse_pids("99999999", &p, &n) < 0,
	      "PID 0, negative, trailing comma, beyond pid_max rejected");
	CHECK(cpumap_threads(getpid(), &p, &n) == 0 && n >= 1 && p[0] == getpid(), "own threads listed");
	free(p);
	CHECK(cpumap_threads(4194304 + 1, &p, &n) == -ESRCH, "missing process -> ESRCH");
}

/* What the unwinder says it used of a process's stack copies sets how much
 * of them the spill keeps: a high-water mark with a margin, "all" for good
 * once a walk wanted more, forgotten at exec/exit. Needs an engine opened
 * in dwarf mode (our own process, cpu-clock). */
static void test_stack_need(void)
{
	struct evspec ev;
	struct engine *e = NULL;
	pid_t me = getpid();
	struct engine_opts o = {
		.events = &ev, .nevents = 1, .pids = &me, .npids = 1, .freq = 100, .interval = 1,
		.cg = { .mode = CALLGRAPH_DWARF, .stack_size = CALLGRAPH_DWARF_SIZE, .max_stack = 64 },
	};
	char err[256];
	uint64_t k1, k2;

	if (evspec_parse("cpu-clock", &ev, err, sizeof(err)) != 0 || engine_open(&e, &o, err, sizeof(err)) != 0) {
		CHECK_SKIP("cannot open a dwarf engine here");
		return;
	}
	CHECK(engine_stack_keep(e, me) == UINT64_MAX, "nothing learnt: the whole valid copy kept");
	engine_stack_used(e, me, 400);
	k1 = engine_stack_keep(e, me);
	engine_stack_used(e, me, 300);
	CHECK(k1 >= 400 && k1 < 4096 && engine_stack_keep(e, me) == k1,
	      "learnt from 400 bytes used: %llu kept, not lowered by a shallower walk",
	      (unsigned long long)k1);
	engine_stack_used(e, me, 1000);
	k2 = engine_stack_keep(e, me);
	CHECK(k2 > k1 && k2 >= 1000, "a deeper walk raises it (%llu)", (unsigned long long)k2);
	CHECK(engine_stack_keep(e, me + 1) == UINT64_MAX, "another process: all kept");
	engine_stack_used(e, me, ENGINE_STACK_ALL);
	engine_stack_used(e, me, 200);
	CHECK(engine_stack_keep(e, me) == UINT64_MAX, "a walk that ran off a cut copy: never cut again");
	engine_stack_used(e, me, 0);
	engine_stack_used(e, me, 200);
	CHECK(engine_stack_keep(e, me) < UINT64_MAX, "exec/exit forgets it, and it is learnt anew");
	engine_close(e);
}

struct quit_run {
	struct engine *e;
	bool quit;
	int ticks;
	uint64_t samples, at_end;
};

static void quit_record(void *arg, int ev, const struct record *r)
{
	struct quit_run *q = arg;

	if (r->type == PERF_RECORD_SAMPLE)
		q->samples++;
}

static double thread_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* At the second tick: 40 ms of our CPU (samples left in the rings), then
 * the end of the run as asked. */
static void quit_tick(void *arg)
{
	struct quit_run *q = arg;
	double t0 = thread_ms();
	volatile unsigned long spin = 0;

	if (++q->ticks < 2)
		return;
	while (thread_ms() - t0 < 40)
		spin++;
	q->at_end = q->samples;
	if (q->quit)
		engine_quit(q->e);
	else
		engine_stop(q->e);
}

/* A stop decodes what the rings still hold before engine_run returns (a
 * dump's last interval needs it); a quit leaves it: nothing reads it. */
static uint64_t quit_after(bool quit, bool *ok)
{
	struct evspec ev;
	pid_t me = getpid();
	struct engine_opts o = { .events = &ev, .nevents = 1, .pids = &me, .npids = 1, .freq = 2000, .interval = 0.05 };
	struct quit_run q = { .quit = quit };
	struct engine_handlers h = { .record = quit_record, .record_arg = &q, .arg = &q, .tick = quit_tick };
	char err[256];

	*ok = false;
	if (evspec_parse("cpu-clock", &ev, err, sizeof(err)) != 0 || engine_open(&q.e, &o, err, sizeof(err)) != 0)
		return 0;
	*ok = engine_run(q.e, &h) == 0 && q.ticks >= 2;
	engine_close(q.e);
	return q.samples - q.at_end;
}

static void test_quit(void)
{
	bool ok_stop, ok_quit;
	uint64_t after_stop = quit_after(false, &ok_stop), after_quit = quit_after(true, &ok_quit);

	if (!ok_stop || !ok_quit) {
		CHECK_SKIP("cannot sample this process with cpu-clock here");
		return;
	}
	CHECK(after_stop > 0, "a stop decodes the samples of the last 40 ms before returning (%llu)",
	      (unsigned long long)after_stop);
	CHECK(after_quit == 0, "a quit decodes nothing after it (%llu samples were)", (unsigned long long)after_quit);
}

/* Seconds on the monotonic clock since t0. */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

struct clock_run {
	struct engine *e;
	struct timespec t0;
	double first_tick_s;
	uint64_t samples, at_start;
	bool started;
};

static void clock_record(void *arg, int ev, const struct record *r)
{
	struct clock_run *c = arg;

	(void)ev;
	if (r->type == PERF_RECORD_SAMPLE)
		c->samples++;
}

static void clock_start(void *arg)
{
	struct clock_run *c = arg;

	c->started = true;
	c->at_start = c->samples;
}

/* The first tick: 40 ms of our CPU, sampled now, then a stop. */
static void clock_tick(void *arg)
{
	struct clock_run *c = arg;
	struct timespec t;
	double t0 = thread_ms();
	volatile unsigned long spin = 0;

	clock_gettime(CLOCK_MONOTONIC, &t);
	c->first_tick_s = (double)(t.tv_sec - c->t0.tv_sec) + (double)(t.tv_nsec - c->t0.tv_nsec) / 1e9;
	while (thread_ms() - t0 < 40)
		spin++;
	engine_stop(c->e);
}

/* engine_start_clock: the interval clock runs from then, the events only
 * from engine_run on, so a start-up's work is not sampled (nor taxed by
 * our own sampling interrupts), and its time still counts in the first
 * interval's clock. */
static void test_start_clock(void)
{
	struct evspec ev;
	pid_t me = getpid();
	struct engine_opts o = { .events = &ev, .nevents = 1, .pids = &me, .npids = 1, .freq = 2000, .interval = 1 };
	struct clock_run c = { 0 };
	struct engine_handlers h = { .record = clock_record, .record_arg = &c, .arg = &c, .start = clock_start,
				     .tick = clock_tick };
	char err[256];
	double t0, run_at;
	volatile unsigned long spin = 0;
	int rc;

	if (evspec_parse("cpu-clock", &ev, err, sizeof(err)) != 0 || engine_open(&c.e, &o, err, sizeof(err)) != 0) {
		CHECK_SKIP("cannot sample this process with cpu-clock here");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &c.t0);
	CHECK(engine_start_clock(c.e) == 0, "the interval clock starts alone");
	/* A start-up of 0.8 s on the test's clock (busy: 1600 samples at 2 kHz,
	 * were the events on); on a loaded machine it may run longer. */
	t0 = thread_ms();
	while (since(&c.t0) < 0.8 || thread_ms() - t0 < 100)
		spin++;
	run_at = since(&c.t0);
	rc = engine_run(c.e, &h);
	CHECK(rc == 0 && c.started, "the run starts the events and says so (rc %d)", rc);
	CHECK(c.at_start == 0, "no sample of the 300 ms before the run (%llu)", (unsigned long long)c.at_start);
	CHECK(c.samples > 0, "samples once the run started (%llu)", (unsigned long long)c.samples);
	/* The 1 s interval counts from the clock's start, 0.8 s or more of it
	 * before the run: the tick is due at most 0.2 s into the run (at once
	 * when the start-up ran past 1 s); armed at engine_run, 1 s into it. */
	CHECK(c.first_tick_s >= 1.0 && c.first_tick_s - run_at < 0.8,
	      "the first tick counts from the clock's start: %.3f s after it, %.3f s into the run (not 1 s)",
	      c.first_tick_s, c.first_tick_s - run_at);
	engine_close(c.e);
}

/* Read system calls made by this process so far (/proc/self/io); -1 if
 * the kernel does not count them. */
static long long reads_so_far(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	long long n = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static struct engine *running_engine(bool task)
{
	static struct evspec ev;
	pid_t me = getpid();
	struct engine_opts o = { .events = &ev, .nevents = 1, .freq = 10, .interval = 1 };
	struct engine *e = NULL;
	char err[256];

	if (task) {
		o.pids = &me;
		o.npids = 1;
	}
	if (evspec_parse("cpu-clock", &ev, err, sizeof(err)) != 0 || engine_open(&e, &o, err, sizeof(err)) != 0)
		return NULL;
	if (engine_start(e) != 0) {
		engine_close(e);
		return NULL;
	}
	return e;
}

/* A CPU-wide software event runs whenever it is on: its share of the
 * interval is 100 % without reading its times, a read on each CPU that
 * costs an IPI a tick; off through a whole interval it is unknown. A task's
 * event is still read (its enabled time stops while the task sleeps). */
static void test_running(void)
{
	struct engine *e = running_engine(false);
	long long r0, r1;
	int first, off_then, off_all, back;

	CHECK(engine_attr_never_multiplexed(PERF_TYPE_SOFTWARE) && engine_attr_never_multiplexed(PERF_TYPE_TRACEPOINT) &&
	      !engine_attr_never_multiplexed(PERF_TYPE_HARDWARE) && !engine_attr_never_multiplexed(PERF_TYPE_RAW) &&
	      !engine_attr_never_multiplexed(PERF_TYPE_BREAKPOINT),
	      "software events and tracepoints are never multiplexed; hardware, raw and breakpoints may be");
	if (e == NULL || reads_so_far() < 0) {
		CHECK_SKIP("cannot sample system-wide here, or /proc/self/io does not count reads");
		if (e)
			engine_close(e);
		return;
	}
	first = engine_running_pct(e, 0);
	r0 = reads_so_far();
	for (int i = 0; i < 100; i++)
		(void)engine_running_pct(e, 0);
	r1 = reads_so_far();
	CHECK(first == 100, "a CPU-wide cpu-clock on since the start ran 100 %% (%d)", first);
	CHECK(r1 - r0 < 10, "100 readings of its share made %lld read calls, not one per CPU each", r1 - r0);
	engine_enable_event(e, 0, false);
	off_then = engine_running_pct(e, 0);
	off_all = engine_running_pct(e, 0);
	engine_enable_event(e, 0, true);
	back = engine_running_pct(e, 0);
	CHECK(off_then == 100 && off_all == -1 && back == 100,
	      "turned off: 100 for the interval it was on in (%d), unknown for one it was off all along (%d), "
	      "100 once on again (%d)", off_then, off_all, back);
	engine_close(e);

	if ((e = running_engine(true)) == NULL) {
		CHECK_SKIP("cannot sample this process with cpu-clock here");
		return;
	}
	r0 = reads_so_far();
	(void)engine_running_pct(e, 0);
	r1 = reads_so_far();
	CHECK(r1 - r0 >= 2, "a task's event is read on every CPU (%lld read calls)", r1 - r0);
	engine_close(e);
}

int main(void)
{
	test_attr();
	test_pages();
	test_lists();
	test_stack_need();
	test_quit();
	test_start_clock();
	test_running();
	return check_done();
}
