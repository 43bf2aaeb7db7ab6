/* Churn for the soak test: for SECS seconds, loop dlopen/dlsym/dlclose of
 * libm (new mappings, then none, for perftop's process table) and start
 * short-lived threads (FORK/EXIT records, thread rows coming and going).
 *   churn_helper SECS */
#include <dlfcn.h>
#include <pthread.h>
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
};

static void *spin(void *arg)
{
	double (*cosp)(double) = ((const struct fn *)arg)->f;
	double x = 0;

	for (int i = 0; i < 20000; i++)
		x += cosp ? cosp(i) : i;
	sink += (uint64_t)x;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10, end = now() + secs;
	unsigned long loops = 0, threads = 0;

	while (now() < end) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
		struct fn cosf = { NULL };
		pthread_t t[4];

		/* POSIX guarantees dlsym's object pointer converts to a function. */
		if (h)
			*(void **)&cosf.f = dlsym(h, "cos");
		int n = 0;

		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[n], NULL, spin, &cosf) == 0)
				n++;
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
