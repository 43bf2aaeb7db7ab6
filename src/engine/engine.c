/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine: opening and closing one run's events and rings, and what was
 * opened. The events, the spill and the loop have their own files. */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpumap.h"
#include "engine_int.h"
#include "perfsys.h"

size_t engine_default_pages(uint64_t freq, size_t nevents, size_t page_size)
{
	/* ENGINE_RING_SECS of samples at the full rate, woken with
	 * ENGINE_WAKE_SLACK_MS of room left (engine_wake_bytes). The kernel
	 * counts a watermark in bytes written since its last wakeup, read or
	 * not, so the reader wakes every 7.5 s or so of samples (a context
	 * switch is dear in a VM), and the ticks between read the ring in
	 * place. The ring's pages are the kernel's, locked, not in RSS; a
	 * ring that cannot hold more than two ticks of samples has the guard
	 * move them into the spill before the tick (RSS: 4 MiB rings at
	 * 20 kHz beside perf top kept 4.5 MiB of spill resident). */
	uint64_t bytes = freq * (nevents ? nevents : 1) * 56 * ENGINE_RING_SECS;
	size_t pages = 16;

	while ((uint64_t)pages * page_size < bytes && pages < ENGINE_RING_MAX_PAGES)
		pages <<= 1;
	return pages;
}

size_t engine_cg_pages(size_t pages, uint64_t rate_bytes, size_t ncpus, size_t page_size)
{
	/* -g read in place wakes the main loop at every quarter ring: a wakeup
	 * is a context switch that costs the woken thread ~0.35 ms in a VM,
	 * about 3 a second with 4 MiB rings at 4 kHz. A quarter that holds
	 * ENGINE_CG_QUARTER_MS at the full rate (longer than the default
	 * tick), while all rings together stay within ENGINE_CG_LOCKED_MAX of
	 * the kernel's locked memory. */
	uint64_t want = rate_bytes * ENGINE_CG_QUARTER_MS / 1000 * 4;

	while ((uint64_t)pages * page_size < want && pages < ENGINE_CG_MAX_PAGES &&
	       (uint64_t)pages * 2 * page_size * (ncpus ? ncpus : 1) <= ENGINE_CG_LOCKED_MAX)
		pages <<= 1;
	return pages;
}

bool engine_flat_main(uint64_t rate_bytes, size_t ring, double interval)
{
	return (double)rate_bytes * interval > (double)(ring / 2);
}

size_t engine_wake_bytes(size_t ring, bool callgraph, uint64_t rate_bytes, bool in_place)
{
	size_t w = ENGINE_CG_WAKE_MIN;
	uint64_t slack = rate_bytes * ENGINE_WAKE_SLACK_MS / 1000;

	if (!callgraph)
		return slack < ring / 2 ? ring - slack : ring / 2;
	/* -g read in place: nothing waits in the spill between passes, so the
	 * reader need not wake six times a second for its RSS (each wakeup,
	 * the reader's and the main loop's, cost ~20 % of the 4 kHz view).
	 * A quarter of the ring: at a wakeup it holds that and a little more,
	 * well within the half a pass wants free to read it in place
	 * (engine_spill_claim). */
	while (w < ENGINE_CG_WAKE_MAX && (uint64_t)w * 2 * ENGINE_CG_WAKES <= rate_bytes)
		w *= 2;
	if (in_place && w < ring / 4)
		w = ring / 4;
	return w < ring / 2 ? w : ring / 2;
}

uint64_t engine_direct_ns(size_t ring, uint64_t rate_bytes)
{
	uint64_t ns;

	if (rate_bytes == 0)
		return 0;
	ns = (uint64_t)((double)(ring / 2) / (double)rate_bytes * 1e9 / 2);
	return ns >= ENGINE_DIRECT_MIN_NS ? ns : 0;
}

/* Whether every sampling event's rate is bounded by -F: one sampled by
 * period (a tracepoint's every hit by default, -c) may write any amount. */
static bool rates_known(const struct engine *e)
{
	struct perf_event_attr a;

	for (size_t ev = 0; ev < e->o.nevents; ev++) {
		engine_attr_build(&a, &e->events[ev], &e->o, false);
		if (!a.freq && a.sample_period)
			return false;
	}
	return true;
}

/* A sample's size with its call graph (a chain of ~24 entries, the user
 * registers, the stack copy): a dwarf sample is ~150 plain ones, and a ring
 * sized for plain ones would hold a few milliseconds of them. */
static uint64_t sample_bytes(const struct engine_opts *o, const struct record_layout *l)
{
	uint64_t b = 56;

	if (o->cg.mode == CALLGRAPH_NONE)
		return b;
	b += 8 * 24;
	if (l->regs_user_mask)
		b += 8 + 8 * (uint64_t)__builtin_popcountll(l->regs_user_mask) + 16 +
		     (o->cg.mode == CALLGRAPH_DWARF ? o->cg.stack_size : CALLGRAPH_LEAF_STACK);
	return b;
}

static int collect_targets(struct engine *e, char *err, size_t errlen)
{
	size_t i;
	int rc;

	if (e->o.cpus) {
		e->cpus = reallocarray(NULL, e->o.ncpus, sizeof(*e->cpus));
		if (e->cpus == NULL)
			return -ENOMEM;
		memcpy(e->cpus, e->o.cpus, e->o.ncpus * sizeof(*e->cpus));
		e->ncpus = e->o.ncpus;
	} else if ((rc = cpumap_online("/sys", &e->cpus, &e->ncpus)) != 0) {
		snprintf(err, errlen, "cannot read the online CPUs from /sys: %s", strerror(-rc));
		return rc;
	}
	if (e->o.cgroup) {
		e->cgroup_fd = perfsys_cgroup_open(e->o.cgroup, err, errlen);
		if (e->cgroup_fd < 0)
			return e->cgroup_fd;
	}
	if (e->o.pids == NULL) {
		e->tids = malloc(sizeof(*e->tids));
		if (e->tids == NULL)
			return -ENOMEM;
		e->tids[0] = -1;
		e->ntids = 1;
		return 0;
	}
	for (i = 0; i < e->o.npids; i++) {
		pid_t *t = NULL, *grown;
		size_t nt = 0;

		if (e->o.pids_are_tids) {
			char proc[32];

			/* /proc/TID is there for every thread, listed or not. */
			snprintf(proc, sizeof(proc), "/proc/%d", (int)e->o.pids[i]);
			if (access(proc, F_OK) != 0) {
				snprintf(err, errlen, "no such thread: %d (-t takes thread IDs: see ps -eLo pid,tid,comm)",
					 (int)e->o.pids[i]);
				return -ESRCH;
			}
			t = malloc(sizeof(*t));
			if (t == NULL)
				return -ENOMEM;
			t[0] = e->o.pids[i];
			nt = 1;
		} else if ((rc = cpumap_threads(e->o.pids[i], &t, &nt)) != 0) {
			snprintf(err, errlen, "no such process: %d (check the PID with ps)", (int)e->o.pids[i]);
			return rc;
		}
		grown = reallocarray(e->tids, e->ntids + nt, sizeof(*e->tids));
		if (grown == NULL) {
			free(t);
			return -ENOMEM;
		}
		e->tids = grown;
		memcpy(e->tids + e->ntids, t, nt * sizeof(*t));
		e->ntids += nt;
		free(t);
	}
	return 0;
}

int engine_open(struct engine **out, const struct engine_opts *o, char *err, size_t errlen)
{
	struct engine *e;
	size_t nfds, nids, ev;
	uint64_t rate_bytes;
	long page = sysconf(_SC_PAGESIZE);
	int rc = -ENOMEM;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		goto nomem;
	e->o = *o;
	e->epfd = e->tfd = e->sfd = e->cgroup_fd = -1;
	e->rd_epfd = e->rd_quit = e->rd_notify = e->rd_kick = e->rd_guard = -1;
	for (size_t i = 0; i < ENGINE_IDC; i++)
		e->idc[i] = (struct engine_idslot){ UINT64_MAX, -2 }; /* no id: not found */
	e->clock_mono = true;
	e->events = calloc(o->nevents, sizeof(*e->events));
	e->enabled = calloc(o->nevents, sizeof(*e->enabled));
	e->prev_enabled = calloc(o->nevents, sizeof(*e->prev_enabled));
	e->prev_running = calloc(o->nevents, sizeof(*e->prev_running));
	e->on_now = calloc(o->nevents, sizeof(*e->on_now));
	e->on_since = calloc(o->nevents, sizeof(*e->on_since));
	if (e->events == NULL || e->enabled == NULL || e->prev_enabled == NULL || e->prev_running == NULL ||
	    e->on_now == NULL || e->on_since == NULL)
		goto nomem;
	memcpy(e->events, o->events, o->nevents * sizeof(*e->events));
	for (ev = 0; ev < o->nevents; ev++)
		e->enabled[ev] = o->enabled ? o->enabled[ev] : true;
	e->o.events = e->events;
	e->o.enabled = NULL; /* the caller's array: copied into e->enabled */

	engine_attr_layout(&e->layout, &o->cg, o->period);
	if (o->cg.mode == CALLGRAPH_DWARF && e->layout.regs_user_mask == 0) {
		rc = -EOPNOTSUPP;
		snprintf(err, errlen, "--call-graph dwarf: no DWARF unwinding for this architecture here: "
			 "use -g (frame pointers)");
		goto fail;
	}
	if ((rc = collect_targets(e, err, errlen)) != 0)
		goto fail;
	rate_bytes = (o->period ? 4000 : o->freq) * sample_bytes(o, &e->layout);
	/* --off-cpu's switch records come on top, at a rate no option gives:
	 * rings and watermarks sized for a busy machine's (engine.h). */
	if (o->offcpu)
		rate_bytes += ENGINE_OFFCPU_BYTES / (o->nevents ? o->nevents : 1);
	e->pages = o->mmap_pages ? o->mmap_pages : engine_default_pages(rate_bytes / 56, o->nevents, (size_t)page);
	/* dwarf's copies are cut on the way to the spill, and its pace is set
	 * by the unwinding: it keeps half the ring. */
	e->wake_main = o->cg.mode != CALLGRAPH_NONE && o->cg.mode != CALLGRAPH_DWARF;
	if (o->cg.mode == CALLGRAPH_NONE && !o->mmap_pages && rates_known(e))
		e->wake_main = engine_flat_main(rate_bytes * (o->nevents ? o->nevents : 1), e->pages * (size_t)page,
						o->interval);
	if (!o->mmap_pages && e->wake_main && rates_known(e))
		e->pages = engine_cg_pages(e->pages, rate_bytes * (o->nevents ? o->nevents : 1), e->ncpus,
					   (size_t)page);
	/* Without privilege each CPU's ring may lock perf_event_mlock_kb (the
	 * rest would come out of RLIMIT_MEMLOCK, often small): a default that
	 * failed would make a plain start fail. */
	if (!o->mmap_pages && geteuid() != 0) {
		size_t cap = perfsys_mlock_pages((size_t)page);

		if (cap && e->pages > cap)
			e->pages = cap;
	}
	e->ring_rate = rate_bytes * (o->nevents ? o->nevents : 1);
	e->direct_ns = rates_known(e) ? engine_direct_ns(e->pages * (size_t)page, e->ring_rate) : 0;
	e->wake = engine_wake_bytes(e->pages * (size_t)page, e->wake_main, e->ring_rate, e->direct_ns != 0);
	/* -g read in place (and flat rings a tick cannot read in place,
	 * engine_flat_main): the main loop comes at every watermark anyway,
	 * so the rings wake it, and the reader only when it is late. Other
	 * flat rings keep the reader's watermark: it counts the bytes of
	 * process churn too, which no guard set from the sample rate does. */
	e->main_rings = e->direct_ns != 0 && e->wake_main;
	e->flat_guard = e->direct_ns != 0 && !e->wake_main && o->cg.mode != CALLGRAPH_DWARF;

	nfds = o->nevents * e->ncpus * e->ntids;
	e->fds = malloc((nfds ? nfds : 1) * sizeof(*e->fds));
	e->track = malloc(e->ncpus * e->ntids * sizeof(*e->track));
	e->rings = calloc(e->ncpus, sizeof(*e->rings));
	for (nids = 16; nids < 2 * (nfds + e->ncpus * e->ntids); nids <<= 1)
		;
	if (e->fds == NULL || e->track == NULL || e->rings == NULL || htab_init(&e->ids, nids))
		goto nomem;
	memset(e->fds, -1, (nfds ? nfds : 1) * sizeof(*e->fds));
	memset(e->track, -1, e->ncpus * e->ntids * sizeof(*e->track));

	perfsys_fd_budget(e->ncpus * e->ntids * (o->nevents + 1) + 64);
	if ((rc = engine_events_open_tracking(e, err, errlen)) != 0)
		goto fail;
	for (ev = 0; ev < o->nevents; ev++) {
		enum callgraph_mode mode = e->o.cg.mode;

		if ((rc = engine_events_open(e, ev, err, errlen)) != 0)
			goto fail;
		/* One layout for every event of the ring: an LBR fallback on
		 * this one re-opens those opened before it the same way. */
		for (size_t j = 0; j < ev && mode != e->o.cg.mode; j++) {
			engine_events_close(e, j);
			if ((rc = engine_events_open(e, j, err, errlen)) != 0)
				goto fail;
		}
	}
	if (o->offcpu) {
		char why[ENGINE_NOTICE_MAX / 2];

		/* Without it the rest runs on; the notice says what is missing. */
		if (engine_offcpu_set(e, true, why, sizeof(why)) != 0)
			engine_events_notice(e, "%s", why);
	}
	if ((rc = engine_loop_setup(e, err, errlen)) != 0 || (rc = engine_spill_start_reader(e, err, errlen)) != 0)
		goto fail;
	*out = e;
	return 0;
nomem:
	rc = -ENOMEM;
	snprintf(err, errlen, "out of memory while opening events");
fail:
	engine_close(e);
	return rc;
}

void engine_close(struct engine *e)
{
	size_t i;

	if (e == NULL)
		return;
	/* The reader first: it is joined before its rings go. */
	engine_spill_free(e);
	if (e->fds)
		for (i = 0; i < e->o.nevents; i++)
			engine_events_close(e, i);
	engine_offcpu_free(e);
	if (e->rings)
		for (i = 0; i < e->ncpus; i++)
			ring_unmap(&e->rings[i]);
	if (e->track)
		for (i = 0; i < e->ncpus * e->ntids; i++)
			if (e->track[i] >= 0)
				close(e->track[i]);
	if (e->cgroup_fd >= 0)
		close(e->cgroup_fd);
	engine_loop_free(e);
	htab_free(&e->ids);
	free(e->rings);
	free(e->track);
	free(e->fds);
	free(e->tids);
	free(e->cpus);
	free(e->enabled);
	free(e->prev_enabled);
	free(e->prev_running);
	free(e->on_now);
	free(e->on_since);
	free(e->events);
	free(e);
}

const struct evspec *engine_event(const struct engine *e, size_t ev)
{
	return ev < e->o.nevents ? &e->events[ev] : NULL;
}

void engine_event_attr(const struct engine *e, int ev, struct perf_event_attr *attr)
{
	bool inherit = e->o.pids && !e->o.pids_are_tids;

	if (ev < 0 || (size_t)ev >= e->o.nevents)
		engine_attr_tracking(attr, inherit);
	else
		engine_attr_build(attr, &e->events[ev], &e->o, inherit);
	attr->wakeup_watermark = (uint32_t)e->wake;
	if (!e->clock_mono)
		attr->use_clockid = 0, attr->clockid = 0;
	if (ev >= 0 && (size_t)ev < e->o.nevents)
		attr->disabled = !e->enabled[ev];
}

size_t engine_event_ids(const struct engine *e, int ev, uint64_t *ids, size_t max)
{
	size_t n = 0;

	if (e->ids.tab == NULL)
		return 0;
	for (size_t i = 0; i <= e->ids.mask; i++)
		if (e->ids.tab[i].val && (int)e->ids.tab[i].val - 2 == ev) {
			if (n < max)
				ids[n] = e->ids.tab[i].key;
			n++;
		}
	return n;
}

size_t engine_nevents(const struct engine *e) { return e->o.nevents; }
const char *engine_notice(const struct engine *e) { return e->notice[0] ? e->notice : NULL; }
size_t engine_ncpus(const struct engine *e) { return e->ncpus; }
int engine_cpu(const struct engine *e, size_t i) { return i < e->ncpus ? e->cpus[i] : -1; }

void engine_get_stats(const struct engine *e, struct engine_stats *st)
{
	*st = e->st;
	st->wakeups = __atomic_load_n(&e->rd_wakeups, __ATOMIC_RELAXED);
	st->stack_cut = __atomic_load_n(&e->rd_cut, __ATOMIC_RELAXED);
	st->spilled = __atomic_load_n(&e->rd_spilled, __ATOMIC_RELAXED);
	st->ring_bytes = (uint64_t)e->pages * (uint64_t)sysconf(_SC_PAGESIZE);
	st->watermark_bytes = e->wake;
	st->backlog = 0;
	/* No lock: the reader may hold one through a copy. */
	for (size_t c = 0; c < e->ncpus; c++) {
		st->malformed += __atomic_load_n(&e->rings[c].malformed, __ATOMIC_RELAXED) +
				 __atomic_load_n(&e->spill[c].malformed, __ATOMIC_RELAXED);
		st->backlog += ring_pending(&e->spill[c]);
	}
}

/* The API the session calls: the loop, the events and the spill below
 * keep their own prefixes and never call up here. */
int engine_start(struct engine *e) { return engine_loop_start(e); }
int engine_start_clock(struct engine *e) { return engine_loop_start_clock(e); }
int engine_run(struct engine *e, const struct engine_handlers *h) { return engine_loop_run(e, h); }
void engine_stop(struct engine *e) { engine_loop_stop(e); }
void engine_quit(struct engine *e) { engine_loop_quit(e); }
void engine_flush(struct engine *e) { engine_loop_flush(e); }
int engine_set_interval(struct engine *e, double seconds) { return engine_loop_set_interval(e, seconds); }
int engine_tick_in(struct engine *e, double secs) { return engine_loop_tick_in(e, secs); }

int engine_watch_fd(struct engine *e, int fd, void (*cb)(void *arg), void *arg)
{
	return engine_loop_watch_fd(e, fd, cb, arg);
}

void engine_unwatch_fd(struct engine *e, int fd) { engine_loop_unwatch_fd(e, fd); }

int engine_enable_event(struct engine *e, size_t ev, bool on) { return engine_events_enable(e, ev, on); }
bool engine_event_enabled(const struct engine *e, size_t ev) { return ev < e->o.nevents && e->enabled[ev]; }
int engine_running_pct(struct engine *e, size_t ev) { return engine_events_running_pct(e, ev); }

int engine_set_exclude(struct engine *e, size_t ev, unsigned excl, char *err, size_t errlen)
{
	return engine_events_set_exclude(e, ev, excl, err, errlen);
}

void engine_stack_used(struct engine *e, pid_t pid, uint32_t bytes) { engine_spill_stack_used(e, pid, bytes); }
uint64_t engine_stack_keep(const struct engine *e, pid_t pid) { return engine_spill_stack_keep(e, pid); }
void engine_hand_back(struct engine *e) { engine_spill_hand_back(e); }
