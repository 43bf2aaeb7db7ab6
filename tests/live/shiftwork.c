/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload whose split changes halfway, for the baseline test
 * (tests/live/test_baseline.py): two functions of the same body, shift_a
 * and shift_b, share the CPU 70/30 until a line comes on stdin, then 30/70
 * until stdin ends. At the end it prints, as one JSON line, each phase's
 * own split: the share of the thread's CPU time spent in each function,
 * in percent, by its own CPU clock:
 *   {"phase1": {"shift_a": 70.1, "shift_b": 29.8}, "phase2": {...}}
 * It prints "ready PID" on stdout once started. */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define SPIN(name) \
	__attribute__((noinline)) void name(uint64_t n); \
	__attribute__((noinline)) void name(uint64_t n) \
	{ \
		uint64_t x = sink; \
		for (uint64_t i = 0; i < n; i++) \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
		sink = x; \
	}
SPIN(shift_a)
SPIN(shift_b)

struct phase {
	double a, b, total; /* CPU seconds in shift_a, shift_b, and all of the phase */
};

/* Whether stdin has something (a line, or its end) for us. */
static int stdin_event(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static void drain_line(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
		;
}

/* Runs pct_a / (100 - pct_a) in slices of about 2 ms until stdin stirs. */
static void run(struct phase *ph, int pct_a)
{
	const uint64_t unit = 20000; /* iterations: tens of microseconds */
	double start = cpu_now();

	while (!stdin_event()) {
		for (int k = 0; k < 10; k++) {
			double t0 = cpu_now(), t1, t2;

			shift_a(unit * (uint64_t)pct_a / 10);
			t1 = cpu_now();
			shift_b(unit * (uint64_t)(100 - pct_a) / 10);
			t2 = cpu_now();
			ph->a += t1 - t0;
			ph->b += t2 - t1;
		}
	}
	ph->total = cpu_now() - start;
}

int main(void)
{
	struct phase p1 = { 0 }, p2 = { 0 };

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	run(&p1, 70);
	drain_line();
	run(&p2, 30);
	printf("{\"phase1\": {\"shift_a\": %.2f, \"shift_b\": %.2f}, \"phase2\": {\"shift_a\": %.2f, \"shift_b\": %.2f}}\n",
	       p1.total > 0 ? 100 * p1.a / p1.total : 0, p1.total > 0 ? 100 * p1.b / p1.total : 0,
	       p2.total > 0 ? 100 * p2.a / p2.total : 0, p2.total > 0 ? 100 * p2.b / p2.total : 0);
	return 0;
}
