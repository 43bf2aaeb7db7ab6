/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "perfsys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

int perfsys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int read_sysctl(const char *path, long long *v)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (f == NULL)
		return -1;
	ok = fscanf(f, "%lld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int perfsys_paranoid(void)
{
	long long v;

	if (read_sysctl("/proc/sys/kernel/perf_event_paranoid", &v) != 0 || v < -100 || v > 100)
		return PERFSYS_PARANOID_UNKNOWN;
	return (int)v;
}

uint64_t perfsys_max_sample_rate(void)
{
	long long v;

	return read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", &v) == 0 && v > 0 ? (uint64_t)v : 0;
}

size_t perfsys_mlock_pages(size_t page_size)
{
	long long kb;
	size_t pages = 1, fit;

	if (read_sysctl("/proc/sys/kernel/perf_event_mlock_kb", &kb) != 0 || kb <= 0 || page_size == 0)
		return 0;
	fit = (size_t)((unsigned long long)kb * 1024 / page_size);
	if (fit < 2)
		return 0;
	while (pages * 2 <= fit - 1)
		pages *= 2;
	return pages;
}

size_t perfsys_thp_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	char line[128];
	long long sz;
	bool on;

	if (f == NULL)
		return 0;
	on = fgets(line, sizeof(line), f) != NULL && strstr(line, "[never]") == NULL;
	fclose(f);
	if (!on || read_sysctl("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &sz) != 0 || sz <= 0 ||
	    (sz & (sz - 1)) != 0)
		return 0;
	return (size_t)sz;
}

void perfsys_fd_budget(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl); /* best effort, as said */
	}
}

/* The kernel's rules (kernel/events/core.c, perf_allow_cpu/kernel): without
 * CAP_PERFMON a CPU-wide event needs paranoid <= 0, kernel samples <= 1,
 * user-space samples of one's own processes <= 2 (Debian's 3: none). */
static void permission_line(char *buf, size_t len, const struct perfsys_what *w, int paranoid)
{
	char lvl[16] = "?";

	if (paranoid != PERFSYS_PARANOID_UNKNOWN)
		snprintf(lvl, sizeof(lvl), "%d", paranoid);
	if (w->tid < 0)
		snprintf(buf, len, "%s: permission denied (perf_event_paranoid is %s): whole CPUs "
			 "(system-wide, -G) need root or CAP_PERFMON, or sysctl kernel.perf_event_paranoid=0; "
			 "or watch your own process with -p PID", w->what, lvl);
	else
		snprintf(buf, len, "%s: permission denied (perf_event_paranoid is %s): watch your own "
			 "processes, or run as root or with CAP_PERFMON; kernel samples need "
			 "sysctl kernel.perf_event_paranoid=1, user space only 2", w->what, lvl);
}

void perfsys_strerror(char *buf, size_t len, int errnum, const struct perfsys_what *w)
{
	switch (errnum) {
	case EACCES:
	case EPERM:
		permission_line(buf, len, w, w->paranoid != PERFSYS_PARANOID_UNKNOWN ? w->paranoid
					     : perfsys_paranoid());
		break;
	case ENOENT:
	case EOPNOTSUPP:
		snprintf(buf, len, "%s: not supported by this CPU's PMU (%s): see perftop --list-events",
			 w->what, strerrorname_np(errnum));
		break;
	case ENODEV:
		snprintf(buf, len, "%s: CPU %d is offline or has no such PMU", w->what, w->cpu);
		break;
	case ESRCH:
		snprintf(buf, len, "%s: no such process or thread %d (it exited; check it with ps -eL)", w->what,
			 (int)w->tid);
		break;
	case EMFILE:
	case ENFILE: {
		struct rlimit rl = { 0, 0 };

		if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
			rl.rlim_cur = 0;
		snprintf(buf, len, "out of file descriptors: %zu needed, limit is %llu: "
			 "raise it (ulimit -n %zu) or watch fewer CPUs/threads/events",
			 w->fds_needed, (unsigned long long)rl.rlim_cur, w->fds_needed);
		break;
	}
	case EINVAL:
		snprintf(buf, len, "%s: the kernel rejected its attributes (EINVAL): check -F against "
			 "kernel.perf_event_max_sample_rate (%llu) and the modifiers", w->what,
			 (unsigned long long)perfsys_max_sample_rate());
		break;
	default:
		snprintf(buf, len, "%s: perf_event_open failed: %s", w->what, strerror(errnum));
	}
}

/* Where cgroup2 is mounted (the first one in /proc/self/mounts), or "". */
static void cgroup2_mount(char *buf, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;

	buf[0] = '\0';
	if (f == NULL)
		return;
	while ((m = getmntent(f)) != NULL)
		if (strcmp(m->mnt_type, "cgroup2") == 0) {
			strlcpy(buf, m->mnt_dir, len);
			break;
		}
	endmntent(f);
}

int perfsys_cgroup_open(const char *path, char *err, size_t errlen)
{
	char mnt[256], hint[640];
	struct statfs st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	cgroup2_mount(mnt, sizeof(mnt));
	if (mnt[0])
		snprintf(hint, sizeof(hint), "cgroup2 is mounted at %s: give a directory under it, e.g. "
			 "%s/system.slice/NAME.service", mnt, mnt);
	else
		snprintf(hint, sizeof(hint), "no cgroup2 is mounted here: mount -t cgroup2 none /sys/fs/cgroup");
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "-G %s: cannot open it: %s (%s)", path, strerror(-rc), hint);
		return rc;
	}
	/* Else perf_event_open takes the fd and says only EBADF. */
	if (fstatfs(fd, &st) < 0 || st.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		snprintf(err, errlen, "-G %s: not a cgroup v2 directory (%s)", path, hint);
		return -ENOTDIR;
	}
	return fd;
}
