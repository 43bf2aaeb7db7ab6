/* procstat: small /proc readers for the live view's header and %CPU. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"

int procstat_cpus(struct procstat_cpu *out, size_t max)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	size_t n = 0;

	if (f == NULL)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long v[10] = { 0 };
		int cpu;

		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
			continue;
		/* user nice system idle iowait irq softirq steal; guest is in user */
		out[n].cpu = cpu;
		out[n].total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		out[n].busy = out[n].total - v[3] - v[4];
		n++;
	}
	fclose(f);
	return (int)n;
}

static uint64_t meminfo_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int procstat_sys(struct procstat_sys *out)
{
	char buf[4096];
	FILE *f;
	size_t n;

	memset(out, 0, sizeof(*out));
	f = fopen("/proc/loadavg", "re");
	if (f == NULL)
		return -errno;
	if (fscanf(f, "%lf %lf %lf %u/%u", &out->load[0], &out->load[1], &out->load[2], &out->running,
		   &out->tasks) != 5) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	f = fopen("/proc/meminfo", "re");
	if (f == NULL)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	out->mem_total = meminfo_kb(buf, "MemTotal:") * 1024;
	/* used = total - available, as free(1) and htop 3 show it */
	uint64_t avail = meminfo_kb(buf, "MemAvailable:") * 1024;
	out->mem_used = out->mem_total > avail ? out->mem_total - avail : 0;
	return 0;
}

int procstat_task_ticks(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and ')': fields follow the last ')' */
	p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -EINVAL;
	*ticks = ut + st;
	return 0;
}

long procstat_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}
