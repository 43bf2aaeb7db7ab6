/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine offcpu: --off-cpu's event, sched:sched_switch at every switch with
 * its raw fields (PERF_SAMPLE_RAW) and the stack of the task leaving the
 * CPU, opened on the targets the sampling events have and written into the
 * same per-CPU rings, so its records are spilled and merged by time like
 * samples. It has a layout of its own (its ids, kept in record_layout.alt_ids,
 * tell the decoder). On, off and on again live: every open appends its ids,
 * so records still queued from a closed one decode right. sched:sched_waking
 * is opened beside it, best effort, with the same layout (the waker's
 * stack): the session tells the two apart by the raw record's common_type. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "perfsys.h"
#include "util.h"

/* Re-opens at most (each CPU x thread fd one id): past that, O says so. */
#define OFFCPU_OPENS_MAX 64

void engine_offcpu_attr(struct perf_event_attr *attr, uint64_t config, const struct engine_opts *o,
			bool inherit, struct record_layout *lay)
{
	struct callgraph_opts cg = o->cg;

	/* The run's call graphs; frame pointers when it has none. A
	 * tracepoint has no branch stack: LBR runs take frame pointers too. */
	if (cg.mode == CALLGRAPH_NONE || cg.mode == CALLGRAPH_LBR)
		cg.mode = CALLGRAPH_FP;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = config;
	attr->sample_type = RECORD_SAMPLE_TYPE | PERF_SAMPLE_RAW;
	attr->sample_period = 1;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->inherit = inherit;
	attr->watermark = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	/* A task's switch-in is another task's sched_switch, which a
	 * per-task event never sees: PERF_RECORD_SWITCH tells it. */
	attr->context_switch = o->pids != NULL || o->cgroup != NULL;
	engine_attr_callgraph(attr, &cg);
	/* The leaf fix reads a syscall wrapper's frame, which is small: a
	 * switch record's stack copy is most of its bytes. */
	if (cg.mode == CALLGRAPH_FP && attr->sample_stack_user > ENGINE_OFFCPU_LEAF_STACK)
		attr->sample_stack_user = ENGINE_OFFCPU_LEAF_STACK;
	engine_attr_layout(lay, &cg, 0);
	lay->extra |= PERF_SAMPLE_RAW;
}

static void close_wfds(struct engine *e)
{
	for (size_t i = 0; e->wfds && i < e->ncpus * e->ntids; i++) {
		if (e->wfds[i] >= 0)
			close(e->wfds[i]);
		e->wfds[i] = -1;
	}
}

static void close_fds(struct engine *e)
{
	close_wfds(e);
	for (size_t i = 0; e->ofds && i < e->ncpus * e->ntids; i++) {
		if (e->ofds[i] >= 0)
			close(e->ofds[i]);
		e->ofds[i] = -1;
	}
}

static int add_id(struct engine *e, int fd)
{
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	if (e->alt_n >= e->alt_cap)
		return -ENOSPC;
	if (htab_put(&e->ids, id, (uintptr_t)(ENGINE_EV_OFFCPU + 2)))
		return -ENOMEM;
	/* Ascending (the kernel counts ids up); appended then published. */
	e->alt_ids[e->alt_n] = id;
	__atomic_store_n(&e->alt_n, e->alt_n + 1, __ATOMIC_RELEASE);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

size_t engine_offcpu_waking_filter(const pid_t *tids, size_t n, char *buf, size_t len)
{
	pid_t *t = n ? malloc(n * sizeof(*t)) : NULL;
	size_t m = 0, at = 0;

	if (len)
		buf[0] = '\0';
	if (t == NULL || len == 0) {
		free(t);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (tids[i] > 0)
			t[m++] = tids[i];
	if (m > 1)
		qsort(t, m, sizeof(*t), cmp_pid);
	for (size_t i = 0, j; i < m; i = j + 1) {
		int w;

		for (j = i; j + 1 < m && t[j + 1] <= t[j] + 1; j++)
			; /* a run of consecutive tids (or the same twice): one range */
		w = t[j] == t[i] ? snprintf(buf + at, len - at, "%spid == %d", at ? " || " : "", (int)t[i])
		    : snprintf(buf + at, len - at, "%s(pid >= %d && pid <= %d)", at ? " || " : "", (int)t[i], (int)t[j]);
		if (w < 0 || (size_t)w >= len - at) {
			at = 0;
			break;
		}
		at += (size_t)w;
	}
	free(t);
	buf[at] = '\0';
	return at;
}

/* The fd of CPU c's ring (its first tracking event's). */
static int ring_fd(struct engine *e, size_t c)
{
	for (size_t t = 0; t < e->ntids; t++)
		if (*engine_track_at(e, c, t) >= 0)
			return *engine_track_at(e, c, t);
	return -1;
}

/* -p/-t: sched_waking on CPU c for every task, filtered on the woken's
 * pid. The tracepoint fires in the waker's context: a per-task event on
 * the target never sees a waker outside it (another process's thread, a
 * timer interrupt in another task, a kworker). -EIO: opened but not
 * redirected (the caller gives up wakers); else why not, in the note. */
static int open_waking_cpu(struct engine *e, struct perf_event_attr *attr, size_t c)
{
	char filter[4096]; /* the kernel takes a page at most */
	int fd;

	if (e->wtids == NULL) { /* -p's threads at open; FORKs add to them */
		if ((e->wtids = malloc(e->ntids * sizeof(*e->wtids))) == NULL)
			return -ENOMEM;
		memcpy(e->wtids, e->tids, e->ntids * sizeof(*e->wtids));
		e->nwtids = e->wtids_cap = e->ntids;
	}
	if (engine_offcpu_waking_filter(e->wtids, e->nwtids, filter, sizeof(filter)) == 0) {
		snprintf(e->waking_note, sizeof(e->waking_note), "W: %zu threads are too many to filter "
			 "sched:sched_waking on: wakers outside the target are missed", e->ntids);
		return -E2BIG;
	}
	attr->inherit = 0;
	fd = perfsys_open(attr, -1, e->cpus[c], -1, 0);
	if (fd < 0) {
		snprintf(e->waking_note, sizeof(e->waking_note), "W: sched:sched_waking on every CPU not permitted "
			 "(%s): wakers outside the target are missed; run as root", strerror(-fd));
		return fd;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
		int rc = -errno;

		close(fd);
		snprintf(e->waking_note, sizeof(e->waking_note), "W: sched:sched_waking's pid filter refused (%s): "
			 "wakers outside the target are missed", strerror(-rc));
		return rc;
	}
	e->wfds[c * e->ntids] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd(e, c)) < 0 || add_id(e, fd) != 0)
		return -EIO;
	return 0;
}

/* sched_waking on CPU c, task t, into the same ring as its switch event
 * (under -p/-t one per CPU, at its first task); a failure closes every
 * waking fd for the run (the wakers go unknown, the rest runs). */
static void open_waking(struct engine *e, const struct perf_event_attr *sw, size_t c, size_t t)
{
	struct perf_event_attr attr = *sw;
	int fd;

	if (e->wfds == NULL || e->waking_config == 0)
		return;
	attr.config = e->waking_config;
	attr.context_switch = 0;
	if (e->o.pids && e->cgroup_fd < 0 && !e->waking_per_task) {
		int rc;

		if (e->wfds[c * e->ntids] >= 0)
			return; /* this CPU's, opened at an earlier task */
		if ((rc = open_waking_cpu(e, &attr, c)) == 0)
			return;
		if (rc == -EIO || c > 0) { /* a CPU that differs: none rather than a mix */
			close_wfds(e);
			e->waking_config = 0;
			return;
		}
		e->waking_per_task = true; /* per task from here, the note says what is missed */
		attr.inherit = sw->inherit;
	}
	fd = e->cgroup_fd >= 0 ? perfsys_open(&attr, e->cgroup_fd, e->cpus[c], -1, PERF_FLAG_PID_CGROUP)
	     : perfsys_open(&attr, e->tids[t], e->cpus[c], -1, 0);
	if (fd >= 0)
		e->wfds[c * e->ntids + t] = fd;
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *engine_track_at(e, c, 0)) < 0 || add_id(e, fd) != 0) {
		close_wfds(e);
		e->waking_config = 0; /* not again this run */
	}
}

static int open_all(struct engine *e, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	bool inherit = e->o.pids && !e->o.pids_are_tids;
	char what[96];
	int rc;

	engine_offcpu_attr(&attr, e->offcpu_config, &e->o, inherit, &e->offcpu_layout);
	attr.wakeup_watermark = (uint32_t)e->wake;
	if (!e->clock_mono)
		attr.use_clockid = 0, attr.clockid = 0;
	for (size_t c = 0; c < e->ncpus; c++)
		for (size_t t = 0; t < e->ntids; t++) {
			int fd = e->cgroup_fd >= 0 ? perfsys_open(&attr, e->cgroup_fd, e->cpus[c], -1, PERF_FLAG_PID_CGROUP)
				 : perfsys_open(&attr, e->tids[t], e->cpus[c], -1, 0);

			if (fd == -ESRCH && e->tids[t] >= 0 && e->ntids > 1)
				continue;
			if (fd < 0) {
				struct perfsys_what w = { what, e->cpus[c], e->cgroup_fd >= 0 ? -1 : e->tids[t],
							  engine_events_fds_needed(e), PERFSYS_PARANOID_UNKNOWN };

				snprintf(what, sizeof(what), "--off-cpu (sched:sched_switch, CPU %d)", e->cpus[c]);
				perfsys_strerror(err, errlen, -fd, &w);
				close_fds(e);
				return fd;
			}
			e->ofds[c * e->ntids + t] = fd;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *engine_track_at(e, c, 0)) < 0) {
				rc = -errno;
				snprintf(err, errlen, "--off-cpu (CPU %d): cannot redirect into the CPU's ring: %s",
					 e->cpus[c], strerror(-rc));
				close_fds(e);
				return rc;
			}
			if ((rc = add_id(e, fd)) != 0) {
				snprintf(err, errlen, "--off-cpu: %s", rc == -ENOSPC ? "turned on too many times in one run: "
					 "restart perftop" : strerror(-rc));
				close_fds(e);
				return rc;
			}
			if (e->wakers_on)
				open_waking(e, &attr, c, t);
		}
	return 0;
}

static void set_state(struct engine *e, bool on)
{
	e->waking_live = on;
	for (size_t i = 0; e->ofds && i < e->ncpus * e->ntids; i++)
		if (e->ofds[i] >= 0)
			(void)ioctl(e->ofds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	for (size_t i = 0; e->wfds && i < e->ncpus * e->ntids; i++)
		if (e->wfds[i] >= 0)
			(void)ioctl(e->wfds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* The waking fds' array and tracepoint id; without them no wakers. Its
 * ids share alt_ids: O turned on fewer times fits. */
static int waking_init(struct engine *e)
{
	size_t n = e->ncpus * e->ntids;
	struct evspec ev;
	char why[256];

	if (e->wfds)
		return e->waking_config ? 0 : -ENOENT;
	if (evspec_parse("sched:sched_waking", &ev, why, sizeof(why)) != 0)
		return -ENOENT;
	if ((e->wfds = malloc(n * sizeof(*e->wfds))) == NULL)
		return -ENOMEM;
	memset(e->wfds, -1, n * sizeof(*e->wfds));
	e->waking_config = ev.attr.config;
	return 0;
}

int engine_offcpu_wakers(struct engine *e)
{
	struct perf_event_attr attr;
	struct record_layout scratch; /* the decoder reads offcpu_layout meanwhile */
	bool inherit = e->o.pids && !e->o.pids_are_tids;
	int rc;

	if (e->wakers_on)
		return 0;
	if (!e->offcpu_on || e->ofds == NULL)
		return -EINVAL;
	if ((rc = waking_init(e)) != 0)
		return rc;
	engine_offcpu_attr(&attr, e->offcpu_config, &e->o, inherit, &scratch);
	attr.wakeup_watermark = (uint32_t)e->wake;
	if (!e->clock_mono)
		attr.use_clockid = 0, attr.clockid = 0;
	for (size_t c = 0; c < e->ncpus; c++)
		for (size_t t = 0; t < e->ntids; t++)
			if (e->ofds[c * e->ntids + t] >= 0)
				open_waking(e, &attr, c, t);
	if (e->waking_config == 0)
		return -EIO;
	for (size_t i = 0; e->started && i < e->ncpus * e->ntids; i++)
		if (e->wfds[i] >= 0)
			(void)ioctl(e->wfds[i], PERF_EVENT_IOC_ENABLE, 0);
	e->waking_live = e->started;
	e->wakers_on = true;
	return 0;
}

/* Whether sched_waking is open per CPU with a filter on -p's threads
 * (-t's are fixed: no thread of theirs is a target). */
static bool waking_filtered(const struct engine *e)
{
	return e->o.pids && !e->o.pids_are_tids && e->cgroup_fd < 0 && !e->waking_per_task &&
	       e->waking_config && e->wfds && e->wtids;
}

void engine_offcpu_waking_thread(struct engine *e, pid_t tid, bool alive)
{
	size_t i = 0;

	if (!waking_filtered(e) || tid <= 0)
		return;
	while (i < e->nwtids && e->wtids[i] != tid)
		i++;
	if (!alive && i < e->nwtids) {
		e->wtids[i] = e->wtids[--e->nwtids]; /* no re-open for that alone */
	} else if (alive && i == e->nwtids) {
		if (!util_grow((void **)&e->wtids, &e->wtids_cap, e->nwtids + 1, sizeof(*e->wtids)))
			return;
		e->wtids[e->nwtids++] = tid;
		e->wtids_dirty = true;
	}
}

int engine_offcpu_waking_refresh(struct engine *e)
{
	struct perf_event_attr attr;
	struct record_layout scratch;
	char note[sizeof(e->waking_note)];
	int rc = 0;

	if (!e->wtids_dirty || !waking_filtered(e) || !e->offcpu_on)
		return 0;
	e->wtids_dirty = false;
	/* Each re-open takes ids from O's room (alt_ids cannot grow under the
	 * decoder): a target that keeps making threads stops it half way. */
	if (e->alt_n + e->ncpus > e->alt_cap / 2)
		return -ENOSPC;
	engine_offcpu_attr(&attr, e->offcpu_config, &e->o, false, &scratch);
	attr.config = e->waking_config;
	attr.context_switch = 0;
	attr.wakeup_watermark = (uint32_t)e->wake;
	if (!e->clock_mono)
		attr.use_clockid = 0, attr.clockid = 0;
	memcpy(note, e->waking_note, sizeof(note));
	for (size_t c = 0; c < e->ncpus && rc == 0; c++) {
		int old = e->wfds[c * e->ntids];

		if (old < 0)
			continue;
		e->wfds[c * e->ntids] = -1;
		/* The new one in the ring before the old one goes: records of
		 * both decode (every id stays known). */
		if ((rc = open_waking_cpu(e, &attr, c)) != 0) {
			if (e->wfds[c * e->ntids] >= 0)
				close(e->wfds[c * e->ntids]);
			e->wfds[c * e->ntids] = old; /* the old filter stays */
			break;
		}
		if (e->waking_live)
			(void)ioctl(e->wfds[c * e->ntids], PERF_EVENT_IOC_ENABLE, 0);
		close(old);
	}
	memcpy(e->waking_note, note, sizeof(note)); /* a refresh that failed is not the open's note */
	return rc;
}

int engine_offcpu_set(struct engine *e, bool on, char *err, size_t errlen)
{
	struct evspec ev;
	int rc;

	if (on == e->offcpu_on)
		return 0;
	if (!on) {
		set_state(e, false);
		close_fds(e);
		e->offcpu_on = false;
		return 0;
	}
	if (e->ofds == NULL) {
		size_t n = e->ncpus * e->ntids;

		/* The tracepoint's id, with evspec's one line when tracefs is
		 * missing or unreadable. */
		char why[256];

		if (evspec_parse("sched:sched_switch", &ev, why, sizeof(why))) {
			snprintf(err, errlen, "--off-cpu: %s", why);
			return -ENOENT;
		}
		e->offcpu_config = ev.attr.config;
		e->ofds = malloc(n * sizeof(*e->ofds));
		e->alt_ids = malloc(n * OFFCPU_OPENS_MAX * sizeof(*e->alt_ids));
		if (e->ofds == NULL || e->alt_ids == NULL) {
			snprintf(err, errlen, "--off-cpu: out of memory");
			return -ENOMEM;
		}
		memset(e->ofds, -1, n * sizeof(*e->ofds));
		e->alt_cap = n * OFFCPU_OPENS_MAX;
	}
	if (e->o.wakers && !e->wakers_on)
		e->wakers_on = waking_init(e) == 0;
	if ((rc = open_all(e, err, errlen)) != 0)
		return rc;
	/* The decoder learns the layout before the first record can come. */
	e->layout.alt = &e->offcpu_layout;
	e->layout.alt_ids = e->alt_ids;
	e->layout.alt_n = &e->alt_n;
	e->offcpu_on = true;
	if (e->started)
		set_state(e, true);
	return 0;
}

void engine_offcpu_state(struct engine *e, bool on)
{
	if (e->offcpu_on)
		set_state(e, on);
}

const char *engine_offcpu_wakers_note(const struct engine *e)
{
	return e->waking_per_task && e->waking_note[0] ? e->waking_note : NULL;
}

bool engine_offcpu_enabled(const struct engine *e)
{
	return e->offcpu_on;
}

void engine_offcpu_free(struct engine *e)
{
	close_fds(e);
	free(e->ofds);
	free(e->wfds);
	free(e->wtids);
	free(e->alt_ids);
	e->wfds = NULL;
	e->wtids = NULL;
	e->ofds = NULL;
	e->alt_ids = NULL;
}
