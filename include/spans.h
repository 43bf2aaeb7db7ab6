/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spans: --off-cpu's spans. A thread's off-CPU span runs from its
 * switch-out (a sched_switch whose prev is it) to its switch-in (a later one
 * whose next is it, on any CPU), charged to the switch-out's stack and to
 * its state then (prev_state: S sleeping, D uninterruptible, R preempted).
 * Records come in time order; a lost record may have been any thread's
 * switch, so a loss ends every span still open unknown: dropped and
 * counted, never guessed. A span keeps its stack as an id: the stacks of
 * blocked threads repeat, so each distinct one is kept once, found by a key
 * the caller gives (the raw callchain: nothing is worked out for a stack
 * seen before), and dropped once no span has used it for two intervals.
 * Also the blocked time per task and thread and state, for the interval
 * and in total. */
#ifndef PERFTOP_SPANS_H
#define PERFTOP_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum spans_state { SPANS_S, SPANS_D, SPANS_R, SPANS_NSTATES };
extern const char *const spans_state_names[SPANS_NSTATES]; /* "S", "D", "R" */

/* prev_state as sched_switch gives it -> S, D or R. */
enum spans_state spans_state_of(int64_t prev_state);

struct spans;

struct spans_span {
	pid_t pid, tid;
	int cpu;                  /* of the switch-out */
	enum spans_state state;
	uint64_t start, ns;
	uint32_t stack;           /* the switch-out's stack (spans_stack), 0: none */
};

struct spans_stats {
	uint64_t outs, ins;       /* switch-outs and switch-ins seen */
	uint64_t spans;           /* ended and charged */
	uint64_t short_spans;     /* ended below the threshold: dropped */
	uint64_t lost_records;    /* records the kernel lost while spans were kept */
	uint64_t lost_spans;      /* open spans a loss made unknowable: dropped */
	uint64_t open;            /* open now */
	uint64_t stacks;          /* distinct stacks kept now */
	uint64_t stack_hits;      /* spans_stack calls that found their key */
	uint64_t stack_misses;    /* ...that worked the words out */
	uint64_t charges;         /* pending charges taken */
};

/* Spans shorter than thresh_ns are dropped (--off-cpu-thresh). NULL: ENOMEM. */
struct spans *spans_new(uint64_t thresh_ns);
void spans_free(struct spans *sp);
void spans_set_thresh(struct spans *sp, uint64_t thresh_ns);

/* The id of the stack whose key is key[0..nkey) (any words that tell it
 * from every other, e.g. the raw callchain): the one kept under that key,
 * else a new one whose words make() writes (at most max, returning how
 * many; make NULL: the key is the words). 0: out of memory, or nkey 0. */
typedef size_t (*spans_words_fn)(void *arg, uint64_t *words, size_t max);
#define SPANS_WORDS_MAX 1024
uint32_t spans_stack(struct spans *sp, const uint64_t *key, size_t nkey, spans_words_fn make, void *arg);
/* Id's key no longer finds it: its words were made wrong (what they were
 * made from was gone) and the next spans_stack with that key makes them
 * again. The id stays for what holds it, and goes at a roll after. */
void spans_stack_unkey(struct spans *sp, uint32_t id);
/* Stack id's words (NULL and 0 for 0 or an id no longer kept): valid until
 * the next spans_stack or spans_roll. */
const uint64_t *spans_stack_words(const struct spans *sp, uint32_t id, size_t *nwords);

/* tid (of process pid) left its CPU at time in that state, at stack (an id
 * from spans_stack, 0 none). A span still open for it is dropped (its
 * switch-in was not seen). 0 or -ENOMEM. */
int spans_out(struct spans *sp, pid_t pid, pid_t tid, int cpu, uint64_t time, enum spans_state state,
	      uint32_t stack);
/* tid came back at time: true and *out when that ends a known span at
 * least the threshold long, which is then charged to its task's and
 * thread's blocked time. */
bool spans_in(struct spans *sp, pid_t tid, uint64_t time, struct spans_span *out);
/* The charges pending: spans ended, summed per (stack, pid, tid, cpu) until
 * taken, so that the caller charges each stack and thread once a flush,
 * not once a switch. us: the spans' weight in samples (spans_us each). */
struct spans_charge {
	uint32_t stack;
	pid_t pid, tid;
	int cpu;
	uint64_t spans, us, ns;
};
/* A span's weight in samples: its microseconds (as offcputime's folded
 * stacks count), at least one. */
uint64_t spans_us(uint64_t ns);
/* Span s (from spans_in) added to its pending charge; now: its end, which
 * spans_pend_since tells of the first one pending. 0 or -ENOMEM (then
 * nothing is pending for it: charge it at once). */
int spans_pend(struct spans *sp, const struct spans_span *s, uint64_t now);
uint64_t spans_pend_since(const struct spans *sp); /* 0: nothing pending */
/* Spans summed elsewhere (in the kernel: offbpf), each already at least the
 * threshold: charged to their task's and thread's blocked time and added
 * to their pending charge as spans_pend adds one. 0 or -ENOMEM. */
struct spans_sum {
	pid_t pid, tid;
	int cpu;
	enum spans_state state;
	uint32_t stack;
	uint64_t spans, us, ns;
};
int spans_add(struct spans *sp, const struct spans_sum *sum, uint64_t now);
/* Counts of switches and spans seen elsewhere, added to spans_stats's. */
void spans_note(struct spans *sp, uint64_t outs, uint64_t ins, uint64_t short_spans, uint64_t lost_spans);
/* fn on each charge pending for process pid (every process: -1), which
 * then is no longer pending. fn may not call spans_ functions but
 * spans_stack_words. */
void spans_take(struct spans *sp, pid_t pid, void (*fn)(void *arg, const struct spans_charge *c), void *arg);

/* n records lost on cpu's ring: every open span is dropped. */
void spans_lost(struct spans *sp, int cpu, uint64_t n);
/* --off-cpu turned off (or on again): what was open is not known. */
void spans_drop_open(struct spans *sp);
/* A thread exited: its open span and rows go. */
void spans_exit(struct spans *sp, pid_t tid);

/* Blocked ns of a process (tid 0) or thread per state: in the interval
 * (since spans_roll) and in total. False when it has none. */
struct spans_time {
	uint64_t iv[SPANS_NSTATES], total[SPANS_NSTATES];
};
bool spans_task(const struct spans *sp, pid_t pid, pid_t tid, struct spans_time *out);
/* Every row: fn(arg, pid, tid (0: the process), time). */
void spans_each(const struct spans *sp, void (*fn)(void *arg, pid_t pid, pid_t tid, const struct spans_time *t),
		void *arg);
/* The interval ends: its counts start again, and the stacks no span used
 * in this interval or the one before (and none open or pending holds) are
 * dropped. */
void spans_roll(struct spans *sp);
void spans_stats(const struct spans *sp, struct spans_stats *st);

#endif
