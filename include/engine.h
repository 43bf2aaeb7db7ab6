/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine: opens the events, owns one ring per CPU and the epoll loop.
 * It returns 0 or -errno and never prints: the caller turns failures into the
 * user's one line (engine_strerror fills the detail: which event, CPU, PID). */
#ifndef PERFTOP_ENGINE_H
#define PERFTOP_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "evspec.h"
#include "record.h"

struct engine;

struct engine_opts {
	const struct evspec *events;   /* sampling events, in column order */
	size_t nevents;
	const int *cpus;               /* NULL: every online CPU */
	size_t ncpus;
	const pid_t *pids;             /* NULL: system-wide */
	size_t npids;
	bool pids_are_tids;            /* -t: only these threads, no inheritance */
	const char *cgroup;            /* sample only this cgroup v2 directory, every CPU */
	uint64_t freq;                 /* samples/s per event per CPU, if period == 0 */
	uint64_t period;
	size_t mmap_pages;             /* 0: sized from the rate */
	double interval;               /* seconds between ticks */
	const bool *enabled;           /* [nevents] initially on; NULL: all (a re-open passes its own) */
	struct callgraph_opts cg;      /* call stacks in samples (-g, --call-graph) */
	bool offcpu;                   /* --off-cpu: see engine_offcpu_set */
	bool wakers;                   /* with it, sched:sched_waking: see engine_offcpu_wakers */
};

/* The ev the record handler is given for --off-cpu's records: its
 * sched:sched_switch samples (raw fields in sample.raw, the leaving task's
 * stack) and, for -p/-t/-G, the PERF_RECORD_SWITCH records of switch-ins. */
#define ENGINE_EV_OFFCPU (-3)

/* n flat samples (no call graph) alike in all but time and period, which
 * are added. */
struct engine_samples {
	uint64_t ip, period;
	uint32_t pid, tid, cpu, n;
	uint16_t misc; /* the cpumode bits */
};

struct engine_handlers {
	/* Every decoded record, in time order across CPUs (a FORK before the
	 * child's COMM/MMAP2 on another CPU); ev is the sampling event's index,
	 * or -1 for records of the tracking event (MMAP2/COMM/FORK/EXIT). */
	void (*record)(void *record_arg, int ev, const struct record *rec);
	void *record_arg;
	/* If set, flat samples come here instead, counted together: each call
	 * as n records to `record` would have been, in time order with the
	 * other records but in no order among themselves (src/engine/tally.h).
	 * Every drain pass ends with all of them handed on. */
	void (*samples)(void *record_arg, int ev, const struct engine_samples *s);
	/* If set (--record), every record's bytes as the ring had them, in the
	 * order above, just before it is handed on: each flat sample too, as
	 * it goes into the tally (so in time order with the other records,
	 * among themselves by ring). ev as for record; -1 also for the types
	 * perftop does not decode. hdr is valid during the call only. */
	void (*raw)(void *record_arg, int ev, const struct perf_event_header *hdr);
	void *arg; /* for the handlers below */
	/* Sampling has just begun (the interval clock too, unless
	 * engine_start_clock started it before). */
	void (*start)(void *arg);
	/* Every interval, after all rings were drained. */
	void (*tick)(void *arg);
	/* SIGINT/SIGTERM/SIGHUP: return true to stop the loop. */
	bool (*signal)(void *arg, int signo);
	/* A focused PID exited (pidfd). */
	void (*pid_exit)(void *arg, pid_t pid);
};

/* Per-CPU and per-event loss bookkeeping lives in the caller (from the
 * LOST/THROTTLE records); the engine counts only what it alone can see. */
struct engine_stats {
	uint64_t records, samples, bad_records, malformed, wakeups;
	uint64_t backlog;   /* bytes taken from the kernel, not yet decoded (overload; between
			     * passes also the last few ms, held back to be merged in time order) */
	/* Records delivered after a newer one (from another CPU) had been:
	 * written later than the merge's slack allows. They are applied anyway. */
	uint64_t reordered_late;
	/* Bytes of dwarf stack copies past their valid end, not spilled. */
	uint64_t stack_cut;
	/* Bytes of the kernel rings decoded where the kernel wrote them, and
	 * bytes copied into the spill first (the main loop was behind, or the
	 * reader woke before it came). */
	uint64_t in_place, spilled;
	/* Kernel rings a pass gave back to the reader before slow work
	 * (engine_hand_back). */
	uint64_t handed_back;
	/* Times a kernel ring's watermark woke the main loop (-g read in
	 * place: one ring armed at a time). */
	uint64_t ring_wakeups;
	/* Each CPU's kernel ring and its wakeup watermark, in bytes. */
	uint64_t ring_bytes, watermark_bytes;
};

int engine_open(struct engine **out, const struct engine_opts *opts, char *err, size_t errlen);
void engine_close(struct engine *e);

/* Turns the events on and starts the interval clock now (unless
 * engine_start_clock already did), before the loop runs: samples wait in
 * the rings. Optional; engine_run does it otherwise (then calling start). */
int engine_start(struct engine *e);
/* Starts only the interval clock now; the events come on when engine_run
 * starts (calling start), so the caller's start-up runs before the
 * sampling interrupts do (at 100 kHz they take most of a CPU, and every
 * program runs many times slower under them). The first interval, shorter
 * by the start-up, is measured from then. */
int engine_start_clock(struct engine *e);

/* Runs until a handler asks to stop or engine_stop() is called. -errno. */
int engine_run(struct engine *e, const struct engine_handlers *h);
void engine_stop(struct engine *e);
/* As engine_stop, for a caller that reads nothing after: what is still in
 * the rings is left there, not decoded (a live view's quit). */
void engine_quit(struct engine *e);

/* Ends the run: the events go off and the records taken so far are
 * decoded, for one more interval at most; engine_run returns once the
 * current handler does. Each tick decodes for at most a quarter interval:
 * under overload the rest (stats: backlog) counts in later intervals, so a
 * caller about to write its last one flushes first. Stop signals and a
 * focused process's exit flush by themselves. What is left after is
 * stats.backlog: only what decoding had no time for. */
void engine_flush(struct engine *e);

/* An extra fd in the loop (the UI's stdin). cb runs when it is readable. */
int engine_watch_fd(struct engine *e, int fd, void (*cb)(void *arg), void *arg);
/* fd out of the loop again (before it is closed). */
void engine_unwatch_fd(struct engine *e, int fd);

/* Changes the tick period without re-opening anything. */
int engine_set_interval(struct engine *e, double seconds);
/* The next tick in secs (sooner than the interval), then every interval
 * from it: the live view's first table. */
int engine_tick_in(struct engine *e, double secs);

/* Turns one sampling event on or off on every CPU/thread (ioctl, no re-open). */
int engine_enable_event(struct engine *e, size_t ev, bool on);

/* Whether sampling event ev is on (the engine owns the wish; its exclude
 * bits are evspec_exclude_bits(&engine_event(e, ev)->attr)). */
bool engine_event_enabled(const struct engine *e, size_t ev);

/* Re-opens one sampling event with a new exclude mask; the rings, the
 * tracking event and thus all symbol/task state stay. On failure the old
 * event stays open and err says why. */
int engine_set_exclude(struct engine *e, size_t ev, unsigned excl, char *err, size_t errlen);

/* Percent of the time since the previous call that the event was really on
 * the PMU (below 100 when multiplexed), from its fds' enabled/running times;
 * -1 when nothing was enabled meanwhile. A CPU-wide event that is never
 * multiplexed is not read: 100 if it was on meanwhile. */
int engine_running_pct(struct engine *e, size_t ev);
/* Whether an event of this attr.type always runs while on: the software
 * PMU and tracepoints have no counters to share. */
bool engine_attr_never_multiplexed(uint32_t type);

/* What was actually opened (after any fallback). */
const struct evspec *engine_event(const struct engine *e, size_t ev);
size_t engine_nevents(const struct engine *e);
/* The attr event ev was opened with (-1: the tracking event's), as the
 * kernel has it; and its ids (PERF_EVENT_IOC_ID, one per fd, those of
 * earlier opens of it too): how many there are, at most max into ids. */
void engine_event_attr(const struct engine *e, int ev, struct perf_event_attr *attr);
size_t engine_event_ids(const struct engine *e, int ev, uint64_t *ids, size_t max);
/* Notice of a fallback ("cycles not supported … using cpu-clock"), or NULL. */
const char *engine_notice(const struct engine *e);
size_t engine_ncpus(const struct engine *e);
int engine_cpu(const struct engine *e, size_t i);
void engine_get_stats(const struct engine *e, struct engine_stats *st);

/* --call-graph dwarf: pid's unwinding read `bytes` of a stack copy (from the
 * stack pointer). Its later copies are then spilled up to twice that and
 * a little more, not to their valid end: the rest is mostly environment
 * and start-up frames above main, never read. 0 forgets the process (exec,
 * exit: full copies until it is learnt again); ENGINE_STACK_ALL: a walk
 * wanted more than a copy held, and the process's copies are never cut. */
#define ENGINE_STACK_ALL UINT32_MAX
void engine_stack_used(struct engine *e, pid_t pid, uint32_t bytes);
/* The most of pid's stack copies the spill keeps (UINT64_MAX: all). */
uint64_t engine_stack_keep(const struct engine *e, pid_t pid);

/* The main loop is about to do slow work inside the record in hand (read
 * a symbol table, /proc): the kernel rings this pass reads in place go
 * back to the reader, which copies them aside if they fill meanwhile. The
 * record in hand stays valid (copied out, its pointers moved: a caller
 * must read it through the record, not through pointers taken before);
 * the pass ends after it. Nothing outside a pass. */
void engine_hand_back(struct engine *e);

/* --off-cpu on or off, live: sched:sched_switch on every target CPU and
 * thread, into the same rings. On failure (no tracefs, no privilege) err
 * holds the one line saying what is missing and how to get it, and
 * sampling goes on without it. engine_open turns it on when opts.offcpu
 * says so; a failure there becomes a notice (engine_notice). */
int engine_offcpu_set(struct engine *e, bool on, char *err, size_t errlen);
bool engine_offcpu_enabled(const struct engine *e);
/* sched:sched_waking beside the switch event from now on (while off-CPU is
 * on, and at each later on), same layout and rings: who woke whom. Asked
 * for, not opened with --off-cpu alone, as it doubles the records. 0, or
 * -errno (not there, no room: the rest runs on). */
int engine_offcpu_wakers(struct engine *e);
/* Under -p/-t: why wakers from outside the target are missed (sched_waking
 * per CPU not permitted, or too many threads to filter), else NULL. */
const char *engine_offcpu_wakers_note(const struct engine *e);
/* -p: a thread of the target born (alive) or gone, from its FORK or EXIT;
 * engine_offcpu_waking_refresh re-opens the per-CPU sched_waking with it
 * in the filter (a filter cannot be changed once set). 0, or -errno (the
 * old filter stays). */
void engine_offcpu_waking_thread(struct engine *e, pid_t tid, bool alive);
int engine_offcpu_waking_refresh(struct engine *e);
/* sched_waking's filter on the woken's pid for the threads tids (ranges
 * of consecutive ones joined): its length, 0 when it needs len or more. */
size_t engine_offcpu_waking_filter(const pid_t *tids, size_t n, char *buf, size_t len);
#define ENGINE_OFFCPU_LEAF_STACK 128
/* The switch records' bytes a second per CPU the rings are sized for with
 * --off-cpu: 20 000 switches of some 700 bytes (stack, raw fields, leaf
 * fix registers and stack). */
#define ENGINE_OFFCPU_BYTES ((uint64_t)20000 * 700)
/* Its attr and the layout of its samples (the run's call graphs, frame
 * pointers when none, and PERF_SAMPLE_RAW). */
void engine_offcpu_attr(struct perf_event_attr *attr, uint64_t config, const struct engine_opts *o,
			bool inherit, struct record_layout *lay);

/* Sizing and attr building, exposed for unit tests. */
size_t engine_default_pages(uint64_t freq, size_t nevents, size_t page_size);

/* A default ring holds ENGINE_RING_SECS at the full rate (at most
 * ENGINE_RING_MAX_PAGES). Without call graphs it wakes the reader when
 * ENGINE_WAKE_SLACK_MS of room are left (at half the ring if it holds
 * less than twice that), past the interval tick's drain. With -g (not
 * dwarf) the main loop is called at every wakeup; read in place, at a
 * quarter of the ring; else about ENGINE_CG_WAKES times a second (within
 * these bounds): big samples would otherwise hold megabytes in the spill
 * between passes (RSS), read no sooner for it. */
#define ENGINE_RING_SECS 8
#define ENGINE_RING_MAX_PAGES 2048
#define ENGINE_WAKE_SLACK_MS 500
#define ENGINE_CG_WAKES 6
#define ENGINE_CG_WAKE_MIN ((size_t)64 << 10)
#define ENGINE_CG_WAKE_MAX ((size_t)1 << 20)
/* -g read in place (frame pointers, lbr): pages grown (doubling) until a
 * quarter ring holds ENGINE_CG_QUARTER_MS at rate_bytes a second, up to
 * ENGINE_CG_MAX_PAGES and while ncpus rings stay within ENGINE_CG_LOCKED_MAX:
 * the main loop wakes at every quarter ring (the kernel counts a watermark
 * from its last wakeup, not from what was read: a tick does not put it
 * off), so a quarter that outlasts the default tick wakes it about once
 * a second at most. At 20 kHz the bigger ring is what keeps it in place
 * (ENGINE_DIRECT_MIN_NS): through the spill, copying was half its CPU. */
#define ENGINE_CG_QUARTER_MS 1200
#define ENGINE_CG_MAX_PAGES 4096
#define ENGINE_CG_LOCKED_MAX ((uint64_t)64 << 20)
size_t engine_cg_pages(size_t pages, uint64_t rate_bytes, size_t ncpus, size_t page_size);
/* Whether flat rings (no call graphs) are read as -g's are: the main loop
 * woken at a quarter ring reads them in place, the rings sized for it
 * (engine_cg_pages). So when more than half a ring comes in an interval
 * (100 kHz, 1 s): a tick's pass cannot read it in place then, and copying
 * it all through the spill cost more than the rest of the main loop's work
 * at that rate. Below, the ticks read the rings in place, woken by nothing
 * else. */
bool engine_flat_main(uint64_t rate_bytes, size_t ring, double interval);
/* wakeup_watermark for a ring of ring bytes, rate_bytes a second at the full
 * rate. */
size_t engine_wake_bytes(size_t ring, bool callgraph, uint64_t rate_bytes, bool in_place);
/* How long a drain pass may read a kernel ring in place (the reader kept
 * off it) before the half of it left free could fill at the full rate,
 * halved for margin; 0 (never in place) below ENGINE_DIRECT_MIN_NS. The
 * turn is checked between records; a record that needs slow work (the
 * first sample of a process loads its symbol tables: tens of ms, more in
 * a sanitized build) hands the rings back first (engine_hand_back). What
 * no hand-back covers is the main loop preempted mid-turn on a busy
 * machine, the reader kept off all the while: so only a ring whose free
 * half lasts a quarter second is read in place; a smaller one for its
 * rate (-m, -g at 20 kHz) goes through the spill, whose reader keeps
 * copying (runs under process churn were too noisy to show a 20 ms
 * floor safe). */
#define ENGINE_DIRECT_MIN_NS 125000000ull
uint64_t engine_direct_ns(size_t ring, uint64_t rate_bytes);
/* engine_attr.c: a sampling event's attr. */
void engine_attr_build(struct perf_event_attr *attr, const struct evspec *ev,
		       const struct engine_opts *o, bool inherit);
/* The per-CPU tracking event's (dummy: MMAP2, COMM, FORK/EXIT). */
void engine_attr_tracking(struct perf_event_attr *attr, bool inherit);
/* What samples carry, from the options (layout->extra 0: no call graph;
 * period: -c's, or 0). */
void engine_attr_layout(struct record_layout *layout, const struct callgraph_opts *cg, uint64_t period);
/* The call-graph bits of a sampling event's attr. */
void engine_attr_callgraph(struct perf_event_attr *attr, const struct callgraph_opts *cg);

#endif
