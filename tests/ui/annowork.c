/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The annotate view's workload: divloop spends most of its time in one
 * divide, calls mix (a small callee) each turn and jumps back to its head;
 * built with -g, so its instructions have source lines.
 *   annowork [gate] SECS */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../live/gate.h"

static volatile uint64_t divisor = 7, sink;

__attribute__((noinline)) uint64_t mix(uint64_t x);
__attribute__((noinline)) uint64_t divloop(uint64_t n);

__attribute__((noinline)) uint64_t mix(uint64_t x)
{
	return (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ULL;
}

__attribute__((noinline)) uint64_t divloop(uint64_t n)
{
	uint64_t acc = 1, d = divisor;

	for (uint64_t i = 0; i < n; i++) {
		acc += (acc | 1) / (d | 1); /* the divide: most of the time */
		if ((i & 15) == 0)
			acc = mix(acc);
	}
	return acc;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end;
	int rc = gate_open(&argc, &argv, 2);

	if (rc)
		return rc;
	end = now() + atof(argv[1]);
	while (now() < end)
		sink += divloop(200000);
	return 0;
}
