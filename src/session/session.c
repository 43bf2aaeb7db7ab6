/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session: the run's parts opened, re-aimed and closed; the loop driven,
 * each interval ended; the figures read for the front ends. The records
 * themselves are session_record.c's. */
#include "session.h"
#include "perfsys.h"
#include "procstat.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session_rec.h"

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

/* The engine's CPUs, in its order (agg rows and cgroup counters follow it). */
static size_t engine_cpus(const struct session *s, int cpus[CPUMAP_MAX])
{
	size_t n = engine_ncpus(s->eng);

	if (n > CPUMAP_MAX)
		n = CPUMAP_MAX;
	for (size_t i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	return n;
}

static int fresh_agg(struct session *s, char *err, size_t errlen)
{
	int cpus[CPUMAP_MAX];
	size_t n = engine_cpus(s, cpus), nk = 0;
	enum agg_gkey keys[AGG_GK_COUNT];
	int rc;

	nk = agg_group_carry(s->agg, s->opts->sort_keys, keys);
	agg_free(s->agg);
	s->agg = agg_new(engine_nevents(s->eng), cpus, n);
	if (s->agg == NULL || (rc = agg_group_keys(s->agg, keys, nk)) == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	session_offcpu_fresh(s);
	session_srcline_on(s);
	return 0;
}

/* Exact counting for a focus; strict at start (the user asked for it), an
 * extra after a live re-aim (sampling goes on without it). */
static int open_counters(struct session *s, const struct session_target *t, bool strict,
			 char *err, size_t errlen)
{
	const struct options *o = s->opts;
	int cpus[CPUMAP_MAX];
	size_t n = engine_cpus(s, cpus);
	char quiet[256];
	int rc;

	counters_close(s->cnt);
	s->cnt = NULL;
	if (o->ncounters == 0 || (t->pids == NULL && t->cgroup == NULL))
		return 0;
	struct counters_target ct = {
		.pids = t->pids, .npids = t->npids, .pids_are_tids = t->pids_are_tids,
		.cgroup = t->cgroup, .cpus = cpus, .ncpus = n,
	};
	rc = counters_open(&s->cnt, o->counters, o->ncounters, &ct,
			   strict ? err : quiet, strict ? errlen : sizeof(quiet));
	if (rc) {
		s->cnt = NULL;
		return strict ? rc : 0;
	}
	counters_enable(s->cnt);
	return 0;
}

/* What the agg, the notices and the target line say of the engine now. */
static void describe(struct session *s, const struct session_target *t)
{
	const struct options *o = s->opts;
	struct options tgt = *o;

	for (size_t i = 0; i < engine_nevents(s->eng); i++)
		strlcpy(agg_event(s->agg, i)->name, engine_event(s->eng, i)->name,
			sizeof(agg_event(s->agg, i)->name));
	s->nnotices = 0;
	add_notice(s, engine_notice(s->eng));
	add_notice(s, symbols_notice(s->syms));
	add_notice(s, session_offcpu_notice(s));
	if (s->cnt)
		add_notice(s, counters_notice(s->cnt));
	tgt.pids = (pid_t *)t->pids;
	tgt.npids = t->npids;
	tgt.tids = t->pids_are_tids;
	tgt.cgroup = t->cgroup;
	options_target(&tgt, engine_ncpus(s->eng), s->target, sizeof(s->target));
	s->focus_left = t->pids && !t->pids_are_tids ? t->npids : 0;
}

static void engine_opts_for(const struct session *s, const struct session_target *t,
			    const struct evspec *evs, size_t nev, const bool *enabled,
			    struct engine_opts *eo)
{
	const struct options *o = s->opts;

	*eo = (struct engine_opts){
		.events = evs, .nevents = nev,
		.cpus = o->cpus, .ncpus = o->ncpus,
		.pids = t->pids, .npids = t->npids, .pids_are_tids = t->pids_are_tids,
		.cgroup = t->cgroup,
		.freq = t->freq || t->period ? t->freq : o->freq,
		.period = t->freq || t->period ? t->period : o->period,
		.mmap_pages = o->mmap_pages,
		.interval = t->interval > 0 ? t->interval : session_interval(s),
		.enabled = enabled,
		.cg = o->cg,
		.offcpu = s->offcpu_want && !s->offcpu_bpf,
		.wakers = s->wakers_want,
	};
}

/* The chain cache sized for the most samples with stacks a second. */
static void size_chains(struct session *s, const struct engine_opts *eo)
{
	if (eo->cg.mode != CALLGRAPH_NONE && s->eng)
		symbols_set_chain_rate(s->syms, (eo->period ? 4000 : eo->freq) * engine_ncpus(s->eng) *
							(eo->nevents ? eo->nevents : 1));
}

static bool map_at(void *arg, pid_t pid, uint64_t addr, struct unwind_map *out)
{
	struct session *s = arg;
	uint64_t pgoff;

	if (!symbols_map_at(s->syms, pid, addr, out->path, sizeof(out->path), &out->start, &out->end, &pgoff))
		return false;
	out->base = out->start - pgoff;
	return true;
}

/* The unwinder's: libdw keeps its own pointers into the stack copy, so no
 * hand-back under it (the only way its walk reaches slow work). */
static bool find_map(void *arg, pid_t pid, uint64_t addr, struct unwind_map *out)
{
	struct session *s = arg;
	bool in = s->in_sample, found;

	s->in_sample = false;
	found = map_at(arg, pid, addr, out);
	s->in_sample = in;
	return found;
}

/* The focus's processes are read now; system-wide, each process's /proc is
 * read at its first sample (a scan of every process cost more than all
 * the rest of a start), and after a re-aim again at its next one. */
static void synthesize(struct session *s, const struct session_target *t, bool again)
{
	if (t->pids && !t->pids_are_tids)
		for (size_t i = 0; i < t->npids; i++)
			symbols_synthesize(s->syms, t->pids[i]);
	else if (again)
		symbols_stale(s->syms); /* moves the maps' tags: the memos wait for the read */
}

/* Before slow work inside a sample: the rings this pass reads in place go
 * back to the reader. Only while a sample is in hand: its handling reads
 * the record through the record (engine_hand_back moves its pointers);
 * other records' handlers keep pointers into them. */
static void slow_work(void *arg)
{
	struct session *s = arg;

	if (s->in_sample)
		engine_hand_back(s->eng);
}

static bool leaf_map_dso(void *arg, pid_t pid, uint64_t addr, uint32_t *id, uint64_t *off, bool *vdso)
{
	return symbols_map_dso(((struct session *)arg)->syms, pid, addr, id, off, vdso);
}

static uint32_t leaf_maps_gen(void *arg, pid_t pid)
{
	return symbols_maps_gen(((struct session *)arg)->syms, pid);
}

static const struct leaffix_ops leaf_ops = {
	.map_dso = leaf_map_dso, .map_at = map_at, .maps_gen = leaf_maps_gen, .slow_work = slow_work,
};

struct leaffix *session_leaffix_new(struct session *s, unsigned rule_bits)
{
	return leaffix_new(s->unw, &leaf_ops, s, rule_bits);
}

int session_open(struct session *s, const struct options *o, char *err, size_t errlen)
{
	struct session_target t = {
		.pids = o->pids, .npids = o->npids, .pids_are_tids = o->tids, .cgroup = o->cgroup,
	};
	struct symbols_opts so = { .proc_root = "/proc", .kallsyms_path = "/proc/kallsyms" };
	struct engine_opts eo;
	char kcache[4096];
	pthread_t kthread;
	bool kthread_ok;
	int rc;

	memset(s, 0, sizeof(*s));
	s->opts = o;
	s->interval = o->interval;
	s->syms = symbols_new(&so);
	if (s->syms == NULL || (symbols_cache_dir(kcache, sizeof(kcache)) == 0 &&
				((!o->no_kallsyms_cache && symbols_set_kcache(s->syms, kcache, NULL, NULL) != 0) ||
				 (!o->no_symbol_cache && symbols_set_symbol_cache(s->syms, kcache) != 0)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	symbols_set_demangle(s->syms, !o->no_demangle);
	struct annot_opts ao = { .intel = o->annot_intel, .vmlinux = o->vmlinux, .source = !o->no_source,
				 .proc_root = "/proc" };
	if ((s->annot = annot_cache_new(&ao)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	symbols_set_slow_hook(s->syms, slow_work, s);
	/* A Dwfl per process, the busiest kept; --off-cpu's stacks take the leaf fix without -g. */
	if ((o->cg.mode == CALLGRAPH_DWARF || o->cg.mode == CALLGRAPH_FP || o->offcpu) &&
	    (s->unw = unwind_new(find_map, s, 64)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* The leaf fix's rules belong to the code, not the process: 64 K of them. */
	if ((o->cg.mode == CALLGRAPH_FP || (o->offcpu && o->cg.mode == CALLGRAPH_NONE)) &&
	    (s->leaf = session_leaffix_new(s, 16)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Tracking starts with the engine, so nothing that starts between
	 * reading /proc and sampling goes unseen. */
	s->offcpu_want = o->offcpu;
	s->offcpu_bpf = o->offcpu && session_offcpu_bpf_wish(s);
	if (session_offcpu_target(s, &t) != 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	engine_opts_for(s, &t, o->events, o->nevents, NULL, &eo);
	rc = engine_open(&s->eng, &eo, err, errlen);
	if (rc)
		return rc;
	if (s->offcpu_want && (rc = session_offcpu_begin(s, err, errlen)) != 0)
		return rc;
	size_chains(s, &eo);
	if ((rc = session_rec_open(s, err, errlen)) != 0)
		return rc;
	/* The interval clock starts now, the sampling with the loop: kallsyms
	 * (from the cache; else slow: the kernel formats every symbol), the
	 * focus's /proc and the front end's start run before our own sampling
	 * interrupts land on them (a first start at 50 kHz: 1.31 s of CPU with
	 * sampling on from here, 0.31 s from the loop; doc/BENCHMARKS.md). */
	if ((rc = engine_start_clock(s->eng)) != 0) {
		snprintf(err, errlen, "cannot start the interval timer: %s", strerror(-rc));
		return rc;
	}
	kthread_ok = pthread_create(&kthread, NULL, load_kernel, s->syms) == 0;
	if (!kthread_ok)
		symbols_load_kernel(s->syms);
	synthesize(s, &t, false);
	if (kthread_ok)
		pthread_join(kthread, NULL);
	if ((rc = fresh_agg(s, err, errlen)) != 0 || (rc = open_counters(s, &t, true, err, errlen)) != 0)
		return rc;
	describe(s, &t);
	return 0;
}

void session_close(struct session *s)
{
	session_rec_finish(s, NULL, 0);
	session_replay_close(s);
	counters_close(s->cnt);
	leaffix_free(s->leaf);
	unwind_free(s->unw);
	agg_free(s->agg);
	session_offcpu_close(s);
	engine_close(s->eng);
	symbols_free(s->syms);
	annot_cache_free(s->annot);
	session_srcline_free(s);
	memset(s, 0, sizeof(*s));
}

struct annot_cache *session_annot(struct session *s)
{
	return s->annot;
}

/* --- the loop ------------------------------------------------------------ */

struct run_ctx {
	struct session *s;
	struct engine_handlers *front;
};

/* Sampling (re)started: the first interval is measured from now. */
static void on_start(void *arg)
{
	struct run_ctx *c = arg;

	clock_gettime(CLOCK_MONOTONIC, &c->s->last_tick);
	c->s->running = true;
	if (session_offcpu_started(c->s)) /* refused at attach: the records' way, said */
		add_notice(c->s, session_offcpu_notice(c->s));
	if (c->front->start)
		c->front->start(c->front->arg);
}

static void on_tick(void *arg)
{
	struct run_ctx *c = arg;

	if (c->front->tick)
		c->front->tick(c->front->arg);
}

static bool on_signal(void *arg, int signo)
{
	struct run_ctx *c = arg;

	return c->front->signal ? c->front->signal(c->front->arg, signo) : signo != SIGWINCH;
}

static void on_pid_exit(void *arg, pid_t pid)
{
	struct run_ctx *c = arg;

	if (c->front->pid_exit)
		c->front->pid_exit(c->front->arg, pid);
}

int session_run(struct session *s, struct engine_handlers *front)
{
	struct run_ctx c = { s, front };
	struct engine_handlers h = {
		.record = session_record, .record_arg = s, .samples = session_samples,
		.arg = &c, .start = on_start, .tick = on_tick, .signal = on_signal,
		.pid_exit = on_pid_exit, .raw = s->rec ? session_rec_raw : NULL,
	};

	if (s->replay)
		return session_replay_run(s, front);
	return engine_run(s->eng, &h);
}

void session_stop(struct session *s) { s->replay ? session_replay_stop(s) : engine_stop(s->eng); }
/* A recording is completed with what the rings hold: a flush, not a quit. */
void session_quit(struct session *s)
{
	if (s->replay)
		session_replay_stop(s);
	else if (s->rec)
		engine_flush(s->eng);
	else
		engine_quit(s->eng);
}
void session_flush(struct session *s) { if (!s->replay) engine_flush(s->eng); }

int session_watch_fd(struct session *s, int fd, void (*cb)(void *arg), void *arg)
{
	if (s->replay)
		return session_replay_watch_fd(s, fd, cb, arg);
	return engine_watch_fd(s->eng, fd, cb, arg);
}

/* Read by the exporter's threads too: a relaxed atomic, only the loop's
 * thread writes it. */
double session_interval(const struct session *s)
{
	double d;

	__atomic_load(&s->interval, &d, __ATOMIC_RELAXED);
	return d > 0 || s->opts == NULL ? d : s->opts->interval;
}

int session_set_interval(struct session *s, double seconds)
{
	int rc = s->eng ? engine_set_interval(s->eng, seconds) : 0;

	if (rc == 0)
		__atomic_store(&s->interval, &seconds, __ATOMIC_RELAXED);
	return rc;
}

int session_tick_in(struct session *s, double secs)
{
	if (s->replay)
		return session_replay_tick_in(s, secs);
	return engine_tick_in(s->eng, secs);
}

static double lap(struct session *s)
{
	struct timespec now;
	double d;

	if (s->replay)
		return session_replay_lap(s); /* the recording's time */
	clock_gettime(CLOCK_MONOTONIC, &now);
	d = (double)(now.tv_sec - s->last_tick.tv_sec) + (double)(now.tv_nsec - s->last_tick.tv_nsec) / 1e9;
	s->last_tick = now;
	return d;
}

/* The counters' reading handed to the agg, named as the session knows them. */
static void counters_to_agg(struct session *s)
{
	const char *names[COUNTERS_MAX];
	const struct counter_row *rows;
	size_t n = counters_nevents(s->cnt), nr;

	if (n > COUNTERS_MAX)
		n = COUNTERS_MAX;
	for (size_t i = 0; i < n; i++)
		names[i] = counters_event(s->cnt, i)->name;
	agg_counters_begin(s->agg, names, n);
	nr = counters_processes(s->cnt, &rows);
	for (size_t i = 0; i < nr; i++)
		agg_counters_add(s->agg, &rows[i], session_comm(s, rows[i].pid));
	nr = counters_threads(s->cnt, &rows);
	for (size_t i = 0; i < nr; i++)
		agg_counters_add(s->agg, &rows[i], session_comm(s, rows[i].pid));
}

/* The interval's processes' threads, as top's nTH and htop's NLWP count
 * them: /proc/PID/stat's num_threads, read here, never on the sample
 * path. Only the rows with samples this interval (the roll's list, what
 * an interval view can show): one read each (about 9 us), so the cost
 * follows them, not every process. An exited one keeps its last count. */
static void threads_from_proc(struct session *s)
{
	const struct agg_task **rows;
	size_t n = agg_tasks_in_scope(s->agg, AGG_INTERVAL, &rows);
	struct procstat_task pt;

	if (s->replay)
		return; /* its pids are not this machine's */
	for (size_t i = 0; i < n; i++)
		if (rows[i]->pid > 0 && !rows[i]->exited && procstat_task(rows[i]->pid, 0, &pt) == 0) {
			agg_task_threads(s->agg, rows[i]->pid, pt.threads);
			agg_kin_note(s->agg, rows[i]->pid, pt.ppid, pt.comm); /* a reparenting too */
		}
}

void session_interval_end(struct session *s, unsigned decay_pct,
			  void (*show)(void *arg, double lap), void *arg)
{
	if (s->cnt) {
		counters_read(s->cnt);
		counters_to_agg(s);
	}
	for (size_t i = 0; i < agg_nevents(s->agg); i++) /* no engine: a test's session */
		agg_event(s->agg, i)->running_pct = s->eng ? engine_running_pct(s->eng, i) : -1;
	agg_settle(s->agg);
	session_offcpu_settle(s);
	if (s->wait)
		agg_settle(s->wait);
	threads_from_proc(s);
	session_kin_update(s);
	show(arg, lap(s));
	agg_roll(s->agg, decay_pct);
	session_rec_round(s);
	session_offcpu_roll(s, decay_pct);
	symbols_reap(s->syms);
	leaffix_idle(s->leaf);
}

bool session_focus_exit(struct session *s, pid_t pid)
{
	(void)pid;
	if (s->focus_left > 0)
		s->focus_left--;
	return s->focus_left == 0;
}

/* --- events, figures, names ----------------------------------------------- */

void session_event(const struct session *s, size_t ev, struct session_event *out)
{
	const struct evspec *e = s->eng ? engine_event(s->eng, ev) : NULL;

	if (s->replay) {
		session_replay_event(s, ev, out);
		return;
	}
	/* No engine (a render test's session): every event on, nothing excluded. */
	out->name = e ? e->name : "";
	out->enabled = e == NULL || engine_event_enabled(s->eng, ev);
	out->exclude = e ? evspec_exclude_bits(&e->attr) : 0;
}

int session_enable_event(struct session *s, size_t ev, bool on)
{
	if (s->replay)
		return session_replay_enable_event(s, ev, on);
	return engine_enable_event(s->eng, ev, on);
}

int session_set_exclude(struct session *s, size_t ev, unsigned excl, char *err, size_t errlen)
{
	if (s->replay)
		return session_replay_set_exclude(s, ev, excl, err, errlen);
	return engine_set_exclude(s->eng, ev, excl, err, errlen);
}

void session_stats(const struct session *s, struct session_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (s->eng)
		engine_get_stats(s->eng, &st->eng);
	symbols_stats(s->syms, &st->sym);
	if (s->agg)
		agg_get_stats(s->agg, &st->agg);
	st->tracking_lost = s->tracking_lost;
	session_rec_stats(s, &st->record_path, &st->record_bytes, &st->record_stopped);
	if (s->unw) {
		struct unwind_stats us;

		unwind_get_stats(s->unw, &us);
		st->unwound = us.stacks;
		st->unwind_truncated = us.truncated;
		st->unwind_slow = us.slow_walks;
		st->unwind_dwfl = us.dwfl_made;
	}
	if (s->leaf) {
		struct leaffix_stats ls;

		leaffix_get_stats(s->leaf, &ls);
		st->leaf_fixed = ls.fixed;
		if (ls.has_rules) {
			st->leaf_rule_hits = ls.rules.hits + ls.memo_hits;
			st->leaf_rule_memo = ls.memo_hits;
			st->leaf_rule_misses = ls.rules.misses;
			st->leaf_rule_negative = ls.rules.negative;
			st->leaf_rule_opens = ls.rules.opens;
		}
	}
}

uint64_t session_max_sample_rate(void)
{
	return perfsys_max_sample_rate();
}

bool session_demangle(const struct session *s)
{
	return symbols_demangle(s->syms);
}

void session_set_demangle(struct session *s, bool on)
{
	symbols_set_demangle(s->syms, on);
}

void session_exclude_format(unsigned bits, char *buf, size_t len)
{
	evspec_exclude_format(bits, buf, len);
}

const char *session_comm(const struct session *s, pid_t pid)
{
	return pid == 0 ? "swapper" : symbols_comm_of(s->syms, pid);
}

/* --- re-aiming ------------------------------------------------------------- */

/* The engine blocks these and reads them from a signalfd; closing an engine
 * unblocks them. Between the old engine's close and the new one's block a
 * stop signal would take its default action and leave the terminal raw, so
 * they are caught meanwhile and raised again once blocked. */
static const int loop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
#define NLOOP_SIGS (sizeof(loop_sigs) / sizeof(loop_sigs[0]))
static volatile sig_atomic_t caught[NLOOP_SIGS];

static void remember(int signo)
{
	for (size_t i = 0; i < NLOOP_SIGS; i++)
		if (loop_sigs[i] == signo)
			caught[i] = 1;
}

struct sig_guard {
	struct sigaction old[NLOOP_SIGS];
};

static void guard_begin(struct sig_guard *g)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remember;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NLOOP_SIGS; i++) {
		caught[i] = 0;
		sigaction(loop_sigs[i], &sa, &g->old[i]);
	}
}

/* Blocks the loop's signals again (the new engine's signalfd wants them) and
 * hands over what was caught in between. */
static void guard_end(struct sig_guard *g)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NLOOP_SIGS; i++)
		sigaddset(&set, loop_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (size_t i = 0; i < NLOOP_SIGS; i++) {
		sigaction(loop_sigs[i], &g->old[i], NULL);
		if (caught[i])
			raise(loop_sigs[i]); /* pending until the signalfd reads it */
	}
}

static bool needs_room(int rc)
{
	return rc == -EPERM || rc == -ENOMEM || rc == -EMFILE || rc == -ENFILE;
}

int session_reopen(struct session *s, const struct session_target *t, char *err, size_t errlen)
{
	size_t nev = s->replay ? 1 : engine_nevents(s->eng), i;
	struct evspec *evs = calloc(nev, sizeof(*evs));
	bool enabled[AGG_MAX_EVENTS];
	struct engine_opts eo;
	struct engine *ne = NULL;
	struct sig_guard g;
	int rc;

	if (s->replay) {
		free(evs);
		return session_replay_reopen(s, t, err, errlen);
	}
	if (evs == NULL || nev > AGG_MAX_EVENTS) {
		free(evs);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* What is open now: fallbacks taken and exclude flags flipped since start. */
	for (i = 0; i < nev; i++) {
		evs[i] = *engine_event(s->eng, i);
		enabled[i] = engine_event_enabled(s->eng, i);
	}
	engine_opts_for(s, t, evs, nev, enabled, &eo);

	guard_begin(&g);
	/* The new engine first, so that a refusal leaves the old one running. */
	rc = engine_open(&ne, &eo, err, errlen);
	if (rc && needs_room(rc)) {
		engine_close(s->eng);
		s->eng = NULL;
		s->nnotices = 0; /* they pointed into the old engine */
		rc = engine_open(&ne, &eo, err, errlen);
	}
	if (rc == 0) {
		engine_close(s->eng); /* unblocks the loop's signals: guard_end blocks them again */
		s->eng = ne;
		__atomic_store(&s->interval, &eo.interval, __ATOMIC_RELAXED);
		size_chains(s, &eo);
	}
	guard_end(&g);
	free(evs);
	if (rc)
		return rc;

	if (!t->keep_agg) {
		if ((rc = fresh_agg(s, err, errlen)) != 0)
			return rc;
		synthesize(s, t, true); /* what started while we looked elsewhere */
		open_counters(s, t, false, NULL, 0);
	}
	session_offcpu_retarget(s, t);
	describe(s, t);
	session_rec_engine(s);
	return 0;
}
