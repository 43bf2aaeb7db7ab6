/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For test_rebuild.py, built twice at one path: -DHOT=alpha_hot, then
 * -DHOT=beta_hot. Spins in HOT for SECS seconds (argv[1]) of wall time or
 * until SIGTERM, then prints the CPU time it used in ns. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void HOT(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		sink += i * i;
}

int main(int argc, char **argv)
{
	double end = now(CLOCK_MONOTONIC) + (argc > 1 ? atof(argv[1]) : 5);

	signal(SIGTERM, on_term);
	printf("ready\n");
	fflush(stdout);
	while (!stop && now(CLOCK_MONOTONIC) < end)
		HOT();
	printf("%.0f\n", now(CLOCK_PROCESS_CPUTIME_ID) * 1e9);
	return 0;
}
