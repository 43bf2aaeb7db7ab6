/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload whose threads wait in known ways and time their own waits,
 * for --off-cpu's live tests:
 *   waitwork [gate] [xproc [late]] SECS [DIR]
 * Threads (named as their functions): wait_sleep sleeps 10 ms at a time;
 * wait_pipe reads a pipe that feed_pipe writes a byte to every 10 ms (with
 * xproc feed_pipe is another process, "feed_proc", forked before "ready":
 * a waker outside a -p target; with late wait_pipe and its feeding start
 * at a line on stdin: a thread born after a -p attached);
 * wait_lock takes a mutex that hold_lock keeps 10 ms at a time; with DIR,
 * wait_disk writes and fsyncs a file there (uninterruptible waits where
 * the disk has any). Each measures its own off-CPU time: its wall time
 * less its CPU time, from its start to its end. At the end it prints
 * {"wait_sleep": {"tid": T, "offcpu_ms": M, "switches": N}, ...} on stdout. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"

static double secs;
static const char *dir;
static int pfd[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

struct res {
	const char *name;
	pid_t tid;
	double offcpu_ms;
	void (*fn)(struct res *r);
	pthread_t th;
	long switches; /* context switches while timed: each moves the two clocks apart a little */
};

static double clk(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

__attribute__((noinline)) static void wait_sleep(struct res *r)
{
	(void)r;
	while (!stop)
		nap(10);
}

__attribute__((noinline)) static void wait_pipe(struct res *r)
{
	char c;

	(void)r;
	while (!stop && read(pfd[0], &c, 1) == 1)
		;
}

__attribute__((noinline)) static void feed_pipe(struct res *r)
{
	(void)r;
	while (!stop) {
		nap(10);
		if (write(pfd[1], "x", 1) != 1)
			break;
	}
	close(pfd[1]); /* wait_pipe's read ends */
}

__attribute__((noinline)) static void wait_lock(struct res *r)
{
	(void)r;
	nap(2); /* hold_lock first */
	while (!stop) {
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
		nap(1); /* lets hold_lock take it again */
	}
}

__attribute__((noinline)) static void hold_lock(struct res *r)
{
	(void)r;
	while (!stop) {
		pthread_mutex_lock(&mu);
		nap(10);
		pthread_mutex_unlock(&mu);
		nap(1);
	}
}

__attribute__((noinline)) static void wait_disk(struct res *r)
{
	char path[4096], buf[4096];
	int fd;

	(void)r;
	snprintf(path, sizeof(path), "%s/waitwork.%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	unlink(path);
	memset(buf, 'x', sizeof(buf));
	for (long i = 0; !stop; i++) {
		if (pwrite(fd, buf, sizeof(buf), (i % 256) * (long)sizeof(buf)) < 0 || fsync(fd) < 0)
			break;
	}
	close(fd);
}

/* xproc: feed_pipe in a child process of its own, started by a byte on
 * go; it ends when its writes fail (the reader gone) or at SIGTERM. */
static pid_t feeder(int go)
{
	pid_t pid = fork();
	char c;

	if (pid != 0)
		return pid;
	prctl(PR_SET_NAME, "feed_proc");
	signal(SIGPIPE, SIG_IGN);
	close(pfd[0]);
	if (read(go, &c, 1) == 1)
		feed_pipe(NULL);
	_exit(0);
}

static void *run(void *arg)
{
	struct res *r = arg;
	double w0, c0;
	struct rusage ru;

	pthread_setname_np(pthread_self(), r->name);
	r->tid = (pid_t)syscall(SYS_gettid);
	w0 = clk(CLOCK_MONOTONIC);
	c0 = clk(CLOCK_THREAD_CPUTIME_ID);
	r->fn(r);
	r->offcpu_ms = ((clk(CLOCK_MONOTONIC) - w0) - (clk(CLOCK_THREAD_CPUTIME_ID) - c0)) * 1e3;
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		r->switches = ru.ru_nvcsw + ru.ru_nivcsw;
	return NULL;
}

int main(int argc, char **argv)
{
	struct res rs[] = {
		{ "wait_sleep", 0, 0, wait_sleep, 0, 0 }, { "wait_pipe", 0, 0, wait_pipe, 0, 0 },
		{ "feed_pipe", 0, 0, feed_pipe, 0, 0 }, { "wait_lock", 0, 0, wait_lock, 0, 0 },
		{ "hold_lock", 0, 0, hold_lock, 0, 0 }, { "wait_disk", 0, 0, wait_disk, 0, 0 },
	};
	size_t n = sizeof(rs) / sizeof(rs[0]);
	int at = argc > 1 && strcmp(argv[1], "gate") == 0 ? 2 : 1, go[2] = { -1, -1 }, rc;
	pid_t child = 0;
	bool late = false;
	char line[16];

	/* Forked before "ready": not inherited by a -p on this process. */
	if (argc > at && strcmp(argv[at], "xproc") == 0) {
		memmove(argv + at, argv + at + 1, (size_t)(argc - at) * sizeof(*argv));
		argc--;
		if (pipe(pfd) || pipe(go) || (child = feeder(go[0])) < 0)
			return 1;
		close(pfd[1]);
		close(go[0]);
		rs[2].fn = NULL; /* no feed_pipe thread here */
		if (argc > at && strcmp(argv[at], "late") == 0) {
			memmove(argv + at, argv + at + 1, (size_t)(argc - at) * sizeof(*argv));
			argc--;
			late = true;
		}
	} else if (pipe(pfd)) {
		return 1;
	}
	if ((rc = gate_open(&argc, &argv, 2)) != 0)
		return rc;
	secs = atof(argv[1]);
	dir = argc > 2 ? argv[2] : NULL;
	if (!dir)
		n--;
	if (child > 0 && !late && write(go[1], "g", 1) != 1)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (rs[i].fn && (!late || i != 1) && pthread_create(&rs[i].th, NULL, run, &rs[i]))
			return 1;
	if (late && (fgets(line, sizeof(line), stdin) == NULL || write(go[1], "g", 1) != 1 ||
		     pthread_create(&rs[1].th, NULL, run, &rs[1])))
		return 1;
	nap((long)(secs * 1000));
	stop = 1;
	if (child > 0) { /* wait_pipe's read ends at its next byte */
		nap(30);
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	for (size_t i = 0; i < n; i++)
		if (rs[i].fn)
			pthread_join(rs[i].th, NULL);
	printf("{");
	for (size_t i = 0, k = 0; i < n; i++)
		if (rs[i].fn)
			printf("%s\"%s\": {\"tid\": %d, \"offcpu_ms\": %.3f, \"switches\": %ld}", k++ ? ", " : "",
			       rs[i].name, (int)rs[i].tid, rs[i].offcpu_ms, rs[i].switches);
	printf("}\n");
	return 0;
}
