/* SPDX-License-Identifier: GPL-2.0-or-later */
/* divwork: a hot loop whose time goes to one instruction, a 64-bit divide
 * each result of which the next one needs (the annotate tests: perftop's
 * per-instruction shares against perf annotate's). Built -g -O1.
 * usage: divwork [gate] SECS — prints "ready PID", works SECS seconds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gate.h"

/* Not constants: the compiler must divide, not multiply by an inverse. */
volatile uint64_t divwork_divisor = 3, divwork_addend = 0x123456789abcdefull;
volatile uint64_t divwork_sink;

uint64_t hotfn(uint64_t x, uint64_t n);

__attribute__((noinline)) uint64_t hotfn(uint64_t x, uint64_t n)
{
	uint64_t d = divwork_divisor, k = divwork_addend;

	for (uint64_t i = 0; i < n; i++)
		x = x / d + k; /* DIVIDE: the loop's time */
	return x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int rc = gate_open(&argc, &argv, 2);
	double secs, end;
	uint64_t x = 1;

	if (rc == 2)
		fprintf(stderr, "usage: divwork [gate] SECS\n");
	if (rc)
		return rc;
	secs = atof(argv[1]);
	end = now() + secs;
	while (now() < end)
		x = hotfn(x, 1000000);
	divwork_sink = x;
	return 0;
}
