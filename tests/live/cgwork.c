/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload with a known call tree, for the call-graph tests:
 *   main -> caller_a -> hot   (3 parts)
 *   main -> caller_b -> hot   (1 part)
 *   main -> lone              (1 part)
 * Each part's CPU time is measured here; at the end it prints its own split
 * as JSON. Built with and without frame pointers (tests/live/meson.build).
 *   cgwork SECS [gate] [vdso]
 * gate: wait for a line on stdin before working (so that two samplers
 * attached meanwhile see the same run). vdso: main -> in_vdso -> libc's
 * clock_gettime -> the vDSO's, in a loop, instead of the tree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define SPIN(n) do { \
	uint64_t x_ = sink; \
	for (uint64_t i_ = 0; i_ < (n); i_++) \
		x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL; \
	sink = x_; \
} while (0)

__attribute__((noinline)) void hot(uint64_t n);
__attribute__((noinline)) void lone(uint64_t n);
__attribute__((noinline)) void caller_a(uint64_t n);
__attribute__((noinline)) void caller_b(uint64_t n);
__attribute__((noinline)) void in_vdso(uint64_t n);

#ifdef CGWORK_FRAMED_LEAVES
/* hot and lone call out, so they keep a frame and a frame-pointer chain
 * names their callers (the build compared with perf record -g). */
__attribute__((noinline)) void after(void);
__attribute__((noinline)) void after(void) { __asm__ volatile("" ::: "memory"); }
#define AFTER() after()
#else
#define AFTER() do { } while (0)
#endif

__attribute__((noinline)) void hot(uint64_t n) { SPIN(n); AFTER(); }
__attribute__((noinline)) void lone(uint64_t n) { SPIN(n); AFTER(); }
/* The callers do nothing but call: their time is hot's. */
__attribute__((noinline)) void caller_a(uint64_t n) { hot(n); __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void caller_b(uint64_t n) { hot(n); __asm__ volatile("" ::: "memory"); }

/* CLOCK_MONOTONIC is served by the vDSO without a syscall: the time is
 * spent in [vdso] code called from here. */
__attribute__((noinline)) void in_vdso(uint64_t n)
{
	struct timespec ts;

	for (uint64_t i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (uint64_t)ts.tv_nsec;
	}
}

static int has_arg(int argc, char **argv, const char *word)
{
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], word) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, t_end, t0, a = 0, b = 0, l = 0, tot;
	const uint64_t unit = 300000;

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (has_arg(argc, argv, "gate")) {
		char line[16];

		if (fgets(line, sizeof(line), stdin) == NULL)
			return 1;
	}
	t_end = cpu_now() + secs;
	if (has_arg(argc, argv, "vdso")) {
		while (cpu_now() < t_end)
			in_vdso(20000);
		printf("{}\n");
		return 0;
	}
	while (cpu_now() < t_end) {
		t0 = cpu_now();
		caller_a(3 * unit);
		a += cpu_now() - t0;
		t0 = cpu_now();
		caller_b(unit);
		b += cpu_now() - t0;
		t0 = cpu_now();
		lone(unit);
		l += cpu_now() - t0;
	}
	tot = a + b + l;
	printf("{\"caller_a\": %.4f, \"caller_b\": %.4f, \"lone\": %.4f}\n", 100 * a / tot, 100 * b / tot,
	       100 * l / tot);
	return 0;
}
