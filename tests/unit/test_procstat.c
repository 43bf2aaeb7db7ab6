/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procstat: the parsers on known text, and the system-wide files kept open
 * between reads (the live view reads them at every tick). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "procstat.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

static void test_parse_cpus(void)
{
	static const char text[] =
		"cpu  100 0 50 1000 10 0 0 0 0 0\n"
		"cpu0 10 1 2 300 4 5 6 7 8 9\n"
		"cpu1 20 0 5 400\n"
		"cpu2 20 0\n"          /* too few figures: skipped */
		"cpux 1 2 3 4 5\n"
		"cpu17 1 1 1 1 1 1 1 1\n"
		"intr 12345 1 2 3\n"
		"ctxt 999\n";
	struct procstat_cpu c[8];
	int n = procstat_parse_cpus(text, c, 8);

	CHECK(n == 3, "three cpuN lines with figures (%d)", n);
	CHECK(n >= 1 && c[0].cpu == 0 && c[0].total == 10 + 1 + 2 + 300 + 4 + 5 + 6 + 7 && c[0].busy == c[0].total - 304,
	      "cpu0: total of the 8 first fields, busy without idle and iowait (%llu, %llu)",
	      (unsigned long long)c[0].total, (unsigned long long)c[0].busy);
	CHECK(n >= 2 && c[1].cpu == 1 && c[1].total == 425 && c[1].busy == 25, "cpu1: an old kernel's four fields");
	CHECK(n >= 3 && c[2].cpu == 17 && c[2].total == 8 && c[2].busy == 6, "cpu17 after a gap");
	CHECK(procstat_parse_cpus(text, c, 2) == 2, "no more than max");
	CHECK(procstat_parse_cpus("", c, 8) == 0, "empty");
}

static void test_parse_sys(void)
{
	struct procstat_sys s;

	CHECK(procstat_parse_sys("0.52 1.25 10.08 3/412 9999\n",
				 "MemTotal:       24684092 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n", &s) == 0 &&
	      s.load[0] == 0.52 && s.load[1] == 1.25 && s.load[2] == 10.08 && s.running == 3 && s.tasks == 412 &&
	      s.mem_total == 24684092ull * 1024 && s.mem_used == 4684092ull * 1024,
	      "loadavg and meminfo");
	CHECK(procstat_parse_sys("0.52 1.25 10.08 3 412\n", "", &s) == -EINVAL, "no running/tasks: refused");
	CHECK(procstat_parse_sys("x", "", &s) == -EINVAL, "garbage refused");
}

/* Where reading /proc/stat may stop: only with every cpu line whole. */
static void test_stat_complete(void)
{
	CHECK(procstat_stat_complete("cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5"), "cpu lines, then intr begun: enough");
	CHECK(!procstat_stat_complete("cpu  1 2 3 4\ncpu0 1 2"), "a cpu line cut: not enough");
	CHECK(!procstat_stat_complete("cpu  1 2 3 4\ncpu0 1 2 3 4\n"), "nothing after the cpu lines yet: not enough");
	CHECK(!procstat_stat_complete("cpu  1 2 3 4\ncp"), "a line begun that may be cpu1: not enough");
	CHECK(procstat_stat_complete("cpu  1 2 3 4\ni"), "a line begun that cannot be a cpu line: enough");
	CHECK(!procstat_stat_complete(""), "nothing read: not enough");
	CHECK(!procstat_stat_complete("intr 1 2\n"), "no cpu line first: read on to the end");
}

static void test_live(void)
{
	struct procstat_cpu a[64], b[64];
	struct procstat_sys s;
	int before = open_fds(), n, m, during;

	n = procstat_cpus(a, 64);
	CHECK(n > 0, "this machine's CPUs (%d)", n);
	CHECK(procstat_sys(&s) == 0 && s.tasks > 0 && s.mem_total > 0, "this machine's load and memory");
	during = open_fds();
	for (int i = 0; i < 10; i++) {
		m = procstat_cpus(b, 64);
		procstat_sys(&s);
	}
	CHECK(m == n && b[0].total >= a[0].total, "read again: the same CPUs");
	{
		unsigned long r0 = procstat_reads();

		procstat_cpus(b, 64);
		procstat_sys(&s);
		/* A second read only to find EOF has the kernel write the file again. */
		CHECK(procstat_reads() - r0 == 3, "one read a file (%lu for three)", procstat_reads() - r0);
	}
	/* A kept descriptor must not hand back the first read's text: 200 ms
	 * on (20 ticks of USER_HZ), every CPU's total has grown. */
	nanosleep(&(struct timespec){ 0, 200000000L }, NULL);
	m = procstat_cpus(b, 64);
	CHECK(m == n && b[0].total > a[0].total, "read afresh (%llu then %llu)", (unsigned long long)a[0].total,
	      (unsigned long long)b[0].total);
	CHECK(during == before + 3 && open_fds() == during,
	      "the three files stay open between reads, no more (%d, %d, %d)", before, during, open_fds());
	procstat_close();
	CHECK(open_fds() == before, "closed");
	CHECK(procstat_cpus(b, 64) == n, "opened again after a close");
	procstat_close();
}

/* A thread's own times are under its process's task/ folder (the main
 * thread's too); /proc/TID/stat is the whole process's. */
static void test_task_path(void)
{
	char p[64], small[16];
	struct procstat_task t;
	static const char stat[] = "42 (a b) c) R 1 42 42 0 -1 4194304 100 0 0 0 "
				   "250 50 0 0 20 0 2 0 12345 1000 10";

	CHECK(procstat_task_path(p, sizeof(p), 42, 0) == 0 && strcmp(p, "/proc/42/stat") == 0,
	      "a process: /proc/PID/stat (%s)", p);
	CHECK(procstat_task_path(p, sizeof(p), 42, 43) == 0 && strcmp(p, "/proc/42/task/43/stat") == 0,
	      "a thread: /proc/PID/task/TID/stat (%s)", p);
	CHECK(procstat_task_path(p, sizeof(p), 42, 42) == 0 && strcmp(p, "/proc/42/task/42/stat") == 0,
	      "the main thread: its own, not its process's (%s)", p);
	CHECK(procstat_task_path(small, sizeof(small), 42, 43) == -ENAMETOOLONG, "too small a buffer: refused");
	CHECK(procstat_parse_task(stat, &t) == 0 && t.ticks == 300 && t.start == 12345,
	      "utime+stime and start after the comm's last ')' (%llu, %llu)", (unsigned long long)t.ticks,
	      (unsigned long long)t.start);
	CHECK(t.threads == 2, "num_threads, field 20 (%u)", t.threads);
	CHECK(procstat_parse_task("42 (x R 1", &t) == -EINVAL, "no ')': refused");
}

/* This process's two threads, one spinning: the spinner's own figure
 * grows, the idle one's stays, the process's holds both. */
static volatile bool spin_stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

static void test_task_live(void)
{
	struct procstat_task main0, spin0, main1, spin1, proc1;
	pid_t pid = getpid();
	pthread_t th;
	pid_t spin_tid = 0;
	struct timespec wait = { 0, 100 * 1000 * 1000 };
	DIR *d;
	struct dirent *de;

	if (pthread_create(&th, NULL, spinner, NULL) != 0) {
		CHECK(false, "a thread to spin");
		return;
	}
	d = opendir("/proc/self/task");
	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && atoi(de->d_name) != pid)
			spin_tid = atoi(de->d_name);
	if (d)
		closedir(d);
	CHECK(spin_tid > 0 && procstat_task(pid, pid, &main0) == 0 && procstat_task(pid, spin_tid, &spin0) == 0,
	      "both threads read");
	/* A loaded machine may run the spinner little: up to 5 s for 5 ticks. */
	for (int i = 0; i < 50; i++) {
		nanosleep(&wait, NULL);
		if (procstat_task(pid, spin_tid, &spin1) != 0 || spin1.ticks >= spin0.ticks + 5)
			break;
	}
	CHECK(procstat_task(pid, pid, &main1) == 0 && procstat_task(pid, spin_tid, &spin1) == 0 &&
	      procstat_task(pid, 0, &proc1) == 0, "read again");
	spin_stop = true;
	pthread_join(th, NULL);
	CHECK(spin1.ticks - spin0.ticks > main1.ticks - main0.ticks,
	      "the spinner's own time grew (%llu ticks), the sleeper's did not (%llu)",
	      (unsigned long long)(spin1.ticks - spin0.ticks), (unsigned long long)(main1.ticks - main0.ticks));
	CHECK(proc1.ticks >= spin1.ticks, "the process holds its threads' time");
	CHECK(proc1.threads == 2 && spin1.threads == 2, "its threads: main and the spinner (%u; a thread's file: %u)",
	      proc1.threads, spin1.threads);
	CHECK(procstat_task(pid, 999999999, &proc1) < 0, "a thread that is not there: an error");
}

/* Tasks counts processes as top and htop do: the PID folders of /proc, not
 * /proc/loadavg's threads (a header once showed 204 for 162 processes). */
static void test_count_procs(void)
{
	char dir[] = "/tmp/procstat-XXXXXX", path[64];
	const char *names[] = { "1", "42", "4096", "self", "0x1", "12a", "sys" };
	struct procstat_sys s;

	if (!mkdtemp(dir)) {
		CHECK_SKIP("no temporary folder");
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		mkdir(path, 0700);
	}
	CHECK(procstat_count_procs(dir) == 3, "the PID folders only (%d of 7 entries)", procstat_count_procs(dir));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rmdir(path);
	}
	rmdir(dir);
	CHECK(procstat_count_procs("/nonexistent") < 0, "a missing folder: an error");
	CHECK(procstat_sys(&s) == 0 && s.procs > 0 && s.procs <= s.tasks,
	      "the header's processes (%u) are no more than its threads (%u)", s.procs, s.tasks);
	procstat_close();
}

int main(void)
{
	test_count_procs();
	test_task_path();
	test_task_live();
	test_parse_cpus();
	test_parse_sys();
	test_stat_complete();
	test_live();
	return check_done();
}
