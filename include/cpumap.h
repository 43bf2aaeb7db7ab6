/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpumap: CPU and PID list parsing ("0-3,8", "/sys/.../online", "/proc/PID/task"). */
#ifndef PERFTOP_CPUMAP_H
#define PERFTOP_CPUMAP_H

#include <stddef.h>
#include <sys/types.h>

#define CPUMAP_MAX 4096

/* "0-3,8" -> sorted, de-duplicated array (malloc'd). 0 or -EINVAL/-ENOMEM. */
int cpumap_parse_cpus(const char *s, int **out, size_t *n);

/* Online CPUs from sysfs (sysfs_root normally "/sys"). */
int cpumap_online(const char *sysfs_root, int **out, size_t *n);

/* Every thread of a process now (from /proc/PID/task). -ESRCH if it is gone. */
int cpumap_threads(pid_t pid, pid_t **out, size_t *n);

/* "12,34" -> array of positive PIDs. 0 or -EINVAL/-ENOMEM. */
int cpumap_parse_pids(const char *s, pid_t **out, size_t *n);

#endif
