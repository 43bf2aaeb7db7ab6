/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spans: --off-cpu's spans. A thread's off-CPU span runs from its
 * switch-out (a sched_switch whose prev is it) to its switch-in (a later one
 * whose next is it, on any CPU), charged to the switch-out's stack and to
 * its state then (prev_state: S sleeping, D uninterruptible, R preempted).
 * Records come in time order; a lost record may have been any thread's
 * switch, so a loss ends every span still open unknown: dropped and
 * counted, never guessed. The stack is the caller's words (addresses), kept
 * with the span until it ends. Also the blocked time per task and thread
 * and state, for the interval and in total. */
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
	const uint64_t *words;    /* the switch-out's stack words, valid until the next spans_ call */
	size_t nwords;
};

struct spans_stats {
	uint64_t outs, ins;       /* switch-outs and switch-ins seen */
	uint64_t spans;           /* ended and charged */
	uint64_t short_spans;     /* ended below the threshold: dropped */
	uint64_t lost_records;    /* records the kernel lost while spans were kept */
	uint64_t lost_spans;      /* open spans a loss made unknowable: dropped */
	uint64_t open;            /* open now */
};

/* Spans shorter than thresh_ns are dropped (--off-cpu-thresh). NULL: ENOMEM. */
struct spans *spans_new(uint64_t thresh_ns);
void spans_free(struct spans *sp);
void spans_set_thresh(struct spans *sp, uint64_t thresh_ns);

/* tid (of process pid) left its CPU at time in that state; its stack is
 * nwords words (copied). A span still open for it is dropped (its
 * switch-in was not seen). 0 or -ENOMEM. */
int spans_out(struct spans *sp, pid_t pid, pid_t tid, int cpu, uint64_t time, enum spans_state state,
	      const uint64_t *words, size_t nwords);
/* tid came back at time: true and *out when that ends a known span at
 * least the threshold long, which is then charged to its task's and
 * thread's blocked time. */
bool spans_in(struct spans *sp, pid_t tid, uint64_t time, struct spans_span *out);
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
/* The interval ends: its counts start again. */
void spans_roll(struct spans *sp);
void spans_stats(const struct spans *sp, struct spans_stats *st);

#endif
