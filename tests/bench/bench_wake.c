/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The floor under a tick: what one wakeup of a sleeping thread costs that
 * thread's CPU on this machine, and what touching memory again after it
 * costs (everything a tick touches comes back cold). A timerfd in an epoll
 * set, as the engine's tick, first on idle CPUs, then beside a spinning
 * child on every CPU.
 *
 * usage: bench_wake [WAKEUPS [PERIOD_S [TOUCH_KIB]]]   (default 20, 0.25, 2048)
 *
 * Prints, for each load, the thread's CPU a wakeup inside epoll_wait and
 * for reading TOUCH_KIB of its own memory right after the wakeup, against
 * the same read done twice in a row (warm). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static volatile uint64_t sink;

/* A line of every 64 bytes read (volatile: the reads stay). */
static uint64_t touch(const volatile unsigned char *p, size_t len)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < len; i += 64)
		sum += p[i];
	return sum;
}

struct result {
	double wake, cold, warm;
};

static int run(int wakeups, double period, unsigned char *mem, size_t len, struct result *out)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC), ep = epoll_create1(EPOLL_CLOEXEC);
	long ns = (long)(period * 1e9);
	struct itimerspec its = { { ns / 1000000000, ns % 1000000000 }, { ns / 1000000000, ns % 1000000000 } };
	struct epoll_event ev = { .events = EPOLLIN }, got;
	uint64_t ticks, sum = 0;
	int rc = -1;

	*out = (struct result){ 0 };
	if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0) {
		perror("bench_wake: timer");
		goto out;
	}
	for (int i = 0; i < wakeups; i++) {
		double a = cpu_us(), b, c;
		int n = epoll_wait(ep, &got, 1, -1);

		if (n < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (n < 0) {
			perror("bench_wake: epoll_wait");
			goto out;
		}
		b = cpu_us();
		sum += touch(mem, len);
		c = cpu_us();
		sum += touch(mem, len);
		out->wake += b - a;
		out->cold += c - b;
		out->warm += cpu_us() - c;
		if (read(tfd, &ticks, sizeof(ticks)) < 0) {
			perror("bench_wake: read");
			goto out;
		}
	}
	out->wake /= wakeups;
	out->cold /= wakeups;
	out->warm /= wakeups;
	sink = sum;
	rc = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (ep >= 0)
		close(ep);
	return rc;
}

int main(int argc, char **argv)
{
	int wakeups = argc > 1 ? atoi(argv[1]) : 20;
	double period = argc > 2 ? atof(argv[2]) : 0.25;
	size_t len = (size_t)(argc > 3 ? atol(argv[3]) : 2048) * 1024;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t spin[256];
	long nspin = 0;
	struct result idle, busy;
	unsigned char *mem;
	int rc;

	if (wakeups <= 0 || period <= 0 || len == 0) {
		fprintf(stderr, "usage: bench_wake [WAKEUPS [PERIOD_S [TOUCH_KIB]]]\n");
		return 2;
	}
	if ((mem = malloc(len)) == NULL) {
		fprintf(stderr, "bench_wake: cannot allocate %zu KiB\n", len / 1024);
		return 1;
	}
	memset(mem, 1, len);
	if (run(wakeups, period, mem, len, &idle) != 0)
		return 1;
	for (; nspin < ncpu && nspin < 256; nspin++) {
		spin[nspin] = fork();
		if (spin[nspin] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				;
		}
		if (spin[nspin] < 0) {
			perror("bench_wake: fork");
			break;
		}
	}
	rc = run(wakeups, period, mem, len, &busy);
	for (long i = 0; i < nspin; i++)
		if (spin[i] > 0) {
			kill(spin[i], SIGKILL);
			waitpid(spin[i], NULL, 0);
		}
	if (rc != 0)
		return 1;
	printf("a wakeup every %g s, %d wakeups; CPU of this thread, us:\n", period, wakeups);
	printf("  idle CPUs:           in epoll_wait %.1f, reading %zu KiB after it %.1f (warm %.1f)\n", idle.wake,
	       len / 1024, idle.cold, idle.warm);
	printf("  %ld spinning child%s: in epoll_wait %.1f, reading %zu KiB after it %.1f (warm %.1f)\n", nspin,
	       nspin == 1 ? "" : "ren", busy.wake, len / 1024, busy.cold, busy.warm);
	free(mem);
	return 0;
}
