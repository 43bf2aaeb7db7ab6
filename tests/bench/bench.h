/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every benchmark program here needs (and clock.h's clocks): medians of noisy
 * runs, a repeatable pseudo-random sequence, and timing a shell command. */
#ifndef PERFTOP_BENCH_H
#define PERFTOP_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v. */
static inline double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* xorshift64: the same addresses every run; seed it with any non-zero. */
static inline uint64_t bench_rng(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Wall seconds of a shell command, or -1 when it failed. */
static inline double timed(const char *cmd)
{
	double t0 = clock_mono_s();

	if (system(cmd) != 0)
		return -1;
	return clock_mono_s() - t0;
}

/* Lines of a shell command's output holding both needles (NULL: any). */
static inline long count_lines(const char *cmd, const char *need1, const char *need2)
{
	char line[512];
	long n = 0;
	FILE *p = popen(cmd, "r");

	while (p && fgets(line, sizeof(line), p))
		n += (need1 == NULL || strstr(line, need1)) && (need2 == NULL || strstr(line, need2));
	if (p)
		pclose(p);
	return n;
}

#endif
