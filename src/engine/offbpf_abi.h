/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offbpf_abi: what offbpf.bpf.c (in the kernel) and offbpf.c (its loader)
 * share: the sums' key and value, a kept stack, the counters. */
#ifndef PERFTOP_OFFBPF_ABI_H
#define PERFTOP_OFFBPF_ABI_H

#include <linux/types.h>

#define OFFBPF_DEPTH 127       /* perf's default kernel.perf_event_max_stack */
#define OFFBPF_THREADS 32768   /* open spans */
#define OFFBPF_STACKS 8192     /* distinct stacks kept (least recently used go) */
#define OFFBPF_SUMS 16384      /* sums per interval */
#define OFFBPF_RULES 8192
#define OFFBPF_TARGETS 4096
#define OFFBPF_SLOTS 1024      /* CPU slots of the enter/leave counts */
#define OFFBPF_TOP_WORDS 32

enum { OFFBPF_FILTER_NONE, OFFBPF_FILTER_TGID, OFFBPF_FILTER_TID, OFFBPF_FILTER_CGROUP };
enum { OFFBPF_STATE_S, OFFBPF_STATE_D, OFFBPF_STATE_R };
/* How the user leaf's return address was found. */
enum { OFFBPF_FIX_UNKNOWN, OFFBPF_FIX_NONE, OFFBPF_FIX_RET, OFFBPF_FIX_TOP };
/* A rule: the return address at [SP + n] (n >= 0), none to fix, or asked. */
#define OFFBPF_RULE_NONE (-1)
#define OFFBPF_RULE_PENDING (-2)

struct offbpf_stack {
	__u32 n, pad;
	__u64 ip[OFFBPF_DEPTH];
};

struct offbpf_key {
	__u32 pid, tid, cpu, state;
	__u64 khash, uhash;     /* 0: no stack */
	__u64 leaf_ret;         /* fix OFFBPF_FIX_RET: the user leaf's return address */
	__u32 fix, pad;
};

struct offbpf_sum {
	__u64 spans, us, ns;
};

struct offbpf_rule_key {
	__u32 pid, pad;
	__u64 ip;
};

struct offbpf_counts {
	__u64 outs, ins, short_spans;
	__u64 lost;             /* a span or sum the maps had no room for */
	__u64 no_stack;         /* a stack not read or not kept */
	__u64 unfixed;          /* spans whose leaf's rule came too late */
};

#endif
