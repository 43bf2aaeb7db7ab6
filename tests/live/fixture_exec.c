/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program that becomes another: perftop -p must follow the exec (COMM
 * with the exec flag, then the new image's MMAP2s) and name the new code.
 * Built twice, non-PIE both times, so the two images' code lies at the same
 * addresses and a map left over from the old image would name it wrongly.
 *
 * usage: fixture_exec [gate] SECS [PROGRAM ARGS...]
 *   prints "ready PID" (and with gate waits for a line on stdin), spins SECS
 *   in spin_before_exec (spin_after_exec when built with -DAFTER_EXEC), then
 *   execs PROGRAM ARGS if given. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

#ifdef AFTER_EXEC
#define SPIN spin_after_exec
#else
#define SPIN spin_before_exec
#endif

SPIN_FN(SPIN)

int main(int argc, char **argv)
{
	char line[16];

	if (argc > 1 && strcmp(argv[1], "gate") == 0) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			return 1;
		argc--;
		argv++;
	}
	if (argc < 2)
		return 2;
	SPIN(atof(argv[1]));
	if (argc > 2) {
		execv(argv[2], argv + 2);
		perror("fixture_exec: execv");
		return 1;
	}
	return 0;
}
