/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For test_pidreuse.py, built twice:
 *   (default) THREADS SECS: spins in THREADS threads (the main one too) for
 *     SECS seconds; prints "ready" once they all run. Copied to the names
 *     the test wants as comms (oldowner, newowner).
 *   -DFORKER TARGET PROG ARGS...: forks until the child gets PID TARGET
 *     (writing TARGET-1 to /proc/sys/kernel/ns_last_pid before each fork;
 *     a child with another PID exits at once), which execs PROG; then waits
 *     for it. Exit 3 when TARGET could not be had. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FORKER
static volatile unsigned long sink;
static double end;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void owner_spin(void)
{
	while (now() < end)
		for (unsigned long i = 0; i < 100000; i++)
			sink += i;
}

static void *thread_main(void *arg)
{
	(void)arg;
	owner_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t[64];

	end = now() + (argc > 2 ? atof(argv[2]) : 2);
	if (n < 1 || n > 64)
		return 2;
	for (int i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			return 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	owner_spin();
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
#else
int main(int argc, char **argv)
{
	pid_t target, pid;
	int status;
	FILE *f;

	if (argc < 3)
		return 2;
	target = atoi(argv[1]);
	for (int tries = 0; tries < 1000; tries++) {
		f = fopen("/proc/sys/kernel/ns_last_pid", "r+e");
		if (!f)
			return 3;
		flock(fileno(f), LOCK_EX); /* as CRIU does: others setting it wait */
		fprintf(f, "%d", target - 1);
		fflush(f);
		pid = fork();
		if (pid == 0) {
			if (getpid() != target)
				_exit(0);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		fclose(f);
		if (pid < 0)
			return 3;
		if (waitpid(pid, &status, 0) != pid)
			return 3;
		if (pid == target)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	return 3;
}
#endif
