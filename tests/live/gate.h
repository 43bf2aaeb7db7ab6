/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workloads' start: an optional "gate" word first (then they wait for a
 * line on stdin before working, so a test can start its sampler first),
 * "ready PID" on stdout. */
#ifndef PERFTOP_TEST_GATE_H
#define PERFTOP_TEST_GATE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 0 to go on; 2 when fewer than min_args are left; 1 when the gate's line
 * never came. */
static inline int gate_open(int *argc, char ***argv, int min_args)
{
	bool gate = *argc > 1 && strcmp((*argv)[1], "gate") == 0;

	if (gate) {
		(*argc)--;
		(*argv)++;
	}
	if (*argc < min_args)
		return 2;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (gate) {
		char line[16];

		if (fgets(line, sizeof(line), stdin) == NULL)
			return 1;
	}
	return 0;
}

#endif
