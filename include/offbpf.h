/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offbpf: --off-cpu's spans summed in the kernel by a BPF program
 * (offbpf.bpf.c) at every sched_switch; user space reads only the sums, once
 * an interval, and each distinct stack once. It is the fast way, where BPF
 * is permitted; the sched_switch records through the rings (engine_offcpu)
 * are the other. Spans are timed by the kernel's clock, charged when they
 * end; a span or sum the maps had no room for is counted (lost), never
 * guessed. */
#ifndef PERFTOP_OFFBPF_H
#define PERFTOP_OFFBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct offbpf;

struct offbpf_opts {
	uint64_t thresh_ns;      /* shorter spans dropped (--off-cpu-thresh) */
	const pid_t *pids;       /* -p's processes or -t's threads; NULL: all */
	size_t npids;
	bool pids_are_tids;
	const char *cgroup;      /* -G's cgroup v2 directory (descendants too), or NULL */
};

/* Whether this build has it (libbpf, clang and bpftool at build time). */
bool offbpf_built(void);
/* Loads (and fills its filters). On failure err says why in one line (no
 * privilege, no BTF, an old kernel) and -errno. */
int offbpf_open(struct offbpf **out, const struct offbpf_opts *o, char *err, size_t errlen);
/* Attaches to sched_switch: spans are seen from now. Apart from the load
 * so that the caller attaches when it answers the questions (its loop
 * runs): a span whose leaf's rule came too late is charged unfixed. */
int offbpf_attach(struct offbpf *b, char *err, size_t errlen);
void offbpf_close(struct offbpf *b);

/* -g's leaf fix: the kernel side asks, once per (pid, user IP) it meets,
 * where that frameless leaf keeps its return address. The fd is readable
 * when it asked; offbpf_wants calls fn for each question, which
 * offbpf_rule answers (ra_off >= 0: at [SP + ra_off]; OFFBPF_NO_FIX: the
 * chain is right as it is, or nothing can be told). */
#define OFFBPF_NO_FIX (-1)
int offbpf_want_fd(const struct offbpf *b);
int offbpf_wants(struct offbpf *b, void (*fn)(void *arg, pid_t pid, uint64_t ip), void *arg);
int offbpf_rule(struct offbpf *b, pid_t pid, uint64_t ip, int32_t ra_off);
/* pid exec'd or exited: its rules no longer hold. */
void offbpf_forget(struct offbpf *b, pid_t pid);

/* A sum of spans alike: the same thread, CPU (of the switch-out), state
 * (0 S, 1 D, 2 R as spans_state) and stacks. */
struct offbpf_sum_of {
	pid_t pid, tid;
	int cpu, state;
	uint64_t spans, us, ns;
	uint64_t khash, uhash;   /* the stacks (offbpf_stack); 0: none */
	bool leaf_fixed;         /* leaf_ret is the user leaf's return address */
	bool leaf_unknown;       /* its rule was not known in time: the chain as is */
	uint64_t leaf_ret;
};
/* Whether process pid has sums not drained yet (an exec drains first only
 * then: most exec'ing processes have none, and a drain per exec of a
 * build's thousands would cost more than the spans). */
bool offbpf_pending(struct offbpf *b, pid_t pid);
/* The sums since the last drain (each once), then gone from the kernel. */
int offbpf_drain(struct offbpf *b, void (*fn)(void *arg, const struct offbpf_sum_of *s), void *arg);
/* The stack kept under hash: its addresses, leaf first (the first one
 * where the thread was, the others return addresses), at most max. 0:
 * no longer kept (counted in stats.stacks_gone). */
size_t offbpf_stack(struct offbpf *b, uint64_t hash, uint64_t *ips, size_t max);

struct offbpf_stats {
	uint64_t outs, ins, short_spans;
	uint64_t lost;           /* spans the maps had no room for */
	uint64_t no_stack;       /* stacks not read or not kept */
	uint64_t unfixed;        /* spans whose leaf's rule came too late */
	uint64_t stacks_gone;    /* stacks evicted before user space read them */
	uint64_t drains, sums, stacks_read;
	uint64_t drain_ns;       /* spent draining (the sums' resolving included) */
	uint64_t quiesce_waits;  /* polls of a CPU whose program was still running at a flip */
};
void offbpf_get_stats(const struct offbpf *b, struct offbpf_stats *st);

#endif
