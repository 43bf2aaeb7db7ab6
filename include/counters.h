/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counters: exact counting (not sampling) for focused tasks, as event groups
 * read with GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING and scaled for
 * multiplexing. Software events share one group; hardware events go in pairs
 * (cycles+instructions, references+misses…) so each ratio comes from one
 * schedule window. */
#ifndef PERFTOP_COUNTERS_H
#define PERFTOP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "evspec.h"

#define COUNTERS_MAX 16
#define COUNTERS_DEFAULT "task-clock,context-switches,cpu-migrations,page-faults," \
	"cycles,instructions,cache-references,cache-misses,branches,branch-misses"

enum counter_state {
	COUNTER_OK,           /* counted the whole time */
	COUNTER_SCALED,       /* multiplexed: value estimated from running/enabled */
	COUNTER_NOT_RUN,      /* enabled but never scheduled: shown as "-" */
	COUNTER_UNSUPPORTED,  /* not measured here (user-only counting cannot see it): "n/a" */
};

struct counter_value {
	uint64_t value;        /* this interval's delta, scaled */
	uint64_t total;        /* since focus began, scaled */
	uint64_t raw, enabled_ns, running_ns;  /* as the kernel last said */
	enum counter_state state;
};

/* One group as planned: indexes into the event list. */
struct counter_group {
	size_t ev[COUNTERS_MAX];
	size_t n;
};

/* Splits events into groups (software together, hardware in pairs, others
 * alone). Returns the number of groups. Pure: unit-tested. */
size_t counters_plan(const struct evspec *evs, size_t n, struct counter_group *groups);

/* The attr each member gets (leader: disabled until counters_enable). */
void counters_attr(struct perf_event_attr *attr, const struct evspec *ev, bool leader, bool inherit);

/* Whether counting with this attr sees nothing: context switches and
 * migrations happen in the kernel, which exclude_kernel leaves out. */
bool counters_kernel_only(const struct perf_event_attr *attr);

/* Scaled value: raw * enabled / running, rounding to nearest; state says how
 * it was obtained. */
uint64_t counters_scale(uint64_t raw, uint64_t enabled, uint64_t running, enum counter_state *state);

/* Parses one group read (GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING).
 * ids[i]/vals[i] for i < return value; -1 if the buffer is malformed. */
int counters_parse_read(const uint64_t *buf, size_t len, size_t max, uint64_t *enabled,
			uint64_t *running, uint64_t *ids, uint64_t *vals);

struct counters;

/* One row a thread, or one row a process (threads folded) or one per cgroup. */
struct counter_row {
	pid_t pid, tid;             /* tid 0 on process rows */
	bool exited;
	struct counter_value v[COUNTERS_MAX];
};

/* Targets: the threads of pids (inherit: later threads counted in their
 * creator's row), or with cgroup_path the cgroup on every CPU. When fds run
 * short, whole hardware groups are dropped first and a notice says so. */
struct counters_target {
	const pid_t *pids;
	size_t npids;
	bool pids_are_tids;
	const char *cgroup;         /* a cgroup v2 directory, or NULL */
	const int *cpus;            /* for cgroups: every CPU listed */
	size_t ncpus;
};

int counters_open(struct counters **out, const struct evspec *evs, size_t n,
		  const struct counters_target *t, char *err, size_t errlen);
void counters_close(struct counters *c);
int counters_enable(struct counters *c);

/* Reads every group: updates per-thread and per-process values (delta since
 * the previous call). */
int counters_read(struct counters *c);

/* The events shown: those that opened (the others are named once in the
 * notice, with why). Rows' values are in this order. */
size_t counters_nevents(const struct counters *c);
const struct evspec *counters_event(const struct counters *c, size_t i);
/* Process (or cgroup) rows, and thread rows. */
size_t counters_processes(const struct counters *c, const struct counter_row **rows);
size_t counters_threads(const struct counters *c, const struct counter_row **rows);
const struct counter_row *counters_process(const struct counters *c, pid_t pid);
const char *counters_notice(const struct counters *c);

#endif
