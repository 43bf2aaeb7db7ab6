/* A shared library that fixture_dlopen loads once perftop watches: its one
 * function must show by name, with the library as its DSO. */
#include <stdint.h>
#include <time.h>

void libhot_spin(double secs);

static volatile uint64_t sink;

void libhot_spin(double secs)
{
	struct timespec t0, t;
	uint64_t x = sink;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}
