/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Churn for the soak test: for SECS seconds, loop dlopen/dlsym/dlclose of
 * libm (new mappings, then none, for perftop's process table) and start
 * short-lived threads (FORK/EXIT records, thread rows coming and going),
 * each named anew (control characters included): thread rows with names
 * never seen before.
 *   churn_helper SECS [TAG] */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct fn {
	double (*f)(double);
	unsigned long id;
};

static void *spin(void *arg)
{
	double (*cosp)(double) = ((const struct fn *)arg)->f;
	char name[16];
	double x = 0;

	snprintf(name, sizeof(name), "\033]0;t%lu\a", ((const struct fn *)arg)->id);
	prctl(PR_SET_NAME, name, 0, 0, 0);

	for (int i = 0; i < 20000; i++)
		x += cosp ? cosp(i) : i;
	sink += (uint64_t)x;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, end = now() + secs;
	unsigned long loops = 0, threads = 0, tag = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;

	while (now() < end) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
		/* POSIX guarantees dlsym's object pointer converts to a function. */
		void *fp = h ? dlsym(h, "cos") : NULL;
		struct fn cosf[4] = { { NULL, 0 } };
		pthread_t t[4];
		int n = 0;

		for (int i = 0; i < 4; i++) {
			*(void **)&cosf[n].f = fp;
			cosf[n].id = (tag * 1000000 + loops) * 4 + (unsigned long)i;
			if (pthread_create(&t[n], NULL, spin, &cosf[n]) == 0)
				n++;
		}
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		threads += (unsigned long)n;
		if (h)
			dlclose(h);
		loops++;
	}
	printf("%lu dlopen loops, %lu threads\n", loops, threads);
	return 0;
}
