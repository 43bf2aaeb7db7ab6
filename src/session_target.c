#include "session_target.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine blocks these and reads them from a signalfd; closing an engine
 * unblocks them. Between the old engine's close and the new one's block a
 * stop signal would take its default action and leave the terminal raw, so
 * they are caught meanwhile and raised again once blocked. */
static const int loop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
static volatile sig_atomic_t caught[sizeof(loop_sigs) / sizeof(loop_sigs[0])];

static void remember(int signo)
{
	for (size_t i = 0; i < sizeof(loop_sigs) / sizeof(loop_sigs[0]); i++)
		if (loop_sigs[i] == signo)
			caught[i] = 1;
}

struct sig_guard {
	struct sigaction old[sizeof(loop_sigs) / sizeof(loop_sigs[0])];
};

static void guard_begin(struct sig_guard *g)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remember;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(loop_sigs) / sizeof(loop_sigs[0]); i++) {
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
	for (size_t i = 0; i < sizeof(loop_sigs) / sizeof(loop_sigs[0]); i++)
		sigaddset(&set, loop_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (size_t i = 0; i < sizeof(loop_sigs) / sizeof(loop_sigs[0]); i++) {
		sigaction(loop_sigs[i], &g->old[i], NULL);
		if (caught[i])
			raise(loop_sigs[i]); /* pending until the signalfd reads it */
	}
}

static const char *comm_source(void *arg, pid_t pid)
{
	return pid == 0 ? "swapper" : symbols_comm_of(arg, pid);
}

static void add_notice(struct session *s, const char *n)
{
	if (n && s->nnotices < SESSION_NOTICES)
		s->notices[s->nnotices++] = n;
}

static bool needs_room(int rc)
{
	return rc == -EPERM || rc == -ENOMEM || rc == -EMFILE || rc == -ENFILE;
}

/* A fresh aggregation over the new engine's CPUs, named as its events. */
static int fresh_agg(struct session *s, const bool *enabled, char *err, size_t errlen)
{
	int cpus[CPUMAP_MAX];
	size_t n = engine_ncpus(s->eng), i;

	if (n > CPUMAP_MAX)
		n = CPUMAP_MAX;
	for (i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	agg_free(s->agg);
	s->agg = agg_new(engine_nevents(s->eng), cpus, n);
	if (s->agg == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	agg_set_comm_source(s->agg, comm_source, s->syms);
	for (i = 0; i < engine_nevents(s->eng); i++)
		agg_event(s->agg, i)->enabled = enabled[i];
	return 0;
}

static void open_counters(struct session *s, const struct session_target *t)
{
	const struct options *o = s->opts;
	int cpus[CPUMAP_MAX];
	size_t n = engine_ncpus(s->eng);
	char err[256];

	counters_close(s->cnt);
	s->cnt = NULL;
	if (o->ncounters == 0 || (t->pids == NULL && t->cgroup == NULL))
		return;
	if (n > CPUMAP_MAX)
		n = CPUMAP_MAX;
	for (size_t i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	struct counters_target ct = {
		.pids = t->pids, .npids = t->npids, .pids_are_tids = t->pids_are_tids,
		.cgroup = t->cgroup, .cpus = cpus, .ncpus = n,
	};
	/* Exact counting is an extra in focus mode: sampling goes on without it. */
	if (counters_open(&s->cnt, o->counters, o->ncounters, &ct, err, sizeof(err)) == 0)
		counters_enable(s->cnt);
	else
		s->cnt = NULL;
}

int session_reopen(struct session *s, const struct session_target *t, char *err, size_t errlen)
{
	const struct options *o = s->opts;
	size_t nev = engine_nevents(s->eng), i;
	struct evspec *evs = calloc(nev, sizeof(*evs));
	bool enabled[AGG_MAX_EVENTS];
	struct engine *ne = NULL;
	struct sig_guard g;
	int rc;

	if (evs == NULL || nev > AGG_MAX_EVENTS) {
		free(evs);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* What is open now: fallbacks taken and exclude flags flipped since start. */
	for (i = 0; i < nev; i++) {
		evs[i] = *engine_event(s->eng, i);
		enabled[i] = agg_event(s->agg, i)->enabled;
	}
	struct engine_opts eo = {
		.events = evs, .nevents = nev,
		.cpus = o->cpus, .ncpus = o->ncpus,
		.pids = t->pids, .npids = t->npids, .pids_are_tids = t->pids_are_tids,
		.cgroup = t->cgroup,
		.freq = t->freq || t->period ? t->freq : o->freq,
		.period = t->freq || t->period ? t->period : o->period,
		.mmap_pages = o->mmap_pages,
		.interval = t->interval > 0 ? t->interval : o->interval,
	};

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
	}
	guard_end(&g);
	free(evs);
	if (rc)
		return rc;

	for (i = 0; i < nev; i++)
		if (!enabled[i])
			engine_enable_event(s->eng, i, false);
	if (!t->keep_agg) {
		if ((rc = fresh_agg(s, enabled, err, errlen)) != 0)
			return rc;
		if (t->pids && !t->pids_are_tids)
			for (i = 0; i < t->npids; i++)
				symbols_synthesize(s->syms, t->pids[i]);
		else
			symbols_synthesize(s->syms, -1); /* what started while we looked elsewhere */
		open_counters(s, t);
	}
	for (i = 0; i < nev; i++) {
		const struct evspec *ev = engine_event(s->eng, i);
		struct agg_event *ae = agg_event(s->agg, i);

		strlcpy(ae->name, ev->name, sizeof(ae->name));
		ae->exclude = evspec_exclude_bits(&ev->attr);
	}
	s->nnotices = 0;
	add_notice(s, engine_notice(s->eng));
	add_notice(s, symbols_notice(s->syms));
	if (s->cnt)
		add_notice(s, counters_notice(s->cnt));

	struct options tgt = *o;

	tgt.pids = (pid_t *)t->pids;
	tgt.npids = t->npids;
	tgt.tids = t->pids_are_tids;
	tgt.cgroup = t->cgroup;
	options_target(&tgt, engine_ncpus(s->eng), s->target, sizeof(s->target));
	s->focus_left = t->pids && !t->pids_are_tids ? t->npids : 0;
	return 0;
}

int session_retarget(struct session *s, const pid_t *pids, size_t npids, char *err, size_t errlen)
{
	struct session_target t = { .pids = npids ? pids : NULL, .npids = npids };

	return session_reopen(s, &t, err, errlen);
}
