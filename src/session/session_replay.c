/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_replay: -i, a perf.data file played through the session. The
 * reader (pdread) hands its records on in time order to the handlers the
 * engine's records go to (session_record); intervals are cut by the
 * recorded times. -b plays as fast as it reads; the live view at the
 * recorded pace, which keys pause, step and speed up. No perf_event_open,
 * no /proc: the tasks and maps are the file's, the files are found by
 * their build-ids (symbols_set_replay). */
#include "session.h"
#include "htab.h"
#include "pdread.h"
#include "sanitize.h"
#include "tally.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <unistd.h>

#define WATCH_MAX 8
#define SPEED_MIN 0.125
#define SPEED_MAX 64.0

struct watch {
	int fd;
	void (*cb)(void *arg);
	void *arg;
};

struct session_replay {
	struct pdread *rd;
	char name[160];
	/* The record in hand: read, not applied (it opens the next interval);
	 * its pointers hold until the next read. */
	struct record rec;
	int rec_ev;
	bool have, eof, started, ended;
	uint64_t iv_start, edge, newest; /* recorded ns */
	double lap;                      /* recorded length of the interval last ended */
	double speed, armed;             /* armed: the timer's period now (0: off) */
	bool paused, step, stopped, failed, fast;
	char err[512];
	bool enabled[PDREAD_MAX_EVENTS];
	unsigned excl[PDREAD_MAX_EVENTS];
	pid_t focus[16];
	size_t nfocus;
	struct htab bid_by_path;         /* hash of a path -> build-id entry + 1 */
	const struct pdread_buildid *bids;
	size_t nbids;
	int ep, tfd, sfd;
	bool blocked;                    /* the loop's signals, until close */
	sigset_t old_mask;
	struct watch watch[WATCH_MAX];
	size_t nwatch;
	char notice_files[256], notice_kernel[256], notice_end[256];
	uint64_t applied;                /* samples applied */
	/* Flat samples alike, counted as one before the session (as the
	 * engine's, by event index instead of sample id): handed on before
	 * any other record and at each interval's end. */
	struct tally *batch;
	int cpus[CPUMAP_MAX];            /* the recording's CPUs: 0 .. nr_cpus_avail-1 */
	size_t ncpus;
};

/* A recorded interval's tens of thousands of samples: 8x the engine's tally. */
#define REPLAY_BATCH_BITS 12
#define REPLAY_BATCH_PROBE 16

/* --- records into the session --------------------------------------------- */

static bool excluded(unsigned excl, const struct record *r)
{
	switch (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_USER:
		return excl & EXCL_USER;
	case PERF_RECORD_MISC_KERNEL:
		return excl & EXCL_KERNEL;
	case PERF_RECORD_MISC_HYPERVISOR:
		return excl & EXCL_HV;
	case PERF_RECORD_MISC_GUEST_KERNEL:
	case PERF_RECORD_MISC_GUEST_USER:
		return excl & EXCL_GUEST;
	default:
		return false;
	}
}

static bool in_focus(const struct session_replay *r, pid_t pid)
{
	if (r->nfocus == 0)
		return true;
	for (size_t i = 0; i < r->nfocus; i++)
		if (r->focus[i] == pid)
			return true;
	return false;
}

static const struct pdread_buildid *bid_of(const struct session_replay *r, const char *path)
{
	uint64_t k = util_hash64(path, strlen(path), 0);

	for (size_t i = htab_first(&r->bid_by_path, k); i != SIZE_MAX; i = htab_next(&r->bid_by_path, k, i)) {
		const struct pdread_buildid *b = &r->bids[r->bid_by_path.tab[i].val - 1];

		if (strcmp(b->path, path) == 0)
			return b;
	}
	return NULL;
}

/* A batch's samples alike into the session. */
static void batched(void *arg, const struct tally_slot *b)
{
	struct engine_samples es = { .ip = b->ip, .period = b->period, .pid = b->pid, .tid = b->tid, .cpu = b->cpu,
				     .n = b->n, .misc = b->misc };

	session_samples(arg, (int)b->key, &es);
}

static void flush(struct session *s, struct session_replay *r)
{
	if (!tally_empty(r->batch))
		tally_take(r->batch, batched, s);
}

/* A flat sample into the batch; false when it goes its own way (a stack). */
static bool batch_sample(struct session *s, struct session_replay *r, const struct record *rec, int ev)
{
	uint16_t misc = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (rec->sample.ips || rec->sample.regs)
		return false;
	if (tally_add(r->batch, (uint64_t)ev, rec->sid.cpu, rec->sid.pid, rec->sid.tid, rec->sample.ip, misc,
			rec->sample.period))
		return true;
	flush(s, r);
	return tally_add(r->batch, (uint64_t)ev, rec->sid.cpu, rec->sid.pid, rec->sid.tid, rec->sample.ip, misc,
			   rec->sample.period);
}

static void apply(struct session *s, struct session_replay *r)
{
	struct record *rec = &r->rec;
	int ev = r->rec_ev;

	if (rec->type != PERF_RECORD_SAMPLE)
		flush(s, r); /* the samples before it count under what was before it */
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if (ev < 0 || !r->enabled[ev] || excluded(r->excl[ev], rec) ||
		    ((r->excl[ev] & EXCL_IDLE) && rec->sid.pid == 0) || !in_focus(r, (pid_t)rec->sid.pid))
			return;
		r->applied++;
		if (batch_sample(s, r, rec, ev))
			return;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const struct pdread_buildid *b;

		/* The kernel and its modules are kallsyms' (perf's own maps of them). */
		if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL || (int32_t)rec->mmap.pid < 0)
			return;
		/* Another machine's device and inode say nothing here: the file
		 * is its build-id when the recording names one, else its path. */
		rec->mmap.maj = rec->mmap.min = 0;
		rec->mmap.ino = rec->mmap.ino_generation = 0;
		if (rec->mmap.build_id == NULL && (b = bid_of(r, rec->mmap.filename)) != NULL && b->len) {
			rec->mmap.build_id = b->id;
			rec->mmap.build_id_size = b->len;
		}
		break;
	}
	default:
		break;
	}
	session_record(s, ev, rec);
}

/* The session's interval (session_interval's, read here: session.c calls
 * this file, not the other way). */
static double interval_s(const struct session *s)
{
	double d;

	__atomic_load(&s->interval, &d, __ATOMIC_RELAXED);
	return d > 0 ? d : s->opts->interval;
}

static uint64_t interval_ns(const struct session *s)
{
	double d = interval_s(s);

	return d > 0 ? (uint64_t)(d * 1e9) : 1000000000ull;
}

/* Applies records up to the current interval's recorded end: 1 when an
 * interval ended, 0 at the file's end (the last, partial one), -1. */
static int advance(struct session *s, struct session_replay *r)
{
	for (;;) {
		uint64_t t;

		if (!r->have) {
			int rc = pdread_next(r->rd, &r->rec, &r->rec_ev, r->err, sizeof(r->err));

			if (rc < 0) {
				flush(s, r);
				return -1;
			}
			if (rc == 0) {
				flush(s, r);
				r->eof = true;
				r->lap = r->started && r->newest > r->iv_start ? (double)(r->newest - r->iv_start) / 1e9 : 0;
				return 0;
			}
			r->have = true;
		}
		t = r->rec.sid.time;
		if (t) {
			if (!r->started) {
				r->started = true;
				r->iv_start = t;
				r->edge = t + interval_ns(s);
			} else if (t >= r->edge) {
				flush(s, r);
				r->lap = (double)(r->edge - r->iv_start) / 1e9;
				r->iv_start = r->edge;
				r->edge += interval_ns(s);
				return 1;
			}
			if (t > r->newest)
				r->newest = t;
		}
		apply(s, r);
		r->have = false;
	}
}

static void add_notice(struct session *s, const char *n)
{
	if (n && n[0] && s->nnotices < SESSION_NOTICES)
		s->notices[s->nnotices++] = n;
}

/* The notices: files that did not match, the kernel's symbols, the state. */
static void describe_state(struct session *s, struct session_replay *r)
{
	const char *first;
	size_t n = symbols_replay_unmatched(s->syms, &first);

	if (n)
		snprintf(r->notice_files, sizeof(r->notice_files), "%zu file%s of the recording not found with %s "
			 "build-id (%s%s): %s samples are [unknown]", n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
			 first, n == 1 ? "" : ", ...", n == 1 ? "its" : "their");
	if (r->ended)
		snprintf(r->notice_end, sizeof(r->notice_end), "replay of %s ended: q quits", r->name);
	else if (r->paused)
		snprintf(r->notice_end, sizeof(r->notice_end), "replay paused: Z resumes, . plays one interval");
	else
		r->notice_end[0] = '\0';
	s->nnotices = 0;
	add_notice(s, r->notice_end);
	add_notice(s, r->notice_kernel);
	add_notice(s, r->notice_files);
	add_notice(s, symbols_notice(s->syms));
}

/* One interval played and shown (front->tick), or the last one at the end. */
static int play_interval(struct session *s, struct session_replay *r, const struct engine_handlers *front)
{
	int rc;

	if (r->ended)
		return 0;
	rc = advance(s, r);
	if (rc < 0) {
		r->failed = true;
		r->ended = true;
		return -EIO;
	}
	if (rc == 0)
		r->ended = true;
	describe_state(s, r);
	if (front->tick)
		front->tick(front->arg);
	return 0;
}

/* --- the loop ----------------------------------------------------------------- */

static int arm(struct session *s, struct session_replay *r)
{
	double period = r->paused || r->ended || r->fast ? 0 : interval_s(s) / r->speed;
	struct itimerspec its = { 0 };

	if (period == r->armed)
		return 0;
	if (period > 0) {
		its.it_interval.tv_sec = (time_t)period;
		its.it_interval.tv_nsec = (long)((period - (double)(time_t)period) * 1e9);
		if (its.it_interval.tv_sec == 0 && its.it_interval.tv_nsec == 0)
			its.it_interval.tv_nsec = 1;
		its.it_value = its.it_interval;
	}
	if (timerfd_settime(r->tfd, 0, &its, NULL) != 0)
		return -errno;
	r->armed = period;
	return 0;
}

static int loop_open(struct session_replay *r)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH };
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t set;

	if (r->ep >= 0)
		return 0;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	if (!r->blocked && sigprocmask(SIG_BLOCK, &set, &r->old_mask) != 0)
		return -errno;
	r->blocked = true;
	if ((r->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0 ||
	    (r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		return -errno;
	ev.data.u64 = 0;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->tfd, &ev) != 0)
		return -errno;
	ev.data.u64 = 1;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, r->sfd, &ev) != 0)
		return -errno;
	return 0;
}

static void on_fd(struct session_replay *r, uint64_t which, const struct engine_handlers *front)
{
	if (which == 0) {
		uint64_t n;

		if (read(r->tfd, &n, sizeof(n)) == (ssize_t)sizeof(n) && !r->paused)
			r->step = true;
	} else if (which == 1) {
		struct signalfd_siginfo si;

		while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			bool stop = front->signal ? front->signal(front->arg, (int)si.ssi_signo) : si.ssi_signo != SIGWINCH;

			if (stop)
				r->stopped = true;
		}
	} else if (which - 2 < r->nwatch) {
		r->watch[which - 2].cb(r->watch[which - 2].arg);
	}
}

int session_replay_run(struct session *s, struct engine_handlers *front)
{
	struct session_replay *r = s->replay;
	struct epoll_event evs[WATCH_MAX + 2];
	int rc, n;

	if ((rc = loop_open(r)) != 0)
		return rc;
	r->stopped = false;
	r->armed = -1;
	while (!r->stopped) {
		if ((rc = arm(s, r)) != 0)
			return rc;
		if (r->step) {
			r->step = false;
			if ((rc = play_interval(s, r, front)) != 0)
				return rc;
			if (r->fast && r->ended)
				break; /* -b: the last interval is written */
			continue;
		}
		n = epoll_wait(r->ep, evs, WATCH_MAX + 2, r->fast ? 0 : -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n && !r->stopped; i++)
			on_fd(r, evs[i].data.u64, front);
		if (r->fast)
			r->step = true;
	}
	return 0;
}

/* --- what the session asks ------------------------------------------------------ */

void session_replay_stop(struct session *s)
{
	s->replay->stopped = true;
}

int session_replay_watch_fd(struct session *s, int fd, void (*cb)(void *arg), void *arg)
{
	struct session_replay *r = s->replay;
	struct epoll_event ev = { .events = EPOLLIN };
	int rc;

	if (r->nwatch >= WATCH_MAX)
		return -ENOSPC;
	if ((rc = loop_open(r)) != 0)
		return rc;
	ev.data.u64 = 2 + r->nwatch;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, fd, &ev) != 0)
		return -errno;
	r->watch[r->nwatch++] = (struct watch){ fd, cb, arg };
	return 0;
}

int session_replay_tick_in(struct session *s, double secs)
{
	(void)secs;
	s->replay->step = !s->replay->paused; /* the first table: the first interval at once */
	return 0;
}

double session_replay_lap(const struct session *s)
{
	return s->replay->lap;
}

const char *session_replay_error(const struct session *s)
{
	return s->replay && s->replay->failed ? s->replay->err : NULL;
}

bool session_replaying(const struct session *s)
{
	return s->replay != NULL;
}

void session_replay_pause(struct session *s, bool paused)
{
	s->replay->paused = paused;
	describe_state(s, s->replay);
}

void session_replay_step(struct session *s)
{
	s->replay->step = true;
}

double session_replay_speed(struct session *s, int dir)
{
	struct session_replay *r = s->replay;

	if (dir > 0 && r->speed < SPEED_MAX)
		r->speed *= 2;
	else if (dir < 0 && r->speed > SPEED_MIN)
		r->speed /= 2;
	return r->speed;
}

void session_replay_state(const struct session *s, struct session_replay_state *st)
{
	const struct session_replay *r = s->replay;
	const struct pdread_info *in = pdread_info(r->rd);

	memset(st, 0, sizeof(*st));
	st->speed = r->speed;
	st->paused = r->paused;
	st->ended = r->ended;
	if (r->started && in->first_sample && r->newest >= in->first_sample)
		st->at = (double)(r->newest - in->first_sample) / 1e9;
	if (in->last_sample > in->first_sample)
		st->length = (double)(in->last_sample - in->first_sample) / 1e9;
}

void session_replay_event(const struct session *s, size_t ev, struct session_event *out)
{
	const struct pdread_event *e = pdread_event(s->replay->rd, ev);

	out->name = e ? e->name : "";
	out->enabled = e && s->replay->enabled[ev];
	out->exclude = e ? s->replay->excl[ev] | evspec_exclude_bits(&e->attr) : 0;
}

int session_replay_enable_event(struct session *s, size_t ev, bool on)
{
	if (ev >= pdread_nevents(s->replay->rd))
		return -EINVAL;
	s->replay->enabled[ev] = on;
	return 0;
}

/* Excluding leaves out the recorded samples of those modes from now on;
 * what the recording excluded stays out. */
int session_replay_set_exclude(struct session *s, size_t ev, unsigned excl, char *err, size_t errlen)
{
	const struct pdread_event *e = pdread_event(s->replay->rd, ev);
	unsigned rec = e ? evspec_exclude_bits(&e->attr) : 0;

	if (e == NULL)
		return -EINVAL;
	if ((excl & rec) != rec) {
		if (err)
			snprintf(err, errlen, "the recording has no samples of that mode to include");
		return -EINVAL;
	}
	s->replay->excl[ev] = excl & ~rec;
	return 0;
}

static int fresh_agg(struct session *s, char *err, size_t errlen)
{
	size_t nev = pdread_nevents(s->replay->rd), nk = 0;
	enum agg_gkey keys[AGG_GK_COUNT];

	nk = agg_group_carry(s->agg, s->opts->sort_keys, keys);
	agg_free(s->agg);
	if ((s->agg = agg_new(nev, s->replay->cpus, s->replay->ncpus)) == NULL ||
	    agg_group_keys(s->agg, keys, nk) == -ENOMEM) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < nev; i++)
		strlcpy(agg_event(s->agg, i)->name, pdread_event(s->replay->rd, i)->name,
			sizeof(agg_event(s->agg, i)->name));
	session_srcline_on(s);
	return 0;
}

/* The live view's focus (Enter) and back (Esc): only these processes'
 * samples count from here, in a fresh table. A rate cannot change. */
int session_replay_reopen(struct session *s, const struct session_target *t, char *err, size_t errlen)
{
	struct session_replay *r = s->replay;

	if (t->freq || t->period || t->keep_agg || t->cgroup) {
		snprintf(err, errlen, "a replay plays what was recorded: its rate and target stay");
		return -EOPNOTSUPP;
	}
	r->nfocus = 0;
	for (size_t i = 0; t->pids && i < t->npids && i < sizeof(r->focus) / sizeof(r->focus[0]); i++)
		r->focus[r->nfocus++] = t->pids[i];
	if (r->nfocus)
		snprintf(s->target, sizeof(s->target), "%s, PID %d", r->name, (int)r->focus[0]);
	else
		snprintf(s->target, sizeof(s->target), "%s", r->name);
	return fresh_agg(s, err, errlen);
}

/* --- opening ------------------------------------------------------------------ */

/* Where the kernel's symbols come from: this kernel's when the recording's
 * is this one (by build-id, else by release), else the kallsyms perf
 * record kept in its build-id cache, else none (with a notice). */
static bool kernel_source(struct session_replay *r, const char *cache, char *kpath, size_t len)
{
	const struct pdread_info *in = pdread_info(r->rd);
	const struct pdread_buildid *kb = NULL;
	uint8_t here[20];
	int hn = symbols_kernel_build_id(NULL, here);
	struct utsname u;

	for (size_t i = 0; i < r->nbids; i++)
		if (r->bids[i].kernel && strncmp(r->bids[i].path, "[kernel.kallsyms]", 17) == 0)
			kb = &r->bids[i];
	if ((kb == NULL && (in->osrelease[0] == '\0' || (uname(&u) == 0 && strcmp(in->osrelease, u.release) == 0))) ||
	    (kb && hn > 0 && (size_t)hn == kb->len && memcmp(here, kb->id, kb->len) == 0)) {
		strlcpy(kpath, "/proc/kallsyms", len);
		return true;
	}
	if (kb && symbols_replay_kallsyms(cache, kb->id, kb->len, kpath, len) == 0)
		return false;
	strlcpy(kpath, "/dev/null", len); /* no symbols: kernel samples are [unknown] */
	snprintf(r->notice_kernel, sizeof(r->notice_kernel), "the recording's kernel is not this one and perf kept "
		 "no kallsyms of it in its build-id cache: kernel samples are [unknown]");
	return false;
}

static void index_build_ids(struct session_replay *r)
{
	r->nbids = pdread_buildids(r->rd, &r->bids);
	for (size_t i = 0; i < r->nbids; i++)
		if (!r->bids[i].kernel)
			htab_put(&r->bid_by_path, util_hash64(r->bids[i].path, strlen(r->bids[i].path), 0), i + 1);
}

static int open_symbols(struct session *s, const struct options *o, char *err, size_t errlen)
{
	struct session_replay *r = s->replay;
	char cache[4096] = "", kpath[4096], kcache[4096];
	struct symbols_opts so = { .proc_root = "/proc", .kallsyms_path = kpath };
	const char *home = getenv("HOME");
	bool native;

	if (home && home[0] == '/')
		snprintf(cache, sizeof(cache), "%s/.debug", home);
	native = kernel_source(r, cache, kpath, sizeof(kpath));
	if ((s->syms = symbols_new(&so)) == NULL ||
	    (symbols_cache_dir(kcache, sizeof(kcache)) == 0 &&
	     ((native && !o->no_kallsyms_cache && symbols_set_kcache(s->syms, kcache, NULL, NULL) != 0) ||
	      (!o->no_symbol_cache && symbols_set_symbol_cache(s->syms, kcache) != 0)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	symbols_set_demangle(s->syms, !o->no_demangle);
	symbols_set_replay(s->syms, cache[0] ? cache : NULL);
	symbols_set_chain_rate(s->syms, 4000);
	symbols_load_kernel(s->syms);
	return 0;
}

int session_replay_open(struct session *s, struct options *o, char *err, size_t errlen)
{
	struct session_replay *r;
	const struct pdread_info *in;
	char host[64];
	size_t nev;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->batch = tally_new(REPLAY_BATCH_BITS, REPLAY_BATCH_PROBE)) == NULL || htab_init(&r->bid_by_path, 64) != 0) {
		if (r)
			tally_free(r->batch);
		free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->replay = r;
	r->ep = r->tfd = r->sfd = -1;
	r->speed = 1;
	r->fast = o->batch;
	if ((rc = pdread_open(&r->rd, o->input, err, errlen)) != 0)
		return rc;
	nev = pdread_nevents(r->rd);
	if (nev == 0) {
		snprintf(err, errlen, "%s: no sampling event in it (only tracking): nothing to show", o->input);
		return -EINVAL;
	}
	for (size_t i = 0; i < nev; i++)
		r->enabled[i] = true;
	in = pdread_info(r->rd);
	/* Call graphs when the samples carry them, shown as perf report does:
	 * children first (-g --no-children: self). */
	if (pdread_callchains(r->rd) && o->cg.mode == CALLGRAPH_NONE) {
		o->cg.mode = CALLGRAPH_FP;
		o->children = true;
	}
	if (o->cg.mode != CALLGRAPH_NONE && o->cg.max_stack == 0)
		o->cg.max_stack = SESSION_STACK_MAX;
	/* The rate shown is the recording's (its first event's). */
	o->freq = pdread_event(r->rd, 0)->attr.freq ? pdread_event(r->rd, 0)->attr.sample_freq : 0;
	o->period = o->freq ? 0 : pdread_event(r->rd, 0)->attr.sample_period;
	s->opts = o;
	s->interval = o->interval;
	r->ncpus = in->nr_cpus_avail ? in->nr_cpus_avail : in->nr_cpus_online ? in->nr_cpus_online : 256;
	if (r->ncpus > CPUMAP_MAX)
		r->ncpus = CPUMAP_MAX;
	for (size_t i = 0; i < r->ncpus; i++)
		r->cpus[i] = (int)i;
	sanitize(r->name, sizeof(r->name), strcmp(o->input, "-") ? o->input : "stdin");
	index_build_ids(r);
	if ((rc = open_symbols(s, o, err, errlen)) != 0 || (rc = fresh_agg(s, err, errlen)) != 0)
		return rc;
	sanitize(host, sizeof(host), in->hostname);
	snprintf(s->target, sizeof(s->target), "%s%s%s%s", r->name, host[0] ? " (recorded on " : "", host,
		 host[0] ? ")" : "");
	describe_state(s, r);
	return 0;
}

void session_replay_close(struct session *s)
{
	struct session_replay *r = s->replay;

	if (r == NULL)
		return;
	pdread_close(r->rd);
	tally_free(r->batch);
	htab_free(&r->bid_by_path);
	if (r->ep >= 0)
		close(r->ep);
	if (r->tfd >= 0)
		close(r->tfd);
	if (r->sfd >= 0)
		close(r->sfd);
	if (r->blocked)
		sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
	free(r);
	s->replay = NULL;
}
