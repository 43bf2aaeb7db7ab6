/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offbpf.bpf.c: --off-cpu summed in the kernel (built with clang -target
 * bpf, loaded by offbpf.c). At each sched_switch, the leaving thread's
 * start, state and stacks (as 64-bit hashes; the stacks themselves kept
 * once in an LRU map) are kept by tid; when the thread comes back, its
 * span is added to the sum of its (pid, tid, CPU, state, stacks, leaf
 * return). Only those sums reach user space, once an interval: a blocked
 * thread's stacks repeat, so nothing is copied per switch.
 *
 * -g's leaf fix needs the frameless user leaf's return address: user
 * space gives the rule (where on the stack it is) per (pid, IP) in
 * offbpf_rules; an IP without one is sent once through offbpf_want, and
 * the span keeps the stack's top words until it ends, when the rule (by
 * then known) is applied. */
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "offbpf_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* Only the fields read: CO-RE finds them in the running kernel's BTF. */
struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
	void *mm;
	unsigned int __state;
} __attribute__((preserve_access_index));

/* Before 5.14 the state was a long named state. */
struct task_struct___o {
	long state;
} __attribute__((preserve_access_index));

struct pt_regs {
#if defined(__TARGET_ARCH_arm64)
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
#else
	unsigned long sp;
	unsigned long ip;
#endif
} __attribute__((preserve_access_index));

#define PF_KTHREAD 0x00200000
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_DEAD 0x0080
#define TASK_NOLOAD 0x0400

/* Set before load (rodata) or live (bss). */
const volatile __u32 offbpf_filter = OFFBPF_FILTER_NONE;
__u64 offbpf_thresh_ns;
__u32 offbpf_gen;
/* Per CPU slot: programs entered and left, so that user space knows
 * when none still writes the sums it flipped away from. */
__u64 offbpf_enter[OFFBPF_SLOTS];
__u64 offbpf_leave[OFFBPF_SLOTS];
struct offbpf_counts offbpf_counts;

struct start {
	__u64 ts;
	__u64 khash, uhash;
	__u64 leaf_ret;
	__u64 uip;
	__u32 pid, cpu, state, fix;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFBPF_THREADS);
	__type(key, __u32);
	__type(value, struct start);
} offbpf_start SEC(".maps");

/* The top words of a user stack whose leaf had no rule yet, by tid. */
struct top {
	__u64 sp;
	__u64 w[OFFBPF_TOP_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct top);
} offbpf_tops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OFFBPF_STACKS);
	__type(key, __u64);
	__type(value, struct offbpf_stack);
} offbpf_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFBPF_SUMS);
	__type(key, struct offbpf_key);
	__type(value, struct offbpf_sum);
} offbpf_sums0 SEC(".maps"), offbpf_sums1 SEC(".maps");

/* LRU: the rules of processes long gone make room (an evicted one is
 * asked again). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OFFBPF_RULES);
	__type(key, struct offbpf_rule_key);
	__type(value, __s32);
} offbpf_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} offbpf_want SEC(".maps");

/* The generation each process last had a new sum in: an exec drains the
 * sums first only when its process has some (offbpf_pending). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OFFBPF_THREADS);
	__type(key, __u32);
	__type(value, __u32);
} offbpf_dirty SEC(".maps");

/* -p (tgids) or -t (tids). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFBPF_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} offbpf_targets SEC(".maps");

/* -G: the cgroup, descendants included (as perf's cgroup events). */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} offbpf_cgroup SEC(".maps");

/* Scratch for a stack as bpf_get_stack writes it (too big for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offbpf_stack);
} offbpf_scratch SEC(".maps");

static __always_inline void count(__u64 *c)
{
	__sync_fetch_and_add(c, 1);
}

/* The stack's hash (0: none), the stack kept under it. */
static __always_inline __u64 stack_of(void *ctx, __u64 flags)
{
	__u32 zero = 0;
	struct offbpf_stack *st = bpf_map_lookup_elem(&offbpf_scratch, &zero);
	long n;
	__u64 h = 0xcbf29ce484222325ull;

	if (st == NULL)
		return 0;
	n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), flags);
	if (n <= 0) {
		count(&offbpf_counts.no_stack);
		return 0;
	}
	st->n = (__u32)(n / 8);
	for (int i = 0; i < OFFBPF_DEPTH; i++) {
		if (i >= st->n)
			break;
		h = (h ^ st->ip[i]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	h |= 1; /* never 0 */
	if (bpf_map_lookup_elem(&offbpf_stacks, &h) == NULL &&
	    bpf_map_update_elem(&offbpf_stacks, &h, st, BPF_NOEXIST) != 0 &&
	    bpf_map_lookup_elem(&offbpf_stacks, &h) == NULL) {
		count(&offbpf_counts.no_stack);
		return 0;
	}
	return h;
}

static __always_inline bool wanted(struct task_struct *t)
{
	__u32 id;

	if (offbpf_filter == OFFBPF_FILTER_NONE)
		return true;
	if (offbpf_filter == OFFBPF_FILTER_CGROUP)
		return bpf_current_task_under_cgroup(&offbpf_cgroup, 0) == 1;
	id = offbpf_filter == OFFBPF_FILTER_TGID ? (__u32)BPF_CORE_READ(t, tgid) : (__u32)BPF_CORE_READ(t, pid);
	return bpf_map_lookup_elem(&offbpf_targets, &id) != NULL;
}

/* The user leaf's return address by its rule, or the stack's top kept
 * until the rule is known. */
static __always_inline void leaf(struct task_struct *t, struct start *s, __u32 tid)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	struct offbpf_rule_key rk = { 0 };
	__s32 *rule, pend = OFFBPF_RULE_PENDING;
	__u64 sp;

	s->fix = OFFBPF_FIX_UNKNOWN;
	if (regs == NULL)
		return;
#if defined(__TARGET_ARCH_arm64)
	s->uip = BPF_CORE_READ(regs, pc);
#else
	s->uip = BPF_CORE_READ(regs, ip);
#endif
	sp = BPF_CORE_READ(regs, sp);
	rk.pid = s->pid;
	rk.ip = s->uip;
	rule = bpf_map_lookup_elem(&offbpf_rules, &rk);
	if (rule && *rule == OFFBPF_RULE_NONE) {
		s->fix = OFFBPF_FIX_NONE;
		return;
	}
	if (rule && *rule >= 0) {
		s->fix = bpf_probe_read_user(&s->leaf_ret, sizeof(s->leaf_ret), (void *)(sp + *rule)) == 0
				 ? OFFBPF_FIX_RET
				 : OFFBPF_FIX_UNKNOWN;
		return;
	}
	/* A preempted thread stopped anywhere in its code, not at a syscall:
	 * asking for every such IP would cost more than the frame it gives
	 * back (and fill the rules with one-off IPs). Its chain as it is. */
	if (s->state == OFFBPF_STATE_R) {
		s->fix = OFFBPF_FIX_NONE;
		return;
	}
	/* Not known yet: ask once, keep the top of the stack meanwhile. */
	if (rule == NULL && bpf_map_update_elem(&offbpf_rules, &rk, &pend, BPF_NOEXIST) == 0) {
		struct offbpf_rule_key *w = bpf_ringbuf_reserve(&offbpf_want, sizeof(*w), 0);

		if (w) {
			*w = rk;
			bpf_ringbuf_submit(w, 0);
		} else {
			bpf_map_delete_elem(&offbpf_rules, &rk); /* not asked: ask next time */
		}
	}
	s->fix = OFFBPF_FIX_UNKNOWN;
	{
		__u32 zero = 0;
		struct offbpf_stack *scratch = bpf_map_lookup_elem(&offbpf_scratch, &zero);
		struct top *tp;

		/* The scratch's room is free again once the stacks are hashed. */
		if (scratch == NULL)
			return;
		tp = (struct top *)scratch->ip;
		tp->sp = sp;
		if (bpf_probe_read_user(tp->w, sizeof(tp->w), (void *)sp) == 0 &&
		    bpf_map_update_elem(&offbpf_tops, &tid, tp, BPF_ANY) == 0)
			s->fix = OFFBPF_FIX_TOP;
	}
}

static __always_inline void add(void *sums, struct offbpf_key *k, __u64 ns, __u32 gen)
{
	struct offbpf_sum *v = bpf_map_lookup_elem(sums, k), zero = { 0 };

	if (v == NULL) {
		bpf_map_update_elem(sums, k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(sums, k);
		bpf_map_update_elem(&offbpf_dirty, &k->pid, &gen, BPF_ANY);
	}
	if (v == NULL) {
		count(&offbpf_counts.lost);
		return;
	}
	__sync_fetch_and_add(&v->spans, 1);
	__sync_fetch_and_add(&v->ns, ns);
	__sync_fetch_and_add(&v->us, ns >= 1500 ? (ns + 500) / 1000 : 1);
}

/* tid came back: its span, if one is kept, summed. */
static __always_inline void switch_in(__u32 tid, __u64 now, __u32 gen)
{
	struct start *s = bpf_map_lookup_elem(&offbpf_start, &tid);
	struct offbpf_key k = { 0 };
	__u64 ns;

	if (s == NULL)
		return;
	count(&offbpf_counts.ins);
	ns = now > s->ts ? now - s->ts : 0;
	k.pid = s->pid;
	k.tid = tid;
	k.cpu = s->cpu;
	k.state = s->state;
	k.khash = s->khash;
	k.uhash = s->uhash;
	k.fix = s->fix;
	k.leaf_ret = s->leaf_ret;
	if (s->fix == OFFBPF_FIX_TOP) {
		struct offbpf_rule_key rk = { .pid = s->pid, .ip = s->uip };
		__s32 *rule = bpf_map_lookup_elem(&offbpf_rules, &rk);
		struct top *tp = bpf_map_lookup_elem(&offbpf_tops, &tid);

		k.fix = OFFBPF_FIX_UNKNOWN;
		if (rule && *rule == OFFBPF_RULE_NONE)
			k.fix = OFFBPF_FIX_NONE;
		else if (rule && tp && *rule >= 0 && *rule < OFFBPF_TOP_WORDS * 8 && *rule % 8 == 0) {
			/* Masked: the verifier sees the bound. */
			__u32 i = ((__u32)*rule >> 3) & (OFFBPF_TOP_WORDS - 1);

			k.leaf_ret = tp->w[i];
			k.fix = OFFBPF_FIX_RET;
		}
		if (tp)
			bpf_map_delete_elem(&offbpf_tops, &tid);
	}
	bpf_map_delete_elem(&offbpf_start, &tid);
	if (ns < offbpf_thresh_ns) {
		count(&offbpf_counts.short_spans);
		return;
	}
	if (k.fix == OFFBPF_FIX_UNKNOWN)
		count(&offbpf_counts.unfixed);
	if (gen & 1)
		add(&offbpf_sums1, &k, ns, gen);
	else
		add(&offbpf_sums0, &k, ns, gen);
}

/* The leaving task's state, as the tracepoint's prev_state (an argument
 * only from 5.18: read from the task, as 5.15's verifier allows). */
static __always_inline unsigned int state_of(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (unsigned int)BPF_CORE_READ((struct task_struct___o *)t, state);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offbpf_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id(), slot = cpu & (OFFBPF_SLOTS - 1);
	__u32 ptid = (__u32)BPF_CORE_READ(prev, pid), ntid = (__u32)BPF_CORE_READ(next, pid), gen;
	unsigned int prev_state = state_of(prev);
	__u64 now = bpf_ktime_get_ns(), seq;

	/* The fetch forms: fully ordered on every JIT (arm64's plain atomic
	 * add is not), so the generation is read after the entry is counted
	 * and the sums are written before the leave. */
	seq = __sync_fetch_and_add(&offbpf_enter[slot], 1);
	barrier_var(seq);
	gen = *(volatile __u32 *)&offbpf_gen;
	if (ptid != 0 && !(prev_state & TASK_DEAD) && wanted(prev)) {
		struct start s = { 0 };

		count(&offbpf_counts.outs);
		s.ts = now;
		s.pid = (__u32)BPF_CORE_READ(prev, tgid);
		s.cpu = cpu;
		if (preempt || prev_state == 0)
			s.state = OFFBPF_STATE_R;
		else if ((prev_state & TASK_UNINTERRUPTIBLE) && !(prev_state & TASK_NOLOAD))
			s.state = OFFBPF_STATE_D;
		else
			s.state = OFFBPF_STATE_S;
		/* The first frame is this program's own: not in kallsyms (unless
		 * bpf_jit_kallsyms), and an unknown kernel address makes the
		 * resolver read kallsyms again. */
		s.khash = stack_of(ctx, 1 & BPF_F_SKIP_FIELD_MASK);
		s.fix = OFFBPF_FIX_NONE; /* a kernel thread has no user leaf */
		if (!(BPF_CORE_READ(prev, flags) & PF_KTHREAD) && BPF_CORE_READ(prev, mm)) {
			s.uhash = stack_of(ctx, BPF_F_USER_STACK);
			leaf(prev, &s, ptid);
		}
		if (bpf_map_update_elem(&offbpf_start, &ptid, &s, BPF_ANY) != 0)
			count(&offbpf_counts.lost);
	}
	if (ntid != 0)
		switch_in(ntid, now, gen);
	seq = __sync_fetch_and_add(&offbpf_leave[slot], 1);
	barrier_var(seq);
	return 0;
}
