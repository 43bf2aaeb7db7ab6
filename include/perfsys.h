/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perfsys: the one way perftop calls perf_event_open(2), sizes its fd budget,
 * reads the perf sysctls, and turns an open's errno into the user's line. */
#ifndef PERFTOP_PERFSYS_H
#define PERFTOP_PERFSYS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* perf_event_open with PERF_FLAG_FD_CLOEXEC: the fd, or -errno. */
int perfsys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags);

/* kernel.perf_event_paranoid, or PERFSYS_PARANOID_UNKNOWN when unreadable. */
#define PERFSYS_PARANOID_UNKNOWN (-1000)
int perfsys_paranoid(void);

/* kernel.perf_event_max_sample_rate; 0 when unreadable. */
uint64_t perfsys_max_sample_rate(void);

/* The data pages (a power of two) of one CPU's ring that
 * kernel.perf_event_mlock_kb lets an unprivileged user lock (the header
 * page aside); 0 when unreadable. */
size_t perfsys_mlock_pages(size_t page_size);
/* The transparent huge page size when a mapping that asks for them
 * (MADV_HUGEPAGE) may get them: "enabled" is "always" or "madvise"; else 0. */
size_t perfsys_thp_size(void);
/* Raises the soft RLIMIT_NOFILE towards the hard one so that `need` fds fit.
 * Best effort: refused, the opens run short and say how many. */
void perfsys_fd_budget(size_t need);

/* Opens a -G cgroup: the fd, or -errno with err saying why, where cgroup2
 * is mounted and what to give instead (a path that is not a cgroup v2
 * directory: -ENOTDIR). */
int perfsys_cgroup_open(const char *path, char *err, size_t errlen);

/* What an open was for, so the line names it and the fix fits. */
struct perfsys_what {
	const char *what;   /* "event cycles (CPU 0, TID 42)" */
	int cpu;            /* -1: any */
	pid_t tid;          /* -1: system-wide (a CPU event) */
	size_t fds_needed;  /* for EMFILE/ENFILE; 0: unknown */
	int paranoid;       /* PERFSYS_PARANOID_UNKNOWN: read it now */
};

/* The one line for a failed open (errnum positive): the cause and the fix.
 * Permission, not supported, offline CPU, no such process, out of fds,
 * EINVAL; anything else with strerror. */
void perfsys_strerror(char *buf, size_t len, int errnum, const struct perfsys_what *w);

#endif
