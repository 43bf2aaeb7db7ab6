/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fixtures' hot loop: SPIN_FN(name) defines `void name(double secs)`,
 * which burns CPU in its own body for secs seconds, so that samples land in
 * a function whose name the test knows. */
#ifndef PERFTOP_TEST_SPIN_H
#define PERFTOP_TEST_SPIN_H

#include <stdint.h>
#include <time.h>

#define SPIN_FN(name)                                                                          \
	void name(double secs);                                                                \
	static volatile uint64_t name##_sink;                                                  \
	__attribute__((noinline)) void name(double secs)                                       \
	{                                                                                      \
		struct timespec t0, t;                                                         \
		uint64_t x = name##_sink;                                                      \
                                                                                               \
		clock_gettime(CLOCK_MONOTONIC, &t0);                                           \
		do {                                                                           \
			for (int i = 0; i < 1000000; i++)                                      \
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;       \
			name##_sink = x;                                                       \
			clock_gettime(CLOCK_MONOTONIC, &t);                                    \
		} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < \
			 secs);                                                                \
	}

#endif
