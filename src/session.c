#include "session.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *comm_source(void *arg, pid_t pid)
{
	return pid == 0 ? "swapper" : symbols_comm_of(arg, pid);
}

const char *session_comm(void *arg, pid_t pid)
{
	struct session *s = arg;

	return comm_source(s->syms, pid);
}

static void *load_kernel(void *syms)
{
	symbols_load_kernel(syms);
	return NULL;
}

static void add_notice(struct session *s, const char *n)
{
	if (n && s->nnotices < SESSION_NOTICES)
		s->notices[s->nnotices++] = n;
}

int session_open(struct session *s, const struct options *o, char *err, size_t errlen)
{
	struct engine_opts eo = {
		.events = o->events, .nevents = o->nevents,
		.cpus = o->cpus, .ncpus = o->ncpus,
		.pids = o->pids, .npids = o->npids, .pids_are_tids = o->tids, .cgroup = o->cgroup,
		.freq = o->freq, .period = o->period,
		.mmap_pages = o->mmap_pages, .interval = o->interval,
	};
	struct symbols_opts so = { .proc_root = "/proc", .kallsyms_path = "/proc/kallsyms" };
	int cpus[CPUMAP_MAX];
	pthread_t kthread;
	bool kthread_ok;
	size_t n, i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->opts = o;
	s->syms = symbols_new(&so);
	if (s->syms == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	symbols_set_demangle(s->syms, !o->no_demangle);
	/* Tracking starts with the engine, so nothing that starts between
	 * reading /proc and sampling goes unseen. */
	rc = engine_open(&s->eng, &eo, err, errlen);
	if (rc)
		return rc;
	/* Sampling starts now; the samples wait in the rings while kallsyms
	 * (slow: the kernel formats every symbol) loads beside /proc. */
	if ((rc = engine_start(s->eng)) != 0) {
		snprintf(err, errlen, "cannot start the events: %s", strerror(-rc));
		return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->started);
	kthread_ok = pthread_create(&kthread, NULL, load_kernel, s->syms) == 0;
	if (!kthread_ok)
		symbols_load_kernel(s->syms);
	if (o->pids && !o->tids) {
		for (i = 0; i < o->npids; i++)
			symbols_synthesize(s->syms, o->pids[i]);
		s->focus_left = o->npids;
	} else {
		symbols_synthesize(s->syms, -1);
	}
	if (kthread_ok)
		pthread_join(kthread, NULL);
	n = engine_ncpus(s->eng);
	if (n > CPUMAP_MAX)
		n = CPUMAP_MAX;
	for (i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	s->agg = agg_new(engine_nevents(s->eng), cpus, n);
	if (s->agg == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	agg_set_comm_source(s->agg, comm_source, s->syms);
	if (o->ncounters) {
		struct counters_target ct = {
			.pids = o->pids, .npids = o->npids, .pids_are_tids = o->tids,
			.cgroup = o->cgroup, .cpus = cpus, .ncpus = n,
		};

		rc = counters_open(&s->cnt, o->counters, o->ncounters, &ct, err, errlen);
		if (rc)
			return rc;
		counters_enable(s->cnt);
		add_notice(s, counters_notice(s->cnt));
	}
	for (i = 0; i < engine_nevents(s->eng); i++) {
		const struct evspec *ev = engine_event(s->eng, i);
		struct agg_event *ae = agg_event(s->agg, i);

		strlcpy(ae->name, ev->name, sizeof(ae->name));
		ae->exclude = evspec_exclude_bits(&ev->attr);
	}
	add_notice(s, engine_notice(s->eng));
	add_notice(s, symbols_notice(s->syms));
	options_target(o, n, s->target, sizeof(s->target));
	s->last_tick = s->started;
	return 0;
}

void session_close(struct session *s)
{
	counters_close(s->cnt);
	agg_free(s->agg);
	engine_close(s->eng);
	symbols_free(s->syms);
	memset(s, 0, sizeof(*s));
}

void session_sample(struct session *s)
{
	for (size_t i = 0; i < agg_nevents(s->agg); i++)
		agg_event(s->agg, i)->running_pct = engine_running_pct(s->eng, i);
}

void session_roll(struct session *s, unsigned decay_pct)
{
	agg_roll(s->agg, decay_pct);
	symbols_reap(s->syms);
}

double session_lap(struct session *s)
{
	struct timespec now;
	double d;

	clock_gettime(CLOCK_MONOTONIC, &now);
	d = (double)(now.tv_sec - s->last_tick.tv_sec) + (double)(now.tv_nsec - s->last_tick.tv_nsec) / 1e9;
	s->last_tick = now;
	return d;
}

static bool cpumode_kernel(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return true;
	default:
		return false;
	}
}

void session_record(void *arg, int ev, const struct record *r)
{
	struct session *s = arg;
	struct sym_result sr;

	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		symbols_resolve(s->syms, (pid_t)r->sid.pid, r->sample.ip, cpumode_kernel(r->misc), &sr);
		agg_sample(s->agg, (size_t)ev, (int)r->sid.cpu, (pid_t)r->sid.pid, (pid_t)r->sid.tid,
			   &sr, r->sample.period);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		/* The build-id form leaves maj/min/ino zero: the build-id is the key. */
		struct sym_map m = {
			.pid = (pid_t)r->mmap.pid, .start = r->mmap.start, .len = r->mmap.len,
			.pgoff = r->mmap.pgoff, .prot = r->mmap.prot, .filename = r->mmap.filename,
			.build_id = r->mmap.build_id, .build_id_len = r->mmap.build_id_size,
			.maj = r->mmap.maj, .min = r->mmap.min, .ino = r->mmap.ino,
			.ino_generation = r->mmap.ino_generation,
		};

		symbols_mmap(s->syms, &m);
		break;
	}
	case PERF_RECORD_COMM:
		symbols_comm(s->syms, (pid_t)r->comm.pid, (pid_t)r->comm.tid, r->comm.comm,
			     r->misc & PERF_RECORD_MISC_COMM_EXEC);
		if (r->comm.pid == r->comm.tid)
			agg_task_comm(s->agg, (pid_t)r->comm.pid, r->comm.comm);
		agg_thread_comm(s->agg, (pid_t)r->comm.tid, r->comm.comm);
		break;
	case PERF_RECORD_FORK:
		symbols_fork(s->syms, (pid_t)r->task.pid, (pid_t)r->task.ppid, (pid_t)r->task.tid,
			     (pid_t)r->task.ptid);
		break;
	case PERF_RECORD_EXIT:
		symbols_exit(s->syms, (pid_t)r->task.pid, (pid_t)r->task.tid);
		if (r->task.pid == r->task.tid)
			agg_task_exit(s->agg, (pid_t)r->task.pid);
		else
			agg_thread_exit(s->agg, (pid_t)r->task.tid);
		break;
	case PERF_RECORD_LOST:
		if (ev < 0)
			s->tracking_lost += r->lost.lost;
		else
			agg_lost(s->agg, (size_t)ev, (int)r->sid.cpu, r->lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (ev >= 0)
			agg_lost(s->agg, (size_t)ev, (int)r->sid.cpu, r->lost_samples.lost);
		break;
	case PERF_RECORD_THROTTLE:
		if (ev >= 0)
			agg_throttle(s->agg, (size_t)ev, (int)r->sid.cpu);
		break;
	default:
		break;
	}
}
