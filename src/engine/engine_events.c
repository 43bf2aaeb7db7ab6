/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine events: opening the tracking and sampling events (with the
 * fallbacks perf takes), the id -> event map, enable/disable, re-open with
 * new exclude bits, and the running times behind engine_events_running_pct. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "engine_int.h"
#include "perfsys.h"
#include "unwind.h"

void engine_events_notice(struct engine *e, const char *fmt, ...)
{
	size_t used = strlen(e->notice);
	va_list ap;

	if (used && used + 2 < sizeof(e->notice)) {
		memcpy(e->notice + used, "; ", 3);
		used += 2;
	}
	if (used + 1 >= sizeof(e->notice))
		return;
	va_start(ap, fmt);
	vsnprintf(e->notice + used, sizeof(e->notice) - used, fmt, ap);
	va_end(ap);
}

/* Re-opens (exclude changes) keep adding ids: old ones stay so that samples
 * still queued under them are counted, hence the table grows. */
static int idmap_add(struct engine *e, int fd, int ev)
{
	uint64_t id;
	uintptr_t old;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	/* An id is the kernel's for one fd: seen again, its event is the newer. */
	old = htab_get(&e->ids, id);
	if (old)
		htab_del(&e->ids, id, old);
	if (htab_put(&e->ids, id, (uintptr_t)(ev + 2)))
		return -ENOMEM;
	return 0;
}

int engine_events_find(struct engine *e, uint64_t id)
{
	struct engine_idslot *c = &e->idc[id & (ENGINE_IDC - 1)];
	uintptr_t v;

	if (c->id == id)
		return c->ev;
	if ((v = htab_get(&e->ids, id)) == 0)
		return -2;
	*c = (struct engine_idslot){ id, (int)v - 2 };
	return c->ev;
}

size_t engine_events_fds_needed(const struct engine *e)
{
	return e->ncpus * e->ntids * (e->o.nevents + 1) + 16;
}

static void open_error(struct engine *e, int errnum, const char *evname, int cpu, pid_t tid,
		       char *err, size_t errlen)
{
	char what[EVSPEC_NAME_MAX + 64];
	struct perfsys_what w = { what, cpu, tid, engine_events_fds_needed(e), PERFSYS_PARANOID_UNKNOWN };

	if (tid >= 0)
		snprintf(what, sizeof(what), "event %s (CPU %d, TID %d)", evname, cpu, (int)tid);
	else
		snprintf(what, sizeof(what), "event %s (CPU %d)", evname, cpu);
	if (e->cgroup_fd >= 0)
		w.tid = -1; /* a cgroup event is a CPU event to the kernel */
	perfsys_strerror(err, errlen, errnum, &w);
}

/* The tracking event is perftop's own: a failure to open it is told as
 * what the user asked for (the system-wide view, a cgroup, a process or
 * thread), with the fix perfsys gives for that kind of target. */
static void tracking_error(struct engine *e, int errnum, int cpu, pid_t tid, char *err, size_t errlen)
{
	char what[PATH_MAX + 64];
	struct perfsys_what w = { what, cpu, tid, engine_events_fds_needed(e), PERFSYS_PARANOID_UNKNOWN };
	bool listed = false;

	for (size_t i = 0; i < e->o.npids; i++)
		listed |= e->o.pids[i] == tid;
	if (e->cgroup_fd >= 0)
		snprintf(what, sizeof(what), "-G %s (the cgroup on CPU %d)", e->o.cgroup, cpu);
	else if (tid < 0)
		snprintf(what, sizeof(what), "the system-wide view (CPU %d)", cpu);
	else if (e->o.pids_are_tids)
		snprintf(what, sizeof(what), "-t %d (thread %d)", (int)tid, (int)tid);
	else if (listed)
		snprintf(what, sizeof(what), "-p %d (process %d)", (int)tid, (int)tid);
	else
		snprintf(what, sizeof(what), "-p (thread %d of the process)", (int)tid);
	perfsys_strerror(err, errlen, errnum, &w);
}

static bool is_cycles(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES;
}

static void close_all(struct engine *e, size_t ev)
{
	for (size_t c = 0; c < e->ncpus; c++)
		for (size_t t = 0; t < e->ntids; t++) {
			int *p = engine_fd_at(e, ev, c, t);

			if (*p >= 0)
				close(*p);
			*p = -1;
		}
}

void engine_events_close(struct engine *e, size_t ev)
{
	close_all(e, ev);
}

/* perf top's fallback for ordinary users: kernel samples refused, user
 * space only, said once. Not when the user chose the modifiers (cycles:k
 * means kernel), nor for a CPU-wide event: that needs CAP_PERFMON (or
 * paranoid <= 0) even for user space, so there is nothing to fall back to. */
static bool user_only_fallback(struct engine *e, struct evspec *spec, int errnum, pid_t tid)
{
	int paranoid;

	if ((errnum != EACCES && errnum != EPERM) || spec->has_modifiers || spec->attr.exclude_kernel ||
	    tid < 0 || e->cgroup_fd >= 0)
		return false;
	spec->attr.exclude_kernel = 1;
	spec->attr.exclude_hv = 1;
	paranoid = perfsys_paranoid();
	if (paranoid == PERFSYS_PARANOID_UNKNOWN)
		engine_events_notice(e, "kernel sampling not permitted: sampling user space only (%s:u); run as "
				  "root or lower kernel.perf_event_paranoid to 1 for kernel samples", spec->name);
	else
		engine_events_notice(e, "kernel sampling not permitted (kernel.perf_event_paranoid=%d): sampling "
				  "user space only (%s:u); run as root or lower it with sysctl "
				  "kernel.perf_event_paranoid=1 for kernel samples", paranoid, spec->name);
	return true;
}

/* Opens one sampling event everywhere. Lowers precise_ip and falls back from
 * cycles to cpu-clock the way perf does, recording what it changed. */
int engine_events_open(struct engine *e, size_t ev, char *err, size_t errlen)
{
	struct evspec *spec = &e->events[ev];
	struct perf_event_attr attr;
	bool inherit = e->o.pids && !e->o.pids_are_tids;
	pid_t cg = e->cgroup_fd;
	size_t c, t;

retry:
	engine_attr_build(&attr, spec, &e->o, inherit);
	attr.wakeup_watermark = (uint32_t)e->wake;
	if (!e->clock_mono)
		attr.use_clockid = 0, attr.clockid = 0;
	for (c = 0; c < e->ncpus; c++) {
		for (t = 0; t < e->ntids; t++) {
			int fd = cg >= 0 ? perfsys_open(&attr, cg, e->cpus[c], -1, PERF_FLAG_PID_CGROUP)
				 : perfsys_open(&attr, e->tids[t], e->cpus[c], -1, 0);
			int errnum = fd < 0 ? -fd : 0;

			if (fd < 0 && errnum == ESRCH && e->tids[t] >= 0 && e->ntids > 1)
				continue; /* a thread that exited while we opened */
			if (fd < 0) {
				close_all(e, ev);
				if (spec->attr.precise_ip && (errnum == EINVAL || errnum == EOPNOTSUPP)) {
					spec->attr.precise_ip--;
					goto retry;
				}
				if (is_cycles(&spec->attr) &&
				    (errnum == ENOENT || errnum == EOPNOTSUPP || errnum == ENODEV)) {
					const char *mod = strchr(spec->name, ':');

					engine_events_notice(e, "%s not supported here (%s: no hardware PMU): sampling cpu-clock instead",
							  spec->name, strerrorname_np(errnum));
					spec->attr.type = PERF_TYPE_SOFTWARE;
					spec->attr.config = PERF_COUNT_SW_CPU_CLOCK;
					spec->attr.precise_ip = 0;
					snprintf(spec->name, sizeof(spec->name), "cpu-clock%s", mod ? mod : "");
					goto retry;
				}
				if (user_only_fallback(e, spec, errnum, e->tids[t]))
					goto retry;
				/* No call-stack LBR on this PMU (or a software event):
				 * frame pointers, as perf falls back, and say so. */
				if (e->o.cg.mode == CALLGRAPH_LBR &&
				    (errnum == EOPNOTSUPP || errnum == ENOENT || errnum == EINVAL)) {
					engine_events_notice(e, "%s: no call-stack LBR here (%s): call graphs from frame pointers",
							  spec->name, strerrorname_np(errnum));
					e->o.cg.mode = CALLGRAPH_FP;
					engine_attr_layout(&e->layout, &e->o.cg, e->o.period);
					goto retry;
				}
				open_error(e, errnum, spec->name, e->cpus[c], e->tids[t], err, errlen);
				return -errnum;
			}
			*engine_fd_at(e, ev, c, t) = fd;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *engine_track_at(e, c, 0)) < 0 ||
			    idmap_add(e, fd, (int)ev) < 0) {
				int errnum2 = errno;

				snprintf(err, errlen, "event %s (CPU %d): cannot redirect into the CPU's ring: %s",
					 spec->name, e->cpus[c], strerror(errnum2));
				return -errnum2;
			}
		}
	}
	return 0;
}

int engine_events_open_tracking(struct engine *e, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t c, t;
	int rc;

	engine_attr_tracking(&attr, e->o.pids && !e->o.pids_are_tids);
	attr.wakeup_watermark = (uint32_t)e->wake;
	for (c = 0; c < e->ncpus; c++) {
		for (t = 0; t < e->ntids; t++) {
			int fd = perfsys_open(&attr, e->tids[t], e->cpus[c], -1, 0);

			if (fd == -EINVAL && attr.use_clockid && c == 0 && t == 0) {
				/* A kernel before use_clockid (4.1): the merge falls
				 * back to perf's round rule. */
				e->clock_mono = false;
				attr.use_clockid = 0;
				attr.clockid = 0;
				fd = perfsys_open(&attr, e->tids[t], e->cpus[c], -1, 0);
			}
			if (fd == -ESRCH && e->tids[t] >= 0 && t > 0)
				continue;
			if (fd < 0) {
				tracking_error(e, -fd, e->cpus[c], e->tids[t], err, errlen);
				return fd;
			}
			*engine_track_at(e, c, t) = fd;
			if (t == 0) {
				rc = ring_mmap(&e->rings[c], fd, e->pages);
				if (rc) {
					snprintf(err, errlen, "cannot map a %zu KiB ring for CPU %d: %s%s",
						 e->pages * page / 1024, e->cpus[c], strerror(-rc),
						 rc == -EPERM ? " (raise kernel.perf_event_mlock_kb or use -m with fewer pages)" : "");
					return rc;
				}
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *engine_track_at(e, c, 0)) < 0) {
				rc = -errno;
				snprintf(err, errlen, "CPU %d: cannot redirect tracking into the ring: %s",
					 e->cpus[c], strerror(-rc));
				return rc;
			}
			if ((rc = idmap_add(e, fd, -1)) != 0) {
				snprintf(err, errlen, "PERF_EVENT_IOC_ID failed: %s", strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

/* The ioctls alone; the wish (enabled[]) is the caller's business. */
int engine_events_set_state(struct engine *e, size_t ev, bool on)
{
	int rc = 0;

	for (size_t c = 0; c < e->ncpus; c++)
		for (size_t t = 0; t < e->ntids; t++) {
			int fd = *engine_fd_at(e, ev, c, t);

			if (fd >= 0 && ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
				rc = -errno;
		}
	e->on_now[ev] = on;
	e->on_since[ev] |= on;
	return rc;
}

int engine_events_enable(struct engine *e, size_t ev, bool on)
{
	if (ev >= e->o.nevents)
		return -EINVAL;
	e->enabled[ev] = on;
	return engine_events_set_state(e, ev, on);
}

int engine_events_set_exclude(struct engine *e, size_t ev, unsigned excl, char *err, size_t errlen)
{
	struct evspec old;
	int *saved;
	size_t n = e->ncpus * e->ntids, c, t;
	int rc;

	if (ev >= e->o.nevents)
		return -EINVAL;
	saved = malloc(n * sizeof(*saved));
	if (saved == NULL)
		return -ENOMEM;
	old = e->events[ev];
	for (c = 0; c < e->ncpus; c++)
		for (t = 0; t < e->ntids; t++) {
			saved[c * e->ntids + t] = *engine_fd_at(e, ev, c, t);
			*engine_fd_at(e, ev, c, t) = -1;
		}
	evspec_set_exclude(&e->events[ev].attr, excl);
	rc = engine_events_open(e, ev, err, errlen);
	if (rc) {
		close_all(e, ev);
		e->events[ev] = old;
		for (c = 0; c < e->ncpus; c++)
			for (t = 0; t < e->ntids; t++)
				*engine_fd_at(e, ev, c, t) = saved[c * e->ntids + t];
	} else {
		for (size_t i = 0; i < n; i++)
			if (saved[i] >= 0)
				close(saved[i]);
		/* Samples still queued from the old fds keep their old ids: the
		 * map keeps those entries, so they are counted, not dropped. */
		if (e->enabled[ev])
			engine_events_set_state(e, ev, true);
	}
	free(saved);
	return rc;
}

int engine_events_running_pct(struct engine *e, size_t ev)
{
	uint64_t en = 0, run = 0, d_en, d_run;

	if (ev >= e->o.nevents)
		return -1;
	if (engine_attr_never_multiplexed(e->events[ev].attr.type) && e->ntids == 1 && e->tids[0] < 0 &&
	    e->cgroup_fd < 0) {
		/* A software event or tracepoint of a CPU runs whenever it is on:
		 * its times say nothing new, and reading them costs a call on
		 * each CPU (an IPI to the event's CPU, 50-180 us a tick on these
		 * VMs). Task and cgroup events are read: their enabled time
		 * stops while the task or cgroup is off the CPU. */
		bool was = e->on_since[ev];

		e->on_since[ev] = e->on_now[ev];
		return was ? 100 : -1;
	}
	/* A task's event on CPU c is enabled whenever the task runs, but runs
	 * only while it runs on c: per task, the enabled time is that of one
	 * CPU and the running times add up. A CPU-wide event counts alone. */
	for (size_t t = 0; t < e->ntids; t++) {
		uint64_t t_en = 0;

		for (size_t c = 0; c < e->ncpus; c++) {
			uint64_t v[3];
			int fd = *engine_fd_at(e, ev, c, t);

			if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
				continue;
			run += v[2];
			if (e->tids[t] < 0)
				en += v[1];
			else if (v[1] > t_en)
				t_en = v[1];
		}
		en += t_en;
	}
	/* A re-open restarts the fds' times: then the whole reading is new. */
	d_en = en >= e->prev_enabled[ev] ? en - e->prev_enabled[ev] : en;
	d_run = run >= e->prev_running[ev] ? run - e->prev_running[ev] : run;
	e->prev_enabled[ev] = en;
	e->prev_running[ev] = run;
	if (d_en == 0)
		return -1;
	/* Rounded: the fds are read one after another, a few µs apart. */
	return d_run >= d_en ? 100 : (int)((200 * d_run + d_en) / (2 * d_en));
}
