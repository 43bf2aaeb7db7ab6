/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "counters.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cpumap.h"
#include "perfsys.h"

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
	PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* What one event of one unit last read as. */
struct reading {
	uint64_t raw, enabled, running;
	uint64_t id;
	int fd;
};

/* A unit is one thread (pid mode) or one CPU of a cgroup. */
struct unit {
	pid_t pid, tid;
	int cpu;
	bool gone;
	struct reading r[COUNTERS_MAX];
	struct counter_row row;
};

struct counters {
	struct evspec evs[COUNTERS_MAX];
	size_t nev;
	struct counter_group groups[COUNTERS_MAX];
	size_t ngroups;
	bool unsupported[COUNTERS_MAX];
	int unsupported_err[COUNTERS_MAX]; /* the errno that said so */
	/* Opened, but user-only counting cannot see it (counters_kernel_only):
	 * shown as n/a, never as the 0 it reads. */
	bool unseen[COUNTERS_MAX];
	/* The events shown (every one that opened), as indexes into evs:
	 * rows and counters_event are in this order. */
	size_t vis[COUNTERS_MAX], nvis;
	struct unit *units;
	size_t nunits;
	struct counter_row *procs, *threads;
	size_t nprocs;
	int cgroup_fd;
	bool inherit;
	char notice[768];
	bool user_only;      /* kernel counting refused: excluded for lack of rights */
};

static bool is_software(const struct evspec *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE;
}

/* Hardware pairs whose ratio users read: both in one group. */
static bool pairs_with(const struct evspec *a, const struct evspec *b)
{
	static const uint64_t pairs[][2] = {
		{ PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES },
		{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES },
	};

	if (a->attr.type != PERF_TYPE_HARDWARE || b->attr.type != PERF_TYPE_HARDWARE)
		return false;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if ((a->attr.config == pairs[i][0] && b->attr.config == pairs[i][1]) ||
		    (a->attr.config == pairs[i][1] && b->attr.config == pairs[i][0]))
			return true;
	return false;
}

size_t counters_plan(const struct evspec *evs, size_t n, struct counter_group *groups)
{
	bool placed[COUNTERS_MAX] = { false };
	size_t ng = 0, i, j;

	if (n > COUNTERS_MAX)
		n = COUNTERS_MAX;
	for (i = 0; i < n; i++) {
		if (!is_software(&evs[i]))
			continue;
		if (ng == 0) {
			groups[0].n = 0;
			ng = 1;
		}
		groups[0].ev[groups[0].n++] = i;
		placed[i] = true;
	}
	for (i = 0; i < n; i++) {
		if (placed[i])
			continue;
		groups[ng].n = 0;
		groups[ng].ev[groups[ng].n++] = i;
		placed[i] = true;
		for (j = i + 1; j < n; j++) {
			if (!placed[j] && pairs_with(&evs[i], &evs[j])) {
				groups[ng].ev[groups[ng].n++] = j;
				placed[j] = true;
				break;
			}
		}
		ng++;
	}
	return ng;
}

void counters_attr(struct perf_event_attr *attr, const struct evspec *ev, bool leader, bool inherit)
{
	*attr = ev->attr;
	attr->size = sizeof(*attr);
	attr->read_format = READ_FORMAT;
	attr->sample_period = 0;
	attr->sample_type = 0;
	attr->freq = 0;
	attr->precise_ip = 0;
	attr->inherit = inherit;
	attr->disabled = leader;
}

uint64_t counters_scale(uint64_t raw, uint64_t enabled, uint64_t running, enum counter_state *state)
{
	if (running == 0) {
		*state = enabled ? COUNTER_NOT_RUN : COUNTER_OK;
		return enabled ? 0 : raw;
	}
	if (running >= enabled) {
		*state = COUNTER_OK;
		return raw;
	}
	*state = COUNTER_SCALED;
	return (uint64_t)((double)raw * (double)enabled / (double)running + 0.5);
}

int counters_parse_read(const uint64_t *buf, size_t len, size_t max, uint64_t *enabled,
			uint64_t *running, uint64_t *ids, uint64_t *vals)
{
	uint64_t nr;

	if (len < 3 * sizeof(uint64_t))
		return -1;
	nr = buf[0];
	if (nr > max || len < (3 + 2 * nr) * sizeof(uint64_t))
		return -1;
	*enabled = buf[1];
	*running = buf[2];
	for (uint64_t i = 0; i < nr; i++) {
		vals[i] = buf[3 + 2 * i];
		ids[i] = buf[4 + 2 * i];
	}
	return (int)nr;
}

__attribute__((format(printf, 2, 3)))
static void add_notice(struct counters *c, const char *fmt, ...)
{
	size_t used = strlen(c->notice);
	va_list ap;

	if (used && used + 3 < sizeof(c->notice)) {
		memcpy(c->notice + used, "; ", 3);
		used += 2;
	}
	if (used + 1 >= sizeof(c->notice))
		return;
	va_start(ap, fmt);
	vsnprintf(c->notice + used, sizeof(c->notice) - used, fmt, ap);
	va_end(ap);
}

bool counters_kernel_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->exclude_kernel &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES || a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/* Why the kernel would not count an event here, for the notice. */
static void unsupported_reason(const struct evspec *ev, int e, char *buf, size_t len)
{
	bool pmu = ev->attr.type == PERF_TYPE_HARDWARE || ev->attr.type == PERF_TYPE_HW_CACHE;

	if (pmu && (e == ENOENT || e == ENODEV || e == EOPNOTSUPP))
		snprintf(buf, len, "%s: no hardware PMU on this host", strerrorname_np(e));
	else
		snprintf(buf, len, "%s: %s", strerrorname_np(e), strerror(e));
}

/* The events shown: those that opened. One notice names the others, one
 * reason at a time, and one the events user-only counting cannot see. */
static void shown_events(struct counters *c)
{
	char names[512], why[128], other[128];
	bool told[COUNTERS_MAX] = { false };

	c->nvis = 0;
	for (size_t ev = 0; ev < c->nev; ev++) {
		c->unseen[ev] = !c->unsupported[ev] && counters_kernel_only(&c->evs[ev].attr);
		if (!c->unsupported[ev])
			c->vis[c->nvis++] = ev;
	}
	for (size_t ev = 0; ev < c->nev; ev++) {
		if (!c->unsupported[ev] || told[ev])
			continue;
		unsupported_reason(&c->evs[ev], c->unsupported_err[ev], why, sizeof(why));
		names[0] = '\0';
		for (size_t k = ev; k < c->nev; k++) {
			if (!c->unsupported[k] || told[k])
				continue;
			unsupported_reason(&c->evs[k], c->unsupported_err[k], other, sizeof(other));
			if (strcmp(other, why) != 0)
				continue;
			told[k] = true;
			if (names[0])
				strlcat(names, ", ", sizeof(names));
			strlcat(names, c->evs[k].name, sizeof(names));
		}
		/* The reason first: a message line cut at its end keeps it. */
		add_notice(c, "%s: not counted, not shown: %s", why, names);
	}
	names[0] = '\0';
	for (size_t ev = 0; ev < c->nev; ev++)
		if (c->unseen[ev]) {
			if (names[0])
				strlcat(names, ", ", sizeof(names));
			strlcat(names, c->evs[ev].name, sizeof(names));
		}
	if (names[0])
		add_notice(c, "%s n/a: they happen in the kernel, which user-only counting cannot see (run as "
			   "root, or sysctl kernel.perf_event_paranoid=1)", names);
}

static bool unsupported_errno(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL;
}

/* Opens one group on one unit; events that cannot be counted here are
 * marked for every unit. -errno for what must stop the whole open. */
static int open_group(struct counters *c, struct unit *u, const struct counter_group *g)
{
	int leader = -1;
	unsigned long flags = c->cgroup_fd >= 0 ? PERF_FLAG_PID_CGROUP : 0;
	pid_t target = c->cgroup_fd >= 0 ? c->cgroup_fd : u->tid;

	for (size_t m = 0; m < g->n; m++) {
		size_t ev = g->ev[m];
		struct perf_event_attr attr;
		int fd;

		if (c->unsupported[ev])
			continue;
		counters_attr(&attr, &c->evs[ev], leader < 0, c->inherit);
		fd = perfsys_open(&attr, target, u->cpu, leader, flags);
		if (fd < 0) {
			int e = -fd;

			if (e == ESRCH) {
				u->gone = true;
				return 0;
			}
			if (unsupported_errno(e)) {
				c->unsupported[ev] = true;
				c->unsupported_err[ev] = e;
				continue;
			}
			if ((e == EACCES || e == EPERM) && c->cgroup_fd < 0 && !c->evs[ev].has_modifiers &&
			    !c->evs[ev].attr.exclude_kernel) {
				/* As the sampling events: user space only, said once. */
				c->evs[ev].attr.exclude_kernel = 1;
				c->evs[ev].attr.exclude_hv = 1;
				c->user_only = true;
				m--;
				continue;
			}
			return -e;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &u->r[ev].id) < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		u->r[ev].fd = fd;
		if (leader < 0)
			leader = fd;
	}
	return 0;
}

static void close_unit(struct counters *c, struct unit *u, bool hardware_only)
{
	for (size_t ev = 0; ev < c->nev; ev++) {
		if (hardware_only && is_software(&c->evs[ev]))
			continue;
		if (u->r[ev].fd >= 0)
			close(u->r[ev].fd);
		u->r[ev].fd = -1;
	}
}

static int add_unit(struct counters *c, pid_t pid, pid_t tid, int cpu)
{
	struct unit *n = reallocarray(c->units, c->nunits + 1, sizeof(*n));

	if (n == NULL)
		return -ENOMEM;
	c->units = n;
	n = &c->units[c->nunits++];
	memset(n, 0, sizeof(*n));
	n->pid = pid;
	n->tid = tid;
	n->cpu = cpu;
	n->row.pid = pid;
	n->row.tid = tid;
	for (size_t ev = 0; ev < COUNTERS_MAX; ev++)
		n->r[ev].fd = -1;
	return 0;
}

static int collect_units(struct counters *c, const struct counters_target *t, char *err, size_t errlen)
{
	int rc;

	if (t->cgroup) {
		c->cgroup_fd = perfsys_cgroup_open(t->cgroup, err, errlen);
		if (c->cgroup_fd < 0)
			return c->cgroup_fd;
		for (size_t i = 0; i < t->ncpus; i++)
			if ((rc = add_unit(c, 0, 0, t->cpus[i])) != 0)
				return rc;
		return 0;
	}
	for (size_t i = 0; i < t->npids; i++) {
		pid_t *tids = NULL;
		size_t nt = 0;

		if (t->pids_are_tids) {
			if ((rc = add_unit(c, t->pids[i], t->pids[i], -1)) != 0)
				return rc;
			continue;
		}
		if ((rc = cpumap_threads(t->pids[i], &tids, &nt)) != 0) {
			snprintf(err, errlen, "no such process: %d", (int)t->pids[i]);
			return rc;
		}
		for (size_t k = 0; k < nt && rc == 0; k++)
			rc = add_unit(c, t->pids[i], tids[k], -1);
		free(tids);
		if (rc)
			return rc;
	}
	return 0;
}

int counters_open(struct counters **out, const struct evspec *evs, size_t n,
		  const struct counters_target *t, char *err, size_t errlen)
{
	struct counters *c = calloc(1, sizeof(*c));
	size_t dropped = 0, need;
	int rc;

	*out = NULL;
	if (c == NULL)
		return -ENOMEM;
	c->cgroup_fd = -1;
	c->nev = n > COUNTERS_MAX ? COUNTERS_MAX : n;
	memcpy(c->evs, evs, c->nev * sizeof(*evs));
	c->ngroups = counters_plan(c->evs, c->nev, c->groups);
	c->inherit = !t->cgroup && !t->pids_are_tids;
	if ((rc = collect_units(c, t, err, errlen)) != 0)
		goto fail;

	/* Ask for the fds up front; what is still short drops hardware groups. */
	need = c->nunits * c->nev + 64;
	perfsys_fd_budget(need + 256);
	for (size_t u = 0; u < c->nunits; u++) {
		for (size_t g = 0; g < c->ngroups; g++) {
			bool hw = !is_software(&c->evs[c->groups[g].ev[0]]);

			if (hw && dropped)
				continue;
			rc = open_group(c, &c->units[u], &c->groups[g]);
			if ((rc == -EMFILE || rc == -ENFILE) && (hw || g > 0)) {
				close_unit(c, &c->units[u], true);
				dropped = c->nunits - u;
				break;
			}
			if (rc) {
				struct perfsys_what w = { "counting events", c->units[u].cpu,
					c->cgroup_fd >= 0 ? -1 : c->units[u].tid, need, PERFSYS_PARANOID_UNKNOWN };

				perfsys_strerror(err, errlen, -rc, &w);
				goto fail;
			}
			if (c->units[u].gone)
				break;
		}
	}
	if (dropped)
		add_notice(c, "fd limit: hardware counters dropped for %zu of %zu threads (%zu fds needed: "
			   "raise ulimit -n)", dropped, c->nunits, need);
	if (c->user_only)
		add_notice(c, "kernel counting not permitted (kernel.perf_event_paranoid=%d): counting user "
			   "space only", perfsys_paranoid());
	shown_events(c);
	for (size_t ev = 0; ev < c->nev; ev++)
		for (size_t u = 0; u < c->nunits; u++)
			c->units[u].row.v[ev].state = c->unsupported[ev] ? COUNTER_UNSUPPORTED : COUNTER_OK;
	*out = c;
	return 0;
fail:
	counters_close(c);
	return rc ? rc : -EINVAL;
}

void counters_close(struct counters *c)
{
	if (c == NULL)
		return;
	for (size_t u = 0; u < c->nunits; u++)
		close_unit(c, &c->units[u], false);
	if (c->cgroup_fd >= 0)
		close(c->cgroup_fd);
	free(c->units);
	free(c->procs);
	free(c->threads);
	free(c);
}

int counters_enable(struct counters *c)
{
	for (size_t u = 0; u < c->nunits; u++)
		for (size_t g = 0; g < c->ngroups; g++)
			for (size_t m = 0; m < c->groups[g].n; m++) {
				int fd = c->units[u].r[c->groups[g].ev[m]].fd;

				if (fd >= 0) { /* the first open member leads the group */
					if (ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
						return -errno;
					break;
				}
			}
	return 0;
}

static void read_unit(struct counters *c, struct unit *u)
{
	uint64_t buf[3 + 2 * COUNTERS_MAX], ids[COUNTERS_MAX], vals[COUNTERS_MAX], en, run;

	for (size_t g = 0; g < c->ngroups; g++) {
		int leader = -1, nr;
		ssize_t len;

		for (size_t m = 0; m < c->groups[g].n && leader < 0; m++)
			leader = u->r[c->groups[g].ev[m]].fd;
		if (leader < 0)
			continue;
		len = read(leader, buf, sizeof(buf));
		if (len <= 0)
			continue;
		nr = counters_parse_read(buf, (size_t)len, COUNTERS_MAX, &en, &run, ids, vals);
		for (int i = 0; i < nr; i++)
			for (size_t m = 0; m < c->groups[g].n; m++) {
				struct reading *r = &u->r[c->groups[g].ev[m]];
				struct counter_value *v = &u->row.v[c->groups[g].ev[m]];
				enum counter_state st;

				if (r->fd < 0 || r->id != ids[i])
					continue;
				v->value = counters_scale(vals[i] - r->raw, en - r->enabled, run - r->running, &st);
				v->total = counters_scale(vals[i], en, run, &v->state);
				if (st == COUNTER_SCALED)
					v->state = COUNTER_SCALED;
				r->raw = v->raw = vals[i];
				r->enabled = v->enabled_ns = en;
				r->running = v->running_ns = run;
			}
	}
}

static struct counter_row *proc_row(struct counters *c, pid_t pid)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return &c->procs[i];
	return NULL;
}

/* The worse of two states, for a row that sums several. */
static enum counter_state worse(enum counter_state a, enum counter_state b)
{
	return a > b ? a : b;
}

/* A unit's row as shown: only the events that opened, in their order; what
 * user-only counting cannot see is n/a, not the 0 it read. */
static void compact(const struct counters *c, const struct counter_row *in, struct counter_row *out)
{
	out->pid = in->pid;
	out->tid = in->tid;
	out->exited = in->exited;
	memset(out->v, 0, sizeof(out->v));
	for (size_t i = 0; i < c->nvis; i++) {
		out->v[i] = in->v[c->vis[i]];
		if (c->unseen[c->vis[i]])
			out->v[i] = (struct counter_value){ .state = COUNTER_UNSUPPORTED };
	}
}

int counters_read(struct counters *c)
{
	if (c->procs == NULL) {
		c->procs = calloc(c->nunits ? c->nunits : 1, sizeof(*c->procs));
		c->threads = calloc(c->nunits ? c->nunits : 1, sizeof(*c->threads));
		if (c->procs == NULL || c->threads == NULL)
			return -ENOMEM;
	}
	c->nprocs = 0;
	for (size_t u = 0; u < c->nunits; u++) {
		struct unit *un = &c->units[u];
		struct counter_row *p;

		read_unit(c, un);
		compact(c, &un->row, &c->threads[u]);
		p = proc_row(c, un->pid);
		if (p == NULL) {
			p = &c->procs[c->nprocs++];
			memset(p, 0, sizeof(*p));
			p->pid = un->pid;
		}
		for (size_t i = 0; i < c->nvis; i++) {
			struct counter_value *d = &p->v[i], *s = &c->threads[u].v[i];

			d->value += s->value;
			d->total += s->total;
			d->raw += s->raw;
			d->enabled_ns += s->enabled_ns;
			d->running_ns += s->running_ns;
			d->state = worse(d->state, s->state);
		}
	}
	return 0;
}

size_t counters_nevents(const struct counters *c) { return c->nvis; }

const struct evspec *counters_event(const struct counters *c, size_t i)
{
	return i < c->nvis ? &c->evs[c->vis[i]] : NULL;
}

size_t counters_processes(const struct counters *c, const struct counter_row **rows)
{
	*rows = c->procs;
	return c->nprocs;
}

size_t counters_threads(const struct counters *c, const struct counter_row **rows)
{
	*rows = c->threads;
	return c->threads ? c->nunits : 0;
}

const struct counter_row *counters_process(const struct counters *c, pid_t pid)
{
	return proc_row((struct counters *)c, pid);
}

const char *counters_notice(const struct counters *c)
{
	return c->notice[0] ? c->notice : NULL;
}
