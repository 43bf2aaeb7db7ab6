/* procstat: the parsers on known text, and the system-wide files kept open
 * between reads (the live view reads them at every tick). */
#include <dirent.h>
#include <errno.h>
#include <time.h>

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

int main(void)
{
	test_parse_cpus();
	test_parse_sys();
	test_stat_complete();
	test_live();
	return check_done();
}
