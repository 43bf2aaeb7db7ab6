/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine internals shared by its modules, which call each other downward
 * only: engine.c (open, close, what was opened; the API the session calls)
 * -> engine_loop.c (epoll, timerfd, signalfd, pidfds, watches, drain
 * passes) -> engine_spill.c (the reader thread, the only writer of the
 * spill rings) and engine_events.c (opens and fallbacks, notices, the id
 * map, enable, re-open, running times) -> engine_attr.c (attrs). Nothing
 * outside the engine includes it. */
#ifndef PERFTOP_ENGINE_INT_H
#define PERFTOP_ENGINE_INT_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>

#include "engine.h"
#include "htab.h"
#include "order.h"
#include "ring.h"

#define ENGINE_MAX_WATCH 6
#define ENGINE_NOTICE_MAX 512

enum engine_src_kind { SRC_RING, SRC_TIMER, SRC_SIGNAL, SRC_PIDFD, SRC_WATCH, SRC_SPILL, SRC_QUIT, SRC_KICK, SRC_GUARD };

struct engine_src {
	enum engine_src_kind kind;
	size_t idx;
};

struct engine_watch {
	int fd;
	void (*cb)(void *arg);
	void *arg;
};

struct engine_idslot {
	uint64_t id;
	int ev; /* -1 tracking */
};

struct engine {
	struct engine_opts o;
	struct evspec *events;
	bool *enabled;
	uint64_t *prev_enabled, *prev_running; /* [ev], for engine_running_pct */
	/* [ev], for engine_running_pct: on now (as engine_events_set_state left it),
	 * and on at some time since the last reading. */
	bool *on_now, *on_since;
	int *cpus;
	size_t ncpus;
	pid_t *tids;          /* one entry of -1 when system-wide */
	size_t ntids;
	int *track;           /* [cpu][tid] dummy fds; [cpu][0] owns the ring */
	int *fds;             /* [ev][cpu][tid] */
	struct ring *rings;   /* [cpu]: the kernel's, read under spill_lock[cpu] */
	struct ring *spill;   /* [cpu]: written under spill_lock[cpu], read by the main loop */
	pthread_mutex_t *spill_lock; /* [cpu]: whoever reads rings[cpu] */
	/* The main loop waits for a spill lock (atomic): the reader's copy,
	 * made a chunk at a time, gives way between chunks. */
	uint32_t main_waits;
	bool *direct;         /* [cpu]: this pass reads rings[cpu] itself, its lock held (atomic) */
	uint64_t *claim_tail; /* [cpu]: a direct ring's tail when the pass claimed it */
	uint64_t rd_spilled;  /* bytes moved into the spills, by either thread (atomic) */
	bool wake_main;       /* -g (and engine_flat_main): the main loop comes at every wakeup (called by the
			       * reader, or main_rings) */
	/* -g read in place: the kernel rings wake the main loop, not the
	 * reader (its wakeups were a fifth of -g's CPU, only to wake the main
	 * loop). The reader wakes on rd_guard only, which each pass sets to
	 * when a ring left unread could come within a reserve of full at the
	 * full rate (engine_spill_guard). */
	bool main_rings;
	/* Flat read in place: a watermark that wakes the reader while the
	 * ring has room leaves it to the main loop's next pass (the copy and
	 * its spill pages' faults were most of the reader's time); rd_guard,
	 * set by each pass and by such a wakeup, covers a main loop that
	 * stalls. */
	bool flat_guard;
	/* main_rings: only the ring that filled most since the last pass has
	 * its fd armed in the loop's epoll (events 0 for the others). */
	size_t armed;
	uint64_t *arm_head;   /* [cpu]: ring_written at the last pass */
	bool *ring_off;       /* [cpu]: its fd left the loop's epoll (hung up) */
	int rd_guard;         /* timerfd, the reader's: CLOCK_MONOTONIC */
	uint64_t ring_rate;   /* bytes a second into a ring at the full rate */
	uint64_t direct_ns;   /* engine_direct_ns: a pass's turn on a kernel ring; 0: never in place */
	bool handed_back;     /* engine_hand_back during this record: the turn ends after it */
	size_t nlocks;        /* initialised */
	pthread_t reader;
	bool reader_on;
	int rd_epfd, rd_quit, rd_notify, rd_kick; /* the reader's epoll; eventfds to it and from it */
	pthread_mutex_t rd_lock; /* with rd_done: the main loop waits for a requested transfer */
	pthread_cond_t rd_done;
	bool rd_sync_init;
	uint64_t rd_asked, rd_served; /* transfer rounds asked by the main loop, done by the reader */
	bool rd_exited;       /* the reader is gone: the main loop is then the only writer */
	uint64_t rd_wakeups;  /* the reader's: atomic */
	uint64_t rd_fix[3];   /* the writer's: a cut sample's patched header, stack size, dyn_size */
	uint64_t *stack_need; /* [NEED_SLOTS] pid << 32 | bytes the unwinder used (atomic) */
	uint64_t rd_cut;      /* the writer's: stack bytes cut (atomic) */
	bool backlog;         /* behind: another pass at once */
	bool cut;             /* the last pass ran out of time: the next may skip the transfer */
	struct order order;   /* the spills merged by time */
	struct tally *tally;  /* flat samples on their way (h->samples), between records */
	struct record_layout layout; /* what call-graph samples carry (order decodes with it) */
	bool clock_mono;      /* record times are CLOCK_MONOTONIC (use_clockid taken) */
	uint64_t round_limit; /* else perf's round rule: the previous pass's newest time */
	uint64_t limit;       /* the last pass's: newer records wait for the next */
	struct engine_src *ring_src, timer_src, signal_src, *pid_src, watch_src[ENGINE_MAX_WATCH];
	struct engine_src quit_src, spill_src, kick_src, guard_src;
	int *pidfds;
	size_t npidfds;
	struct engine_watch watch[ENGINE_MAX_WATCH];
	size_t nwatch;
	struct htab ids;      /* sample id -> event + 2 (-1: tracking) */
	/* Found ids by their low bits: the kernel numbers one event's fds
	 * (one per CPU) in a row, and their samples alternate, which a
	 * last-hit cache missed at every one. An id's event never changes. */
#define ENGINE_IDC 16
	struct engine_idslot idc[ENGINE_IDC];
	int epfd, tfd, sfd;
	int cgroup_fd;
	sigset_t sigs;
	const struct engine_handlers *h;
	bool stop;
	bool quit;            /* engine_quit: the rest is not decoded */
	bool started;         /* events on and timer armed (engine_start) */
	bool clock_started;   /* timer armed ahead of the events (engine_start_clock) */
	char notice[ENGINE_NOTICE_MAX];
	struct engine_stats st;
	size_t pages;
	size_t wake;  /* wakeup_watermark: engine_wake_bytes */
	/* --off-cpu (engine_offcpu.c) */
	int *ofds;                          /* [cpu][tid], -1 when closed */
	bool offcpu_on;
	uint64_t offcpu_config;             /* sched:sched_switch's tracepoint id */
	struct record_layout offcpu_layout; /* layout.alt */
	uint64_t *alt_ids;                  /* every id it ever had, ascending */
	size_t alt_n, alt_cap;
	/* sched:sched_waking beside it, same layout and rings (who woke whom);
	 * best effort: none when it cannot be opened. */
	int *wfds;                          /* [cpu][tid], -1 when closed */
	uint64_t waking_config;             /* 0: not known (not opened) */
	bool wakers_on;                     /* asked for (engine_offcpu_wakers, opts.wakers) */
	/* -p/-t: one per CPU ([cpu][0]) filtered on the woken's pid, as the
	 * waker is often outside the target; per task when not permitted
	 * (waking_note says what is missed). */
	bool waking_per_task;
	char waking_note[200];
	pid_t *wtids;                       /* the filter's threads: -p's at open, then its FORKs */
	size_t nwtids, wtids_cap;
	bool wtids_dirty;                   /* a thread born since: re-opened at the next tick */
	bool waking_live;                   /* the waking fds enabled now */
};

static inline int *engine_fd_at(struct engine *e, size_t ev, size_t c, size_t t)
{
	return &e->fds[(ev * e->ncpus + c) * e->ntids + t];
}

static inline int *engine_track_at(struct engine *e, size_t c, size_t t)
{
	return &e->track[c * e->ntids + t];
}

/* A source in the main loop's epoll (the loop's own, and the spill's
 * notify fd and rings): one call, inline, so the spill below the loop
 * need not call up into it. */
static inline int engine_epoll_add_events(struct engine *e, int fd, struct engine_src *src, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static inline int engine_epoll_add(struct engine *e, int fd, struct engine_src *src)
{
	return engine_epoll_add_events(e, fd, src, EPOLLIN);
}

/* engine_events.c */
/* Appends one notice ("; " between them): fallbacks add up. */
void engine_events_notice(struct engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int engine_events_open_tracking(struct engine *e, char *err, size_t errlen);
int engine_events_open(struct engine *e, size_t ev, char *err, size_t errlen);
void engine_events_close(struct engine *e, size_t ev);
int engine_events_set_state(struct engine *e, size_t ev, bool on);
/* The sampling event or tracking (-1) a record's id belongs to; -2: none. */
int engine_events_find(struct engine *e, uint64_t id);
size_t engine_events_fds_needed(const struct engine *e);
int engine_events_enable(struct engine *e, size_t ev, bool on);
int engine_events_set_exclude(struct engine *e, size_t ev, unsigned excl, char *err, size_t errlen);
int engine_events_running_pct(struct engine *e, size_t ev);

/* engine_spill.c */
int engine_spill_setup(struct engine *e, char *err, size_t errlen);
int engine_spill_start_reader(struct engine *e, char *err, size_t errlen);
/* dwarf: has the reader move every kernel ring into its spill (cutting
 * the stacks); waits max_wait_ns at most (0: until it has). */
void engine_spill_sync(struct engine *e, uint64_t max_wait_ns);
/* Before a drain pass: each CPU's sources (order_source). A CPU with room
 * in its kernel ring is read there by the pass itself after its spill, its
 * lock held until engine_spill_unclaim; the others read their spill only, moved
 * on first (not dwarf) when transfer, or when it is empty. */
bool engine_spill_claim(struct engine *e, bool transfer); /* true: some CPU is read in place */
void engine_spill_unclaim(struct engine *e);
/* After a drain pass: each spill that is nearly read moves its rest to its
 * start, so its next writes reuse the pages kept there (ring_rewind). */
void engine_spill_rewind(struct engine *e);
/* After a drain pass (main_rings, flat_guard): the reader's guard timer set
 * from what each kernel ring holds now, to fire within max_ns (0: no bound);
 * -errno only if the timer is unusable, which engine_spill_setup's first arming
 * already rules out. */
int engine_spill_guard(struct engine *e, uint64_t max_ns);
/* After a drain pass (main_rings): arms the ring that filled most since the
 * last one, disarms the one armed before. */
void engine_spill_arm(struct engine *e);
void engine_spill_stop_reader(struct engine *e);
void engine_spill_free(struct engine *e);
void engine_spill_stack_used(struct engine *e, pid_t pid, uint32_t bytes);
uint64_t engine_spill_stack_keep(const struct engine *e, pid_t pid);
void engine_spill_hand_back(struct engine *e);

/* engine_offcpu.c: the ioctls alone, as engine_events_set_state; nothing
 * when --off-cpu is off. */
void engine_offcpu_state(struct engine *e, bool on);
void engine_offcpu_free(struct engine *e);

/* engine_loop.c */
int engine_loop_setup(struct engine *e, char *err, size_t errlen);
void engine_loop_free(struct engine *e);
int engine_loop_start(struct engine *e);
int engine_loop_start_clock(struct engine *e);
int engine_loop_run(struct engine *e, const struct engine_handlers *h);
void engine_loop_stop(struct engine *e);
void engine_loop_quit(struct engine *e);
void engine_loop_flush(struct engine *e);
int engine_loop_watch_fd(struct engine *e, int fd, void (*cb)(void *arg), void *arg);
void engine_loop_unwatch_fd(struct engine *e, int fd);
int engine_loop_set_interval(struct engine *e, double seconds);
int engine_loop_tick_in(struct engine *e, double secs);

#endif
