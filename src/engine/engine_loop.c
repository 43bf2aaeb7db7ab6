/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine loop: the epoll loop of the main thread (timerfd ticks, signalfd,
 * pidfds of focused processes, the caller's watched fds, the reader's
 * "spill half full"), and the drain passes that decode the spills. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine_int.h"

#define DRAIN_SLICE_NS 20000000ull /* a drain pass between epoll waits: 20 ms */
#define DRAIN_CHECK_EVERY 256      /* records between clock reads */
#define SYNC_WAIT_NS 50000000ull   /* a pass waits this long at most for the reader */
/* How long a record may take from its timestamp to the ring: the kernel
 * stamps and writes it in one non-preemptible section (perf_output_begin ..
 * end), microseconds, but a VM's vCPU can be descheduled in between for
 * milliseconds (steal time). 10 ms covers that and is small against the
 * interval: what it holds back comes with the next pass. */
#define ORDER_SLACK_NS 10000000ull

int engine_loop_setup(struct engine *e, char *err, size_t errlen)
{
	int rc;

	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	sigemptyset(&e->sigs);
	sigaddset(&e->sigs, SIGINT);
	sigaddset(&e->sigs, SIGTERM);
	sigaddset(&e->sigs, SIGHUP);
	sigaddset(&e->sigs, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &e->sigs, NULL) < 0 || e->epfd < 0 || e->tfd < 0 ||
	    (e->sfd = signalfd(-1, &e->sigs, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot set up the event loop: %s", strerror(-rc));
		return rc;
	}
	if ((rc = engine_spill_setup(e, err, errlen)) != 0)
		return rc;
	if ((rc = order_init(&e->order, e->spill, e->ncpus)) != 0 || (e->tally = tally_new(ORDER_TALLY_BITS, ORDER_TALLY_PROBE)) == NULL) {
		rc = rc ? rc : -ENOMEM;
		snprintf(err, errlen, "out of memory while opening events");
		return rc;
	}
	e->order.layout = &e->layout;
	e->timer_src = (struct engine_src){ SRC_TIMER, 0 };
	e->signal_src = (struct engine_src){ SRC_SIGNAL, 0 };
	if ((rc = engine_epoll_add(e, e->tfd, &e->timer_src)) || (rc = engine_epoll_add(e, e->sfd, &e->signal_src)))
		return rc;
	/* The timer is armed by engine_loop_run: reading /proc and kallsyms between
	 * open and run must not count as the first interval. */

	if (e->o.pids && !e->o.pids_are_tids) {
		e->pidfds = malloc(e->o.npids * sizeof(*e->pidfds));
		e->pid_src = calloc(e->o.npids, sizeof(*e->pid_src));
		if (e->pidfds == NULL || e->pid_src == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < e->o.npids; i++) {
			int fd = (int)syscall(SYS_pidfd_open, e->o.pids[i], 0);

			e->pidfds[e->npidfds++] = fd;
			e->pid_src[i] = (struct engine_src){ SRC_PIDFD, i };
			if (fd >= 0 && (rc = engine_epoll_add(e, fd, &e->pid_src[i])) != 0)
				return rc;
		}
	}
	return 0;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void engine_loop_free(struct engine *e)
{
	order_free(&e->order);
	tally_free(e->tally);
	e->tally = NULL;
	for (size_t i = 0; i < e->npidfds; i++)
		close_fd(e->pidfds[i]);
	close_fd(e->epfd);
	close_fd(e->tfd);
	if (e->sfd >= 0) {
		close(e->sfd);
		sigprocmask(SIG_UNBLOCK, &e->sigs, NULL);
	}
	free(e->pidfds);
	free(e->pid_src);
}

static void on_record(struct engine *e, const struct record *rec, enum record_status st)
{
	int ev;

	e->st.records++;
	if (st == RECORD_IGNORED) {
		if (e->h->raw)
			e->h->raw(e->h->record_arg, -1, order_hdr(&e->order));
		return;
	}
	if (st == RECORD_BAD) {
		e->st.bad_records++;
		return;
	}
	ev = engine_events_find(e, rec->type == PERF_RECORD_LOST ? rec->lost.id
			 : rec->type == PERF_RECORD_THROTTLE || rec->type == PERF_RECORD_UNTHROTTLE
			 ? rec->throttle.id : rec->sid.id);
	if (ev == -2) {
		e->st.bad_records++;
		return;
	}
	if (rec->type == PERF_RECORD_SAMPLE)
		e->st.samples++;
	if (e->h->raw)
		e->h->raw(e->h->record_arg, ev, order_hdr(&e->order));
	e->h->record(e->h->record_arg, ev, rec);
}

/* The raw tap's flat samples (order_step): their bytes again, as the ring
 * had them (a flat sample is its header and record_flat, less the period
 * under -c). */
static void flat_raw(void *arg, const struct order_flat *w)
{
	struct engine *e = arg;
	struct {
		struct perf_event_header h;
		struct record_flat f;
	} buf;
	int ev = engine_events_find(e, w->f.id);

	if (ev == -2)
		return;
	buf.h.type = PERF_RECORD_SAMPLE;
	buf.h.misc = w->misc;
	buf.h.size = (uint16_t)(sizeof(buf.h) + (e->layout.period ? offsetof(struct record_flat, period)
							    : sizeof(buf.f)));
	buf.f = w->f;
	e->h->raw(e->h->record_arg, ev, &buf.h);
}

static void samples_out(void *arg, const struct tally_slot *t)
{
	struct engine *e = arg;
	struct engine_samples s = { .ip = t->ip, .period = t->period, .pid = t->pid, .tid = t->tid, .cpu = t->cpu,
				    .n = t->n, .misc = t->misc };
	int ev = engine_events_find(e, t->key);

	e->st.records += t->n;
	if (ev == -2) {
		e->st.bad_records += t->n;
		return;
	}
	e->st.samples += t->n;
	e->h->samples(e->h->record_arg, ev, &s);
}

/* The flat samples held: handed on before any later record. */
static void samples_flush(struct engine *e)
{
	if (!tally_empty(e->tally))
		tally_take(e->tally, samples_out, e);
}

enum drain_kind {
	DRAIN_NEW,   /* the reader moves every kernel ring first; up to now less the slack */
	DRAIN_MORE,  /* what the last pass had no time for: no transfer, the same limit */
	DRAIN_ALL,   /* stops, flush, a focused process's exit: everything */
};

/* A drain pass: each CPU's records (its spill's, then its kernel ring's
 * read in place, or all moved into the spill: engine_spill_claim) merged by record
 * time and decoded, for at most budget_ns (0: no limit). Under overload the
 * main loop may decode slower than the kernel samples; a bounded pass keeps
 * the interval clock, the keys and signals on time while the rest waits in
 * the rings (and, once the spill is full, the kernel counts its losses).
 *
 * A new pass reaches every record written before it began (dwarf: it has
 * the reader move them into the spills and waits), but those newer than
 * the start less ORDER_SLACK_NS stay for the next pass: one from another
 * CPU may still be on its way. The passes that go on with a backlog skip
 * the transfer (the spills hold plenty, and waiting for the reader on a
 * loaded machine is a trip through the run queue) and keep the limit,
 * which all that was moved still honours. */
static void drain(struct engine *e, uint64_t budget_ns, enum drain_kind kind)
{
	uint64_t t0 = clock_mono_ns(), deadline = budget_ns ? t0 + budget_ns : UINT64_MAX;
	const struct record *rec;
	enum record_status st;
	unsigned since_check = 0;
	bool turn_over, first = true;
	/* Flat samples straight to the tally (order_step), when the handler
	 * takes them so and there are no call graphs. */
	bool tally = e->h && e->h->samples && e->layout.extra == 0;

	if (e->stack_need && kind != DRAIN_MORE)
		engine_spill_sync(e, kind == DRAIN_ALL ? 0 : SYNC_WAIT_NS);
	e->cut = false;
	/* Turns: a CPU read in place holds its reader off for e->direct_ns
	 * at most, then the pass claims anew (moving a ring that filled past
	 * half into the spill), same limit, same budget. */
	do {
		uint64_t turn_end = engine_spill_claim(e, kind != DRAIN_MORE) ? clock_mono_ns() + e->direct_ns : UINT64_MAX;

		if (first && kind == DRAIN_ALL) {
			e->limit = UINT64_MAX;
		} else if (first && kind == DRAIN_NEW && e->clock_mono) {
			e->limit = t0 > ORDER_SLACK_NS ? t0 - ORDER_SLACK_NS : 0;
		} else if (first && kind == DRAIN_NEW) {
			e->limit = e->round_limit;
			e->round_limit = order_newest(&e->order);
		}
		first = turn_over = false;
		e->order.tally = tally ? e->tally : NULL;
		order_begin(&e->order, e->limit);
		for (;;) {
			enum order_out out = tally ? order_step(&e->order, &rec, &st)
					     : order_next(&e->order, &rec, &st) ? ORDER_RECORD : ORDER_END;

			if (out == ORDER_END)
				break;
			if (out == ORDER_RECORD) {
				samples_flush(e); /* the older ones first */
				on_record(e, rec, st);
				since_check += 1 + (unsigned)e->order.tallied;
			} else {
				if (out == ORDER_FULL)
					samples_flush(e);
				since_check += (unsigned)e->order.tallied;
			}
			if (e->handed_back) {
				/* Its rings went back to the reader: claimed anew. */
				e->handed_back = false;
				turn_over = true;
				break;
			}
			if (since_check >= DRAIN_CHECK_EVERY) {
				uint64_t now = clock_mono_ns();

				since_check = 0;
				if (now >= deadline) {
					e->cut = true;
					break;
				}
				if (now >= turn_end) {
					turn_over = true;
					break;
				}
			}
		}
		order_done(&e->order);
		engine_spill_unclaim(e);
	} while (turn_over);
	if (tally)
		samples_flush(e);
	if (!e->cut)
		engine_spill_rewind(e);
	/* Same timer and values as the arming engine_spill_setup checked: no error
	 * is left for it. */
	if (e->main_rings || e->flat_guard)
		(void)engine_spill_guard(e, 0);
	if (e->main_rings)
		engine_spill_arm(e);
	/* Cut short, go on; caught up with an old limit, move it on now (a
	 * full spill no longer wakes the reader, so nothing else would). */
	e->backlog = e->cut || kind == DRAIN_MORE;
	e->st.reordered_late = e->order.late;
}

/* Off, but remembered as they were (enabled[]): a later run turns the
 * same ones on. */
static void events_pause(struct engine *e)
{
	for (size_t ev = 0; ev < e->o.nevents; ev++)
		engine_events_set_state(e, ev, false);
	engine_offcpu_state(e, false);
}

static void handle_signal(struct engine *e)
{
	struct signalfd_siginfo si;

	while (read(e->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		bool stop = si.ssi_signo != SIGWINCH;

		if (si.ssi_signo != SIGWINCH)
			engine_loop_flush(e); /* the last interval holds all it can */
		if (e->h->signal)
			stop = e->h->signal(e->h->arg, (int)si.ssi_signo);
		if (stop)
			e->stop = true;
	}
}

static int arm_timer(struct engine *e, double seconds)
{
	struct itimerspec its;
	long ns = (long)(seconds * 1e9);

	its.it_interval.tv_sec = ns / 1000000000L;
	its.it_interval.tv_nsec = ns % 1000000000L;
	its.it_value = its.it_interval;
	return timerfd_settime(e->tfd, 0, &its, NULL) < 0 ? -errno : 0;
}

int engine_loop_tick_in(struct engine *e, double secs)
{
	long every = (long)(e->o.interval * 1e9), first = (long)(secs * 1e9);
	struct itimerspec its = { { every / 1000000000L, every % 1000000000L },
				  { first / 1000000000L, first % 1000000000L } };

	if (!(secs > 0 && secs < e->o.interval))
		return -EINVAL;
	return timerfd_settime(e->tfd, 0, &its, NULL) < 0 ? -errno : 0;
}

int engine_loop_start(struct engine *e)
{
	bool armed = e->clock_started;

	for (size_t ev = 0; ev < e->o.nevents; ev++)
		if (e->enabled[ev])
			engine_events_set_state(e, ev, true);
	engine_offcpu_state(e, true);
	e->started = true;
	e->clock_started = false;
	return armed ? 0 : arm_timer(e, e->o.interval);
}

int engine_loop_start_clock(struct engine *e)
{
	int rc = arm_timer(e, e->o.interval);

	e->clock_started = rc == 0;
	return rc;
}

int engine_loop_run(struct engine *e, const struct engine_handlers *h)
{
	struct epoll_event evs[16];
	int rc;

	e->h = h;
	e->order.flat_raw = h->raw ? flat_raw : NULL;
	e->order.flat_arg = e;
	e->stop = e->quit = false;
	if (!e->started) {
		if ((rc = engine_loop_start(e)) != 0)
			return rc;
		if (h->start)
			h->start(h->arg);
	}

	while (!e->stop) {
		/* A backlog: look at the other sources, then decode on. */
		int n = epoll_wait(e->epfd, evs, 16, e->backlog ? 0 : -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		bool rings_woke = false;

		for (int i = 0; i < n && !e->stop; i++) {
			struct engine_src *s = evs[i].data.ptr;
			uint64_t ticks;

			switch (s->kind) {
			case SRC_SPILL:
				if (read(e->rd_notify, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					return -errno;
				/* Behind already: the spill holds plenty up to the
				 * limit; the tick moves it on. */
				drain(e, DRAIN_SLICE_NS, e->cut ? DRAIN_MORE : DRAIN_NEW);
				break;
			case SRC_RING:
				/* main_rings: a ring at its watermark. One whose owning
				 * thread exited (focus) is left to the ticks and the
				 * guard: other threads may still write there. */
				if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
					epoll_ctl(e->epfd, EPOLL_CTL_DEL, *engine_track_at(e, s->idx, 0), NULL);
					e->ring_off[s->idx] = true;
				}
				rings_woke = true; /* one pass for all of them, below */
				break;
			case SRC_QUIT:
			case SRC_KICK:
			case SRC_GUARD:
				break; /* the reader's */
			case SRC_TIMER:
				if (read(e->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
					return -errno;
				/* Up to a quarter interval of catching up: what is left
				 * counts in the next interval, which then comes on time. */
				drain(e, (uint64_t)(e->o.interval * 0.25e9) + 1, DRAIN_NEW);
				if (h->tick)
					h->tick(h->arg);
				break;
			case SRC_SIGNAL:
				handle_signal(e);
				break;
			case SRC_PIDFD:
				epoll_ctl(e->epfd, EPOLL_CTL_DEL, e->pidfds[s->idx], NULL);
				drain(e, 0, DRAIN_ALL); /* the process's last records */
				if (h->pid_exit)
					h->pid_exit(h->arg, e->o.pids[s->idx]);
				break;
			case SRC_WATCH:
				if (e->watch[s->idx].cb)
					e->watch[s->idx].cb(e->watch[s->idx].arg);
				break;
			}
		}
		e->st.ring_wakeups += rings_woke;
		if ((e->backlog || rings_woke) && !e->stop)
			drain(e, DRAIN_SLICE_NS, e->cut ? DRAIN_MORE : DRAIN_NEW);
	}
	events_pause(e);
	e->started = false;
	/* Nobody reads what comes after the stop: a quit is not held up. */
	if (!e->quit)
		drain(e, DRAIN_SLICE_NS, DRAIN_ALL);
	return 0;
}

/* One more interval at most: an exit under overload is not held up for
 * the whole spill either; what is left shows as stats.backlog_bytes. The
 * events go off first, as at the loop's end: samples taken
 * while the flush decodes would come after the last interval anyway, and
 * would show as a backlog that no slowness of ours left. */
void engine_loop_flush(struct engine *e)
{
	double secs = e->o.interval > 0.1 ? e->o.interval : 0.1;

	events_pause(e);
	e->stop = true;
	drain(e, (uint64_t)(secs * 1e9), DRAIN_ALL);
}

void engine_loop_stop(struct engine *e)
{
	e->stop = true;
}

void engine_loop_quit(struct engine *e)
{
	e->stop = e->quit = true;
}

int engine_loop_watch_fd(struct engine *e, int fd, void (*cb)(void *arg), void *arg)
{
	size_t i = 0;
	int rc;

	while (i < e->nwatch && e->watch[i].cb) /* a slot engine_unwatch_fd freed */
		i++;
	if (i == ENGINE_MAX_WATCH)
		return -ENOSPC;
	e->watch[i] = (struct engine_watch){ fd, cb, arg };
	e->watch_src[i] = (struct engine_src){ SRC_WATCH, i };
	if ((rc = engine_epoll_add(e, fd, &e->watch_src[i])) != 0) {
		e->watch[i] = (struct engine_watch){ -1, NULL, NULL };
		return rc;
	}
	if (i == e->nwatch)
		e->nwatch++;
	return 0;
}

void engine_loop_unwatch_fd(struct engine *e, int fd)
{
	for (size_t i = 0; i < e->nwatch; i++)
		if (e->watch[i].fd == fd && e->watch[i].cb) {
			epoll_ctl(e->epfd, EPOLL_CTL_DEL, fd, NULL);
			e->watch[i] = (struct engine_watch){ -1, NULL, NULL };
		}
}

int engine_loop_set_interval(struct engine *e, double seconds)
{
	int rc;

	if (!(seconds >= 0.001 && seconds <= 3600))
		return -EINVAL;
	if ((e->started || e->clock_started) && (rc = arm_timer(e, seconds)) != 0)
		return rc;
	e->o.interval = seconds; /* not started: engine_loop_start arms it */
	return 0;
}
