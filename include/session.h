/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session: one monitoring run — the engine, the symbols, the aggregation
 * and (in focus mode) the exact counters wired together. Both front ends
 * (the dump and the screen) drive a session and read its agg; they reach
 * the engine, the symbols and the counters only through it. */
#ifndef PERFTOP_SESSION_H
#define PERFTOP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <time.h>

#include "agg.h"
#include "annotate.h"
#include "counters.h"
#include "cpumap.h"
#include "engine.h"
#include "leaffix.h"
#include "options.h"
#include "spans.h"
#include "symbols.h"
#include "unwind.h"

#define SESSION_NOTICES 4
#define SESSION_STACK_MAX 512   /* frames per sample at most (--max-stack is u16) */

struct session_replay;

/* The wake agg's frame between a woken's stack and its waker's: a wait
 * function may be in both (a waker interrupted in its own sleep), only
 * the one past it is the woken's. */
#define SESSION_WOKEN_BY "-- woken by --"
#define SESSION_WOKEN_BY_DSO "[waker]"

struct session {
	const struct options *opts;
	struct session_replay *replay; /* -i: the file played (no engine), else NULL */
	struct engine *eng;
	struct symbols *syms;
	struct agg *agg;
	struct counters *cnt;      /* exact counters in focus mode, else NULL */
	struct unwind *unw;        /* -g (the leaf fix) and --call-graph dwarf, else NULL */
	struct leaffix *leaf;      /* -g: the leaf fix, else NULL */
	struct annot_cache *annot; /* annotations made so far (session_annot) */
	uint64_t tracking_lost;    /* MMAP/COMM/… records the kernel dropped */
	bool in_sample;            /* a sample in hand: slow work may hand the rings back */
	size_t focus_left;         /* -p: processes still alive */
	const char *notices[SESSION_NOTICES];
	size_t nnotices;
	char target[256];
	struct timespec last_tick;
	double interval;           /* seconds between ticks: session_interval() */
	struct session_rec *rec;   /* --record, else NULL (src/session/session_rec.c) */
	/* --off-cpu (session_offcpu.c): blocked time by the stack a thread
	 * left its CPU with, in an agg of its own (one event, "off-cpu",
	 * period in ns), and the spans with the time per task and state.
	 * NULL until off-CPU is first turned on. */
	struct agg *wait;
	/* Who woke them (sched:sched_waking): each ended span's stack, a
	 * separator, then its waker's stack, charged to the waker's task as
	 * in wait (offwaketime's stacks). NULL as wait is. The separator's
	 * name and file are SESSION_WOKEN_BY, SESSION_WOKEN_BY_DSO. */
	struct agg *wake;
	struct spans *spans;
	bool offcpu_want;          /* the wish, O's: a re-open keeps it */
	bool wakers_want;          /* W's: sched_waking too (session_offcpu_wakers) */
	bool offcpu_bpf;           /* summed in the kernel (offbpf), not the engine's records */
	bool running;              /* the engine's loop runs (session_run's start) */
	struct session_offcpu *off;
	struct srcline_cache *lines; /* --sort srcline's names (session_srcline.c), NULL until the first */
};

/* Opens everything; on failure err holds the user's one line. Returns 0 or -errno. */
int session_open(struct session *s, const struct options *o, char *err, size_t errlen);
void session_close(struct session *s);
/* The annotations (include/annotate.h), made as -M, -k and --source say. */
struct annot_cache *session_annot(struct session *s);

/* -g's leaf fix on this session's process table (s->unw walks what its
 * rules cannot answer); rule_bits as for leaffix_new. session_open makes
 * it for -g; a benchmark may make its own. */
struct leaffix *session_leaffix_new(struct session *s, unsigned rule_bits);

/* The engine's record handler: resolve and aggregate. */
void session_record(void *arg, int ev, const struct record *rec);
/* Its handler of flat samples counted together (engine_handlers.samples). */
void session_samples(void *arg, int ev, const struct engine_samples *s);

/* Runs the event loop with the front end's handlers (records go to
 * session_record); session_stop ends it from a handler. */
int session_run(struct session *s, struct engine_handlers *h);
void session_stop(struct session *s);
/* session_stop when nothing reads the figures after: the records not yet
 * decoded stay undecoded (engine_quit). */
void session_quit(struct session *s);
/* Ends the run, decoding what was taken so far (engine_flush): before the
 * last interval is shown. */
void session_flush(struct session *s);
/* The front end's extra fd (the terminal), watched by the current engine. */
int session_watch_fd(struct session *s, int fd, void (*cb)(void *arg), void *arg);
/* The refresh interval: the session owns it (the options give the first,
 * session_set_interval the later ones, a re-aim keeps it); the engine's
 * ticks and the exporter's windows follow it. Any thread may read it. */
double session_interval(const struct session *s);
/* 0, or -errno from the engine (then the interval stays). */
int session_set_interval(struct session *s, double seconds);
/* The next tick in secs, then every interval from it (engine_tick_in). */
int session_tick_in(struct session *s, double secs);

/* Ends an interval, the one sequence both front ends run: the counters,
 * the multiplexing and the thread counts of the interval's processes
 * (/proc) read into the agg, show(arg, lap) with lap the interval
 * really measured, then the agg rolled (decay_pct: see agg_roll) and the
 * processes that exited before it forgotten. */
void session_interval_end(struct session *s, unsigned decay_pct,
			  void (*show)(void *arg, double lap), void *arg);

/* The parents of the process rows and their ancestors that the agg does
 * not know yet, read from /proc (session_kin.c); session_interval_end
 * calls it. */
void session_kin_update(struct session *s);

/* A focused process exited (the engine's pid_exit): true when it was the
 * last one, so the run's figures are final. */
bool session_focus_exit(struct session *s, pid_t pid);

/* An event as the engine has it now. */
struct session_event {
	const char *name;
	bool enabled;
	unsigned exclude;          /* EXCL_* */
};
void session_event(const struct session *s, size_t ev, struct session_event *out);
int session_enable_event(struct session *s, size_t ev, bool on);
/* Re-opens the event with new exclude flags; on failure err says why and
 * the old flags stay. */
int session_set_exclude(struct session *s, size_t ev, unsigned excl, char *err, size_t errlen);

/* Figures about perftop itself, for --stats. */
struct session_stats {
	struct engine_stats eng;
	struct symbols_stats sym;
	uint64_t tracking_lost;
	uint64_t unwound, unwind_truncated; /* stacks unwound from CFI, and those cut short */
	uint64_t unwind_slow;               /* of those, walked by libdw rather than cached rules */
	uint64_t leaf_fixed;  /* -g: leaves without a frame whose caller the CFI gave back */
	/* -g: the leaf fix's rule cache (cfarule): lookups answered, lookups
	 * that read the rule from CFI, of those how many found nothing to fix,
	 * and the files opened for them (a handle kept per DSO, so few). */
	uint64_t leaf_rule_hits, leaf_rule_misses, leaf_rule_negative, leaf_rule_opens;
	uint64_t leaf_rule_memo; /* of the hits, those the (pid, IP) memo answered */
	uint64_t unwind_dwfl; /* Dwfl made (per process; -g: leaves with no file, e.g. the vDSO) */
	struct agg_stats agg; /* live rows and expiry */
	/* --record: the file ("-": stdout; NULL: none), bytes written, and
	 * whether it stopped (--max-size, a full disk: see the notices). */
	const char *record_path;
	uint64_t record_bytes;
	bool record_stopped;
};
void session_stats(const struct session *s, struct session_stats *st);

/* For the front ends, which reach the layers below only through here: the
 * kernel's bound on sampling rates (0: unreadable), whether names are
 * demangled (names resolved from now on follow a change), and the names of
 * an event's excluded modes (EXCL_* bits), comma separated ("user,hv"; ""). */
uint64_t session_max_sample_rate(void);
bool session_demangle(const struct session *s);
void session_set_demangle(struct session *s, bool on);
void session_exclude_format(unsigned bits, char *buf, size_t len);

/* Ends --record's file (the features, the sizes): before the run's end is
 * shown, after the last records were taken (session_close does it too).
 * msg gets the one line to show ("recorded N samples (X MB) to FILE", or
 * the error). 0, or -errno when the file could not be completed. */
int session_rec_finish(struct session *s, char *msg, size_t len);

/* --record's state alone (session_stats has it too, with everything
 * else): the file ("-": stdout; NULL: not recording), its bytes so far,
 * and whether it stopped. Cheap: for the live view's header. */
void session_rec_stats(const struct session *s, const char **path, uint64_t *bytes, bool *stopped);

/* --off-cpu (session_offcpu.c) */
/* Turns it on or off live; on failure err says what is missing (tracefs,
 * privilege) and how to get it, and the run goes on without it. */
int session_offcpu_set(struct session *s, bool on, char *err, size_t errlen);
/* Whether the engine has it on now. */
bool session_offcpu_on(const struct session *s);
/* Who woke whom from now on (W): sched_waking opened; 0 or -errno. */
int session_offcpu_wakers(struct session *s);
/* Under -p/-t, what W misses and why (engine_offcpu_wakers_note), else NULL. */
const char *session_offcpu_wakers_note(const struct session *s);
/* Why the tracepoint's format could not be read, or NULL. */
const char *session_offcpu_notice(const struct session *s);
/* The engine's records of it (ev ENGINE_EV_OFFCPU), and a ring's loss. */
void session_offcpu_record(struct session *s, const struct record *r);
void session_offcpu_lost(struct session *s, int cpu, uint64_t n);
/* Names, forks and exits, for the wait agg's task rows as for the agg's. */
void session_offcpu_track(struct session *s, const struct record *r);
/* Made at open (for --off-cpu) or on the first session_offcpu_set; fresh
 * on a re-aim; rolled and freed with the session's agg. */
int session_offcpu_open(struct session *s, char *err, size_t errlen);
void session_offcpu_fresh(struct session *s);
/* session_srcline.c: a fresh agg's srcline rows named from the DWARF line
 * tables (agg asks at the read, once per address); the end. */
void session_srcline_on(struct session *s);
void session_srcline_free(struct session *s);
void session_offcpu_roll(struct session *s, unsigned decay_pct);
void session_offcpu_close(struct session *s);
/* The kernel's way (offbpf) or the records': whether the kernel's is
 * wished (--off-cpu-via, built, not recording, not dwarf, not W). */
bool session_offcpu_bpf_wish(const struct session *s);
/* The target kept for a program loaded later. 0 or -ENOMEM. */
struct session_target;
int session_offcpu_target(struct session *s, const struct session_target *t);
/* After the engine opened (--off-cpu): the kernel's way when wished,
 * else or on its failure (a notice) the records'. -errno only for what
 * must stop perftop (--off-cpu-via bpf refused, out of memory). */
int session_offcpu_begin(struct session *s, char *err, size_t errlen);
/* The loop runs: the kernel's program, loaded before, attaches now; true
 * when it was refused and the records' way took over (a notice says so). */
bool session_offcpu_started(struct session *s);
/* After a re-open: the kernel's program loaded again for target t; if it
 * cannot be, the records' way (and a notice). */
void session_offcpu_retarget(struct session *s, const struct session_target *t);
/* The kernel's counts, when it sums the spans. */
struct offbpf_stats;
bool session_offcpu_bpf_stats(const struct session *s, struct offbpf_stats *st);
/* Whether the kernel sums the spans now. */
bool session_offcpu_in_kernel(const struct session *s);
/* The spans ended and not yet charged to s->wait charged now (the
 * interval's end does it; they are charged at least every 100 ms else). */
void session_offcpu_settle(struct session *s);
/* A sample's cpumode is the kernel's (or a hypervisor's, a guest kernel's). */
bool session_addrs_kernel(uint16_t misc);
/* -g's addresses of a sample (session_addrs.c), as session_offcpu keeps
 * them with a span. */
size_t session_addrs_of(struct session *s, const struct record *r, uint64_t *addrs, uint64_t *kmask,
			    size_t max);

/* comm of a process the session knows, or NULL. */
const char *session_comm(const struct session *s, pid_t pid);

/* Re-aiming a running session (the live view's focus mode) or changing
 * its sampling rate, with the events and exclude flags in force now. Only
 * between session_run()s. */
struct session_target {
	const pid_t *pids;      /* NULL: system-wide (or cgroup) */
	size_t npids;
	bool pids_are_tids;
	const char *cgroup;
	uint64_t freq, period;  /* both 0: the options' */
	double interval;        /* 0: session_interval()'s */
	bool keep_agg;          /* same target, new rate: keep the tables */
};

/* On failure the old engine stays open and err says why — unless the old one
 * had to be closed to make room (EPERM, EMFILE, ENOMEM from locked ring
 * memory or fds): then s->eng is NULL and the caller must open a target again. */
int session_reopen(struct session *s, const struct session_target *t, char *err, size_t errlen);

/* --- -i: a perf.data file played (session_replay.c) ---------------------- */

/* Opens a session that plays o->input: the file's events, tasks and
 * symbols, no perf_event_open. Call graphs when its samples carry them
 * (o->cg and o->children are set then). 0, or -errno with err. */
int session_replay_open(struct session *s, struct options *o, char *err, size_t errlen);
bool session_replaying(const struct session *s);
/* The reading's failure (a cut or corrupt file: offset and what), or NULL. */
const char *session_replay_error(const struct session *s);
/* The live view's keys: pause, one interval now, faster (dir 1) or slower
 * (-1) by two (0: as it is); returns the speed. */
void session_replay_pause(struct session *s, bool paused);
void session_replay_step(struct session *s);
double session_replay_speed(struct session *s, int dir);
struct session_replay_state {
	double at, length;   /* seconds into the recording, its length (0: unknown) */
	double speed;
	bool paused, ended;
};
void session_replay_state(const struct session *s, struct session_replay_state *st);

/* session.c's calls when s->replay is set. */
void session_replay_close(struct session *s);
int session_replay_run(struct session *s, struct engine_handlers *front);
void session_replay_stop(struct session *s);
int session_replay_watch_fd(struct session *s, int fd, void (*cb)(void *arg), void *arg);
int session_replay_tick_in(struct session *s, double secs);
double session_replay_lap(const struct session *s);
void session_replay_event(const struct session *s, size_t ev, struct session_event *out);
int session_replay_enable_event(struct session *s, size_t ev, bool on);
int session_replay_set_exclude(struct session *s, size_t ev, unsigned excl, char *err, size_t errlen);
int session_replay_reopen(struct session *s, const struct session_target *t, char *err, size_t errlen);

#endif
