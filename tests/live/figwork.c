/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload that measures itself, for tests/live/test_figures.py and
 * tests/ui/test_figures_ui.py: each mode prints, at its end, one JSON line
 * of the CPU time it spent by its own clocks, which the tests compare
 * perftop's figures with.
 *   figwork spin SECS        one thread spins SECS of its own CPU time;
 *                            {"cpu_s": …}
 *   figwork duty SECS        two threads: "full" spins SECS of its CPU time
 *                            at once, "quarter" SECS/4 in 10 ms pieces with
 *                            30 ms sleeps between; each thread's own CPU
 *                            clock: {"tids": [full, quarter], "cpu_s": [...]}
 *   figwork fork N SECS      N children alive together, each spinning SECS of
 *                            CPU time; {"pids": [...], "cpu_s": children's}
 *   figwork gate MODE …      (prefix) wait for a line on stdin after "ready",
 *                            and for stdin's end after the figures
 *   figwork idle N …         (prefix, first) N more threads, started before
 *                            "ready" and blocked until the process exits
 * It prints "ready PID" on stdout once started (tap.start_workload). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"

static volatile uint64_t sink;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spins until this thread has used secs more of CPU time; a loaded machine
 * stretches the wall time, not the CPU time. */
__attribute__((noinline)) static void fig_spin(double secs)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + secs;
	uint64_t x = sink;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end) {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
}

static double rusage_s(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) < 0)
		return -1;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* A thread's CPU time, not the wall's duty cycle, is the truth: on a
 * loaded machine the scheduler decides the wall time. */
struct duty {
	const char *name;
	double total, piece, cpu;
	long tid;
};

static void *duty_body(void *p)
{
	struct duty *d = p;

	prctl(PR_SET_NAME, d->name);
	d->tid = (long)syscall(SYS_gettid);
	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < d->total) {
		fig_spin(d->piece);
		if (d->piece < d->total)
			usleep(30000);
	}
	d->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static int duty(double secs)
{
	struct duty d[2] = { { "full", secs, secs, 0, 0 }, { "quarter", secs / 4, 0.01, 0, 0 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, duty_body, &d[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("{\"tids\": [%ld, %ld], \"cpu_s\": [%.4f, %.4f]}\n", d[0].tid, d[1].tid, d[0].cpu, d[1].cpu);
	return 0;
}

static int forks(int n, double secs)
{
	pid_t pids[64];
	int pipefd[2];

	if (n < 1 || n > 64 || pipe(pipefd) < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (pids[i] == 0) {
			char c;

			/* Alive together: each waits for the last fork. */
			close(pipefd[1]);
			if (read(pipefd[0], &c, 1) < 0)
				_exit(1);
			fig_spin(secs);
			_exit(0);
		}
	}
	close(pipefd[1]);
	close(pipefd[0]);
	for (int i = 0; i < n; i++)
		if (waitpid(pids[i], NULL, 0) < 0)
			return 1;
	printf("{\"pids\": [");
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? ", " : "", (int)pids[i]);
	printf("], \"cpu_s\": %.4f}\n", rusage_s(RUSAGE_CHILDREN));
	return 0;
}

/* Blocked in read(2) on a pipe no one writes: a thread that never runs. */
static int idle_pipe[2];

static void *idle_body(void *p)
{
	char c;

	(void)p;
	prctl(PR_SET_NAME, "idle");
	if (read(idle_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static int idle_threads(int n)
{
	pthread_t t;

	if (n < 1 || n > 4096 || pipe(idle_pipe) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, idle_body, NULL) || pthread_detach(t))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "idle") == 0) {
		if (idle_threads(atoi(argv[2])) < 0) {
			perror("figwork: idle threads");
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	bool gate = argc > 1 && strcmp(argv[1], "gate") == 0;
	int gate_rc = gate_open(&argc, &argv, 3);

	if (gate_rc)
		return gate_rc;
	int rc = 2;

	if (strcmp(argv[1], "spin") == 0) {
		double t0 = rusage_s(RUSAGE_SELF);

		fig_spin(atof(argv[2]));
		printf("{\"cpu_s\": %.4f}\n", rusage_s(RUSAGE_SELF) - t0);
		rc = 0;
	} else if (strcmp(argv[1], "duty") == 0) {
		rc = duty(atof(argv[2]));
	} else if (strcmp(argv[1], "fork") == 0 && argc > 3) {
		rc = forks(atoi(argv[2]), atof(argv[3]));
	}
	/* Gated: alive, idle, until stdin closes, so that a test can read
	 * perftop's figures of a focus that has not ended yet. */
	if (gate) {
		char line[16];

		fflush(stdout);
		while (fgets(line, sizeof(line), stdin) != NULL)
			;
	}
	return rc;
}
