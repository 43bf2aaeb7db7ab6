/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock: the one monotonic clock every layer reads (CLOCK_MONOTONIC, the
 * clock perf records are stamped with), and the wall clock for output. */
#ifndef PERFTOP_CLOCK_H
#define PERFTOP_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds. */
static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer (clock_gettime(2)). */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic seconds. */
static inline double clock_mono_s(void)
{
	return (double)clock_mono_ns() / 1e9;
}

/* Seconds since the epoch, for timestamps users read. */
static inline double clock_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's CPU seconds so far (what the exporter's threads cost). */
static inline double clock_thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
