/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Short-lived processes for test_shortlived.py, built twice, static, and
 * timed with raw syscalls, so that every user-space sample of them lies in
 * these two binaries.
 *   ptshort MS: runs MS milliseconds in short_hot/short_warm and exits.
 *   ptlaunch CPU SECS EXE (-DLAUNCHER): for SECS seconds, forks (here), moves
 *     the child to CPU, which execs EXE for 50-150 ms; prints the run count. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static long now_ms(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

#ifndef LAUNCHER
__attribute__((noinline)) void short_hot(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink += i * i;
}

__attribute__((noinline)) void short_warm(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	long end = now_ms() + (argc > 1 ? atol(argv[1]) : 100);

	while (now_ms() < end) {
		short_hot();
		short_warm();
	}
	return 0;
}
#else
int main(int argc, char **argv)
{
	long end, runs = 0;
	cpu_set_t set;

	if (argc != 4)
		return 2;
	end = now_ms() + atol(argv[2]) * 1000L;
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	while (now_ms() < end) {
		char ms[16];
		pid_t pid;

		snprintf(ms, sizeof(ms), "%ld", 50 + (runs * 37) % 101);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			sched_setaffinity(0, sizeof(set), &set);
			execl(argv[3], argv[3], ms, (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		runs++;
	}
	printf("%ld\n", runs);
	return 0;
}
#endif
