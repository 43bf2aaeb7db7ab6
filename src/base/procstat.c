/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procstat: small /proc readers for the live view's header and %CPU.
 *
 * The three system-wide files are read at every tick of the live view:
 * they stay open, a read at offset 0 has the kernel write them afresh, and
 * reading stops at what is needed (one read each, not a second to EOF).
 * An open, a fstat, a FILE with its buffer and a scanf for each was about
 * a tenth of the live view's steady state (a path walk through /proc and
 * the stdio machinery, against the kernel's own formatting). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procstat.h"

enum { F_STAT, F_LOADAVG, F_MEMINFO, F_COUNT };

static const char *const sys_path[F_COUNT] = { "/proc/stat", "/proc/loadavg", "/proc/meminfo" };
static int sys_fd[F_COUNT] = { -1, -1, -1 };

static unsigned long reads; /* preads issued, for the tests */

/* The file's start, up to len - 1 bytes, null-terminated: its length, or
 * -errno. Reading stops once enough(buf) says what the caller needs is
 * there: a read past it would only have the kernel write the whole file
 * again to find its end (a read at an offset starts the file afresh). A
 * descriptor that fails is closed and opened again once (a /proc that was
 * remounted, say). */
static ssize_t read_sys(int f, char *buf, size_t len, bool (*enough)(const char *buf))
{
	for (int tries = 0; tries < 2; tries++) {
		size_t got = 0;
		ssize_t n = 0;

		if (sys_fd[f] < 0 && (sys_fd[f] = open(sys_path[f], O_RDONLY | O_CLOEXEC)) < 0)
			return -errno;
		/* seq files may hand out a page or so a read: go on to len */
		while (got < len - 1) {
			reads++;
			if ((n = pread(sys_fd[f], buf + got, len - 1 - got, (off_t)got)) <= 0)
				break;
			got += (size_t)n;
			buf[got] = '\0';
			if (enough(buf))
				break;
		}
		if (n >= 0 || got > 0) {
			buf[got] = '\0';
			return (ssize_t)got;
		}
		close(sys_fd[f]);
		sys_fd[f] = -1;
	}
	return -EIO;
}

unsigned long procstat_reads(void)
{
	return reads;
}

bool procstat_stat_complete(const char *buf)
{
	const char *p = buf;

	while (strncmp(p, "cpu", 3) == 0 && (p = strchr(p, '\n')) != NULL)
		p++;
	return p != NULL && p != buf && *p != '\0' && strncmp(p, "cpu", strnlen(p, 3)) != 0;
}

static bool line_enough(const char *buf)
{
	return strchr(buf, '\n') != NULL;
}

/* /proc/meminfo: MemTotal comes first, MemAvailable third. */
static bool meminfo_enough(const char *buf)
{
	const char *p = strstr(buf, "MemAvailable:");

	return p != NULL && strchr(p, '\n') != NULL;
}

/* Next unsigned decimal field at *p (blanks skipped); false at the line's end. */
static bool field(const char **p, unsigned long long *v)
{
	const char *s = *p;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	*p = end;
	return true;
}

int procstat_parse_cpus(const char *buf, struct procstat_cpu *out, size_t max)
{
	const char *line = buf;
	size_t n = 0;

	for (; line && *line && n < max; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long long cpu, v[8] = { 0 };
		const char *p = line + 3;
		int k = 0;

		if (strncmp(line, "cpu", 3) != 0 || *p < '0' || *p > '9' || !field(&p, &cpu) || cpu > INT_MAX)
			continue;
		while (k < 8 && field(&p, &v[k]))
			k++;
		if (k < 4) /* user nice system idle at least */
			continue;
		/* user nice system idle iowait irq softirq steal; guest is in user */
		out[n].cpu = (int)cpu;
		out[n].total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		out[n].busy = out[n].total - v[3] - v[4];
		n++;
	}
	return (int)n;
}

/* The cpu lines come first: what a buffer of this size holds is enough for
 * CPUMAP_MAX CPUs of figures (under 200 bytes a line). */
#define STAT_BUF (64u << 10)

int procstat_cpus(struct procstat_cpu *out, size_t max)
{
	static char buf[STAT_BUF];
	ssize_t n = read_sys(F_STAT, buf, sizeof(buf), procstat_stat_complete);

	if (n < 0)
		return (int)n;
	/* The last line may be cut: only complete lines count. */
	if ((size_t)n == sizeof(buf) - 1) {
		char *nl = strrchr(buf, '\n');

		if (nl)
			nl[1] = '\0';
	}
	return procstat_parse_cpus(buf, out, max);
}

static uint64_t meminfo_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int procstat_parse_sys(const char *loadavg, const char *meminfo, struct procstat_sys *out)
{
	const char *p = loadavg;
	char *end;
	unsigned long long running, tasks;
	uint64_t avail;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 3; i++) {
		errno = 0;
		out->load[i] = strtod(p, &end);
		if (end == p || errno)
			return -EINVAL;
		p = end;
	}
	if (!field(&p, &running) || *p != '/' || (p++, !field(&p, &tasks)) || running > UINT32_MAX ||
	    tasks > UINT32_MAX)
		return -EINVAL;
	out->running = (unsigned)running;
	out->tasks = (unsigned)tasks;
	out->mem_total = meminfo_kb(meminfo, "MemTotal:") * 1024;
	/* used = total - available, as free(1) and htop 3 show it */
	avail = meminfo_kb(meminfo, "MemAvailable:") * 1024;
	out->mem_used = out->mem_total > avail ? out->mem_total - avail : 0;
	return 0;
}

int procstat_sys(struct procstat_sys *out)
{
	char load[256], mem[4096];
	ssize_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((n = read_sys(F_LOADAVG, load, sizeof(load), line_enough)) < 0)
		return (int)n;
	if ((n = read_sys(F_MEMINFO, mem, sizeof(mem), meminfo_enough)) < 0)
		return (int)n;
	if ((rc = procstat_parse_sys(load, mem, out)) != 0)
		return rc;
	if ((rc = procstat_count_procs("/proc")) < 0)
		return rc;
	out->procs = (unsigned)rc;
	return 0;
}

int procstat_count_procs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    strspn(e->d_name, "0123456789") == strlen(e->d_name))
			n++;
	closedir(d);
	return n;
}

void procstat_close(void)
{
	for (int f = 0; f < F_COUNT; f++) {
		if (sys_fd[f] >= 0)
			close(sys_fd[f]);
		sys_fd[f] = -1;
	}
}

int procstat_task_path(char *buf, size_t len, pid_t pid, pid_t tid)
{
	int n = tid > 0 ? snprintf(buf, len, "/proc/%d/task/%d/stat", (int)pid, (int)tid)
			: snprintf(buf, len, "/proc/%d/stat", (int)pid);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int procstat_parse_task(const char *stat, struct procstat_task *out)
{
	unsigned long long ut, st, nthreads, start;
	long long ppid;
	/* comm may hold spaces and ')': fields follow the last ')' */
	const char *p = strrchr(stat, ')'), *open = strchr(stat, '(');

	/* ppid: field 4; utime, stime: 14, 15; num_threads 20; starttime 22 */
	if (p == NULL || sscanf(p + 1, " %*c %lld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu"
			     " %*d %*d %*d %*d %llu %*d %llu", &ppid, &ut, &st, &nthreads, &start) != 5)
		return -EINVAL;
	out->ppid = ppid > 0 && ppid <= INT_MAX ? (pid_t)ppid : 0;
	out->comm[0] = '\0';
	if (open && open < p) {
		size_t l = (size_t)(p - open - 1);

		if (l >= sizeof(out->comm))
			l = sizeof(out->comm) - 1;
		memcpy(out->comm, open + 1, l);
		out->comm[l] = '\0';
	}
	out->ticks = ut + st;
	out->start = start;
	out->threads = nthreads > UINT_MAX ? UINT_MAX : (unsigned)nthreads;
	return 0;
}

int procstat_task(pid_t pid, pid_t tid, struct procstat_task *out)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd, rc;

	if ((rc = procstat_task_path(path, sizeof(path), pid, tid)) != 0)
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1); /* one read: the kernel writes it whole */
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return procstat_parse_task(buf, out);
}

double procstat_uptime(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long procstat_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}
