/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two threads bouncing a byte over two pipes: a context-switch load.
 *   pingpong SECS [ROUNDS_PER_SEC]
 * Each round trip blocks and wakes both sides (on two CPUs, four switches
 * with the idle task). 0 or no rate: as fast as they go. Prints the round
 * trips done as {"rounds": N, "secs": S} at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *pong(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "pong");
	while (read(ab[0], &c, 1) == 1)
		if (write(ba[1], &c, 1) != 1)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5, rate = argc > 2 ? atof(argv[2]) : 0, t0, t;
	unsigned long rounds = 0;
	pthread_t th;
	char c = 'x';

	if (pipe(ab) || pipe(ba) || pthread_create(&th, NULL, pong, NULL))
		return 1;
	t0 = now();
	for (;;) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
		rounds++;
		if (rounds % 64 == 0) {
			t = now() - t0;
			if (t >= secs)
				break;
			/* Paced: ahead of the rate, sleep the difference. */
			if (rate > 0 && rounds / rate > t)
				usleep((useconds_t)((rounds / rate - t) * 1e6));
		}
	}
	close(ab[1]);
	pthread_join(th, NULL);
	printf("{\"rounds\": %lu, \"secs\": %.3f}\n", rounds, now() - t0);
	return 0;
}
