/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procstat: what the kernel says of the whole system in /proc — per-CPU
 * busy time (/proc/stat), load and task counts (/proc/loadavg), memory
 * (/proc/meminfo), a task's CPU time (/proc/PID[/task/TID]/stat). No perf, no curses. */
#ifndef PERFTOP_PROCSTAT_H
#define PERFTOP_PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Jiffies of one CPU since boot: busy (all but idle and iowait) and all. */
struct procstat_cpu {
	int cpu;
	uint64_t busy, total;
};

struct procstat_sys {
	double load[3];
	unsigned running, tasks;   /* scheduling entities (threads), /proc/loadavg's */
	unsigned procs;            /* processes (kernel threads too): /proc's PID folders, as top counts */
	uint64_t mem_total, mem_used; /* bytes; used as htop and free count it */
};

/* Fills up to max CPUs; returns how many, or -errno. The system-wide
 * files stay open between calls (procstat_close closes them). */
int procstat_cpus(struct procstat_cpu *out, size_t max);
int procstat_sys(struct procstat_sys *out);
/* The PID folders in dir ("/proc"): the processes, as top counts them; -errno. */
int procstat_count_procs(const char *dir);
void procstat_close(void);
/* preads of the system-wide files so far (tests: one a file a call). */
unsigned long procstat_reads(void);
/* The parsers behind them, on the files' text: the cpuN lines of
 * /proc/stat (how many filled), /proc/loadavg and /proc/meminfo (0 or
 * -EINVAL). */
int procstat_parse_cpus(const char *stat, struct procstat_cpu *out, size_t max);
int procstat_parse_sys(const char *loadavg, const char *meminfo, struct procstat_sys *out);
/* Whether the start of /proc/stat read so far holds every cpu line whole
 * (a line after them begun): reading stops there. */
bool procstat_stat_complete(const char *stat);
/* A task's CPU time and start, in clock ticks (start: since boot), and
 * its process's threads. */
struct procstat_task {
	uint64_t ticks;            /* utime + stime */
	uint64_t start;
	unsigned threads;          /* num_threads: the whole process's, in a thread's file too */
	pid_t ppid;                /* the parent process; 0: none (pid 1, kernel threads' 2's is 2) */
	char comm[17];             /* the name the kernel keeps (TASK_COMM_LEN), raw: sanitise to print */
};

/* The stat file of a process (tid 0) or of one of its threads: a thread's
 * own times are in /proc/PID/task/TID/stat, the main thread's too;
 * /proc/TID/stat holds its whole process's. 0 or -ENAMETOOLONG. */
int procstat_task_path(char *buf, size_t len, pid_t pid, pid_t tid);
/* The figures of a stat file's text; 0 or -EINVAL. */
int procstat_parse_task(const char *stat, struct procstat_task *out);
/* Read from the file procstat_task_path names; -errno when it is gone. */
int procstat_task(pid_t pid, pid_t tid, struct procstat_task *out);
/* Seconds since boot as the starts count them (CLOCK_BOOTTIME). */
double procstat_uptime(void);
/* Clock ticks per second (sysconf(_SC_CLK_TCK)). */
long procstat_hz(void);

#endif
