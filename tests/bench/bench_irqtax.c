/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine's tax on sampling: what a system-wide cpu-clock sampler at a
 * given rate costs every other program's CPU. A fixed loop of reads (a
 * small working set and a perftop-sized one) is timed by its own thread's
 * CPU clock, alone and beside `perf record -a -e cpu-clock -F RATE`; the
 * slowdown is what any code pays for the interrupts that land on it (their
 * handler's time is charged to whatever they interrupt), and from it the
 * cost of one sampling interrupt on this machine.
 *
 * usage: bench_irqtax [RATES [REPS]]   (default 20000,50000,100000 and 3)
 *
 * perftop's CPU a sample is its own work times this slowdown: on the VMs
 * where a sampling interrupt cost 9-15 us (30 Nov 2026), 100 kHz left a CPU
 * 4-8 % of its time, and every program, perf top too, ran 13-28 times slower. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define ITERS 20000000ul

/* ns of this thread's CPU a read, at random over kib KiB. */
static double loop_ns(const unsigned char *buf, size_t kib)
{
	uint64_t st = 88172645463325252ull, sum = 0;
	size_t mask = kib * 1024 - 1;
	double t0 = clock_thread_cpu_s();

	for (unsigned long i = 0; i < ITERS; i++)
		sum += buf[bench_rng(&st) & mask];
	__asm__ volatile("" : : "r"(sum));
	return (clock_thread_cpu_s() - t0) / (double)ITERS * 1e9;
}

/* A system-wide sampler at rate Hz, or -1 when perf cannot start one. */
static pid_t sampler(unsigned long rate, const char *out)
{
	char f[32];
	int st;
	pid_t p;

	snprintf(f, sizeof(f), "%lu", rate);
	fflush(stdout); /* else the child's freopen writes our buffer again */
	if ((p = fork()) < 0)
		return -1;
	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (freopen("/dev/null", "w", stdout) == NULL || freopen("/dev/null", "w", stderr) == NULL)
			_exit(127);
		execlp("perf", "perf", "record", "-q", "-a", "-e", "cpu-clock", "-F", f, "-o", out, "--", "sleep",
		       "3600", (char *)NULL);
		_exit(127);
	}
	sleep(1);
	if (waitpid(p, &st, WNOHANG) == p)
		return -1; /* gone already: no perf, or no permission */
	return p;
}

static void measure(double out[2], const unsigned char *buf, const size_t *kib, unsigned reps)
{
	double v[16] = { 0 };

	for (int k = 0; k < 2; k++) {
		for (unsigned r = 0; r < reps; r++)
			v[r] = loop_ns(buf, kib[k]);
		out[k] = median(v, reps);
	}
}

int main(int argc, char **argv)
{
	const char *rates = argc > 1 ? argv[1] : "20000,50000,100000";
	unsigned reps = argc > 2 ? (unsigned)atoi(argv[2]) : 3;
	const size_t kib[2] = { 64, 2048 }; /* L1/L2-sized; perftop's tables and rings in flight */
	char out[] = "/tmp/bench_irqtax.XXXXXX";
	unsigned char *buf = malloc(kib[1] * 1024);
	double base[2];
	int fd;

	if (reps < 1 || reps > 16 || buf == NULL) {
		fprintf(stderr, buf ? "bench_irqtax: REPS is 1 to 16\n" : "bench_irqtax: out of memory\n");
		free(buf);
		return 2;
	}
	memset(buf, 1, kib[1] * 1024);
	if ((fd = mkstemp(out)) < 0) {
		fprintf(stderr, "bench_irqtax: mkstemp: %s\n", strerror(errno));
		free(buf);
		return 1;
	}
	close(fd);
	measure(base, buf, kib, reps);
	printf("alone: %.2f ns a read in %zu KiB, %.2f in %zu KiB (thread CPU, median of %u)\n", base[0], kib[0],
	       base[1], kib[1], reps);
	for (const char *p = rates; *p;) {
		char *end;
		unsigned long rate = strtoul(p, &end, 10);
		double m[2];
		pid_t s;

		if (end == p || rate == 0)
			break;
		p = *end == ',' ? end + 1 : end;
		if ((s = sampler(rate, out)) < 0) {
			printf("%lu Hz: skipped (perf record -a could not start: not installed, or not root)\n", rate);
			continue;
		}
		measure(m, buf, kib, reps);
		kill(s, SIGINT);
		waitpid(s, NULL, 0);
		for (int k = 0; k < 2; k++) {
			double slow = m[k] / base[k];

			/* A CPU's time left to programs is 1/slow; the rest went to
			 * rate interrupts a second. */
			printf("%lu Hz beside perf record -a: %.2f ns a read in %zu KiB, %.1fx: %.1f us of CPU a "
			       "sampling interrupt, %.0f %% of each CPU\n",
			       rate, m[k], kib[k], slow, (1 - 1 / slow) / (double)rate * 1e6, (1 - 1 / slow) * 100);
		}
	}
	unlink(out);
	free(buf);
	return 0;
}
