/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N sleeping processes for the start-up benchmark (startup_bench.py).
 * usage: sleepers N
 * Prints "ready N" once all are forked, then waits for EOF on stdin (or a
 * signal) and kills them all. Each child dies with this process too
 * (PR_SET_PDEATHSIG), so a killed benchmark leaves none behind. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	struct sigaction sa = { .sa_handler = on_signal };
	pid_t *kids;
	long made = 0;
	char c;

	if (argc != 2 || n < 0 || n > 1000000) {
		fprintf(stderr, "usage: sleepers N\n");
		return 2;
	}
	kids = calloc((size_t)n + 1, sizeof(*kids));
	if (kids == NULL) {
		fprintf(stderr, "sleepers: out of memory\n");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (; made < n && !stop; made++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "sleepers: fork %ld of %ld: %s (see ulimit -u, kernel.pid_max)\n", made + 1, n,
				strerror(errno));
			break;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == 1)
				_exit(0); /* the parent died before the line above */
			for (;;)
				pause();
		}
		kids[made] = pid;
	}
	printf("ready %ld\n", made);
	fflush(stdout);
	while (!stop && made == n && read(0, &c, 1) > 0)
		;
	for (long i = 0; i < made; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	free(kids);
	return made == n ? 0 : 1;
}
