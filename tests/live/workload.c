/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload of known shape for the live tests.
 *   workload split A,B,C SECS   hot_a/hot_b/hot_c get A:B:C of the CPU time;
 *                               prints its measured split as JSON at the end
 *   workload syscalls SECS      mostly kernel time (write to /dev/null)
 *   workload threads N SECS     N threads started after "ready", each spinning,
 *                               faulting pages in and yielding
 *   workload duty SECS          two threads, busy_full spinning all the time and
 *                               busy_quarter a quarter of it; prints each one's
 *                               own CPU time (ms) as JSON at the end
 *   workload cpu N             (prefix) pin to CPU N first
 *   workload gate              (prefix) wait for a line on stdin after "ready"
 * It prints "ready PID" on stdout once started. */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The split is of CPU time, as samples count it: on a busy machine the wall
 * time of a call also holds the time others ran. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Separate, not inlined, with the same body: only the call counts differ. */
#define HOT(name) \
	__attribute__((noinline)) void name(uint64_t n); \
	__attribute__((noinline)) void name(uint64_t n) \
	{ \
		uint64_t x = sink; \
		for (uint64_t i = 0; i < n; i++) \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
		sink = x; \
	}
HOT(hot_a)
HOT(hot_b)
HOT(hot_c)

static int split(int argc, char **argv)
{
	unsigned w[3];
	double secs, t_end, spent[3] = { 0, 0, 0 }, total;
	void (*fn[3])(uint64_t) = { hot_a, hot_b, hot_c };
	const uint64_t unit = 200000;

	if (argc < 4 || sscanf(argv[2], "%u,%u,%u", &w[0], &w[1], &w[2]) != 3)
		return 2;
	secs = atof(argv[3]);
	t_end = now() + secs;
	while (now() < t_end) {
		for (int k = 0; k < 3; k++) {
			double t0 = cpu_now();

			fn[k](unit * w[k]);
			spent[k] += cpu_now() - t0;
		}
	}
	total = spent[0] + spent[1] + spent[2];
	printf("{\"hot_a\": %.4f, \"hot_b\": %.4f, \"hot_c\": %.4f}\n", 100 * spent[0] / total,
	       100 * spent[1] / total, 100 * spent[2] / total);
	return 0;
}

struct thread_arg {
	double secs;
};

static void *thread_body(void *p)
{
	const struct thread_arg *a = p;
	double t_end = now() + a->secs;
	long page = sysconf(_SC_PAGESIZE);

	while (now() < t_end) {
		/* Fresh anonymous pages: one minor fault each. */
		char *m = mmap(NULL, 64 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			break;
		for (int i = 0; i < 64; i++)
			m[(size_t)i * (size_t)page] = 1;
		munmap(m, 64 * (size_t)page);
		hot_a(20000);
		sched_yield();
		usleep(100);
	}
	return NULL;
}

static int threads(int n, double secs)
{
	pthread_t t[64];
	struct thread_arg a = { secs };

	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_body, &a))
			return 1;
	struct rusage ru;

	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	/* CPU time, page faults and context switches of every thread, for
	 * the counters and sampling tests to compare. */
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"cpu_ms\": %.3f, \"minflt\": %ld, \"csw\": %ld}\n",
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
	       ru.ru_minflt, ru.ru_nvcsw + ru.ru_nivcsw);
	return 0;
}

struct duty_arg {
	const char *name;
	double secs, share; /* of each 20 ms spent spinning */
	double cpu_ms;      /* its own CPU time, at its end */
};

static void *duty_body(void *p)
{
	struct duty_arg *a = p;
	double t_end = now() + a->secs;

	pthread_setname_np(pthread_self(), a->name);
	while (now() < t_end) {
		double t0 = now();

		while (now() < t0 + 0.020 * a->share)
			hot_b(2000);
		if (a->share < 1)
			usleep((useconds_t)(20000 * (1 - a->share)));
	}
	a->cpu_ms = cpu_now() * 1e3;
	return NULL;
}

static int duty(double secs)
{
	struct duty_arg a[2] = { { "busy_full", secs, 1.0, 0 }, { "busy_quarter", secs, 0.25, 0 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, duty_body, &a[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("{\"busy_full\": %.3f, \"busy_quarter\": %.3f}\n", a[0].cpu_ms, a[1].cpu_ms);
	return 0;
}

static int syscalls(double secs)
{
	static char buf[65536];
	int fd = open("/dev/null", O_WRONLY);
	int zero = open("/dev/zero", O_RDONLY);
	double t_end = now() + secs;

	if (fd < 0 || zero < 0)
		return 1;
	while (now() < t_end)
		for (int i = 0; i < 100; i++)
			if (read(zero, buf, sizeof(buf)) < 0 || write(fd, buf, sizeof(buf)) < 0)
				return 1;
	printf("{}\n");
	return 0;
}

/* clock_gettime in a loop: its time in the vDSO (a replay names it). */
static int vdso(double secs)
{
	double t_end = now() + secs;
	uint64_t n = 0;

	while (now() < t_end)
		n++;
	sink = n;
	printf("{\"calls\": %llu}\n", (unsigned long long)n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "cpu") == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	int gate_rc = gate_open(&argc, &argv, 2);

	if (gate_rc)
		return gate_rc;
	if (strcmp(argv[1], "split") == 0)
		return split(argc, argv);
	if (strcmp(argv[1], "threads") == 0 && argc > 3)
		return threads(atoi(argv[2]), atof(argv[3]));
	if (strcmp(argv[1], "duty") == 0 && argc > 2)
		return duty(atof(argv[2]));
	if (strcmp(argv[1], "syscalls") == 0 && argc > 2)
		return syscalls(atof(argv[2]));
	if (strcmp(argv[1], "vdso") == 0 && argc > 2)
		return vdso(atof(argv[2]));
	return 2;
}
