/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_offcpu: --off-cpu's records applied. A sched_switch sample is a
 * switch-out of prev and a switch-in of next; a PERF_RECORD_SWITCH (in) a
 * switch-in of a -p/-t/-G thread. The switch-out's stack becomes an id
 * (spans_stack) keyed by its addresses as -g's leaf fix gives them: blocked
 * threads repeat their stacks, so only a new one has its scheduler frames
 * left out (the leaf is then the kernel's wait function) and is kept. A
 * span that ends is added to a pending charge per (stack, thread, CPU);
 * those are resolved and charged to the wait agg's one event, in ns, once
 * each: at the interval's end (where the views, dumps and exports read the
 * wait agg), before a record changes the names or maps they would resolve
 * with (a COMM, FORK, EXIT or MMAP of their process), and at the latest
 * every OFFCPU_FLUSH_NS of records (a long -d). The tracepoint's fields are found in its
 * format once, at open. sched:sched_waking's records (the engine's, best
 * effort) keep the waker's stack for the woken thread; the span its
 * switch-in ends is charged with it to the wake agg too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "htab.h"
#include "tpformat.h"
#include "session_wakers.h"
#include "session_offbpf.h"

struct session_offcpu {
	bool ok;                  /* the format was read */
	/* Kernel addresses seen at the top of switch stacks: 1 a scheduler
	 * frame (left out), 2 not; each resolved once. */
	struct htab sched;
	char notice[256];         /* else why, for the notices */
	struct tpformat fmt;
	const struct tpformat_field *prev_pid, *prev_state, *next_pid;
	uint64_t thresh_ns;
	struct session_wakers *wk; /* NULL: no sched_waking format, no wakers */
	struct session_offbpf *bpf; /* summed in the kernel (s->offcpu_bpf), else NULL */
	char fmt_err[256];        /* the format not read (the kernel's way needs none): why */
};

static int bpf_on(struct session *s, char *err, size_t errlen);
static void bpf_off(struct session *s);
static void flush(struct session *s, pid_t pid);
static int to_records(struct session *s, char *err, size_t errlen);

/* An agg like the wait agg (one event, "off-cpu"): the wake agg's. */
static struct agg *wait_agg(struct session *s)
{
	int cpus[CPUMAP_MAX];
	size_t n = engine_ncpus(s->eng) < CPUMAP_MAX ? engine_ncpus(s->eng) : CPUMAP_MAX;
	struct agg *a;

	for (size_t i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	if ((a = agg_new(1, cpus, n)) != NULL)
		snprintf(agg_event(a, 0)->name, sizeof(agg_event(a, 0)->name), "off-cpu");
	return a;
}

/* Pending charges are flushed at least this often (in records' time).
 * Measured on a ping-pong, every 100 ms: a charge per 23 spans, the
 * charges a third of --off-cpu's cost; per interval it is the stacks and
 * threads seen in it that are charged, once each. */
#define OFFCPU_FLUSH_NS 5000000000ull

static int load_format(struct session_offcpu *o, char *err, size_t errlen)
{
	int rc = tpformat_load("sched", "sched_switch", &o->fmt);

	if (rc == -ENOENT || rc == -ENODEV) {
		snprintf(err, errlen, "--off-cpu: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "--off-cpu: cannot read tracefs's sched/sched_switch/format (%s): run as root",
			 strerror(-rc));
		return rc;
	}
	o->prev_pid = tpformat_find(&o->fmt, "prev_pid");
	o->prev_state = tpformat_find(&o->fmt, "prev_state");
	o->next_pid = tpformat_find(&o->fmt, "next_pid");
	if (o->prev_pid == NULL || o->prev_state == NULL || o->next_pid == NULL) {
		snprintf(err, errlen, "--off-cpu: sched:sched_switch's format lacks prev_pid, prev_state or next_pid");
		return -EINVAL;
	}
	return 0;
}

int session_offcpu_open(struct session *s, char *err, size_t errlen)
{
	int cpus[CPUMAP_MAX];
	size_t n = engine_ncpus(s->eng) < CPUMAP_MAX ? engine_ncpus(s->eng) : CPUMAP_MAX;
	int rc;

	if (s->off && s->off->ok)
		return 0;
	for (size_t i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	if (s->off == NULL && (s->off = calloc(1, sizeof(*s->off))) == NULL)
		goto nomem;
	if ((rc = load_format(s->off, s->off->fmt_err, sizeof(s->off->fmt_err))) != 0 && !s->offcpu_bpf) {
		snprintf(err, errlen, "%s", s->off->fmt_err);
		snprintf(s->off->notice, sizeof(s->off->notice), "%s", s->off->fmt_err);
		return rc;
	}
	if (rc == 0)
		s->off->fmt_err[0] = '\0';
	s->off->notice[0] = '\0';
	s->off->ok = true;
	s->off->thresh_ns = (uint64_t)(s->opts->offcpu_thresh_ms * 1e6);
	s->spans = spans_new(s->off->thresh_ns);
	s->wait = agg_new(1, cpus, n);
	if (s->spans == NULL || s->wait == NULL)
		goto nomem;
	snprintf(agg_event(s->wait, 0)->name, sizeof(agg_event(s->wait, 0)->name), "off-cpu");
	if (s->off->wk == NULL)
		s->off->wk = session_wakers_new();
	s->wake = s->off->wk ? wait_agg(s) : NULL;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void session_offcpu_fresh(struct session *s)
{
	int cpus[CPUMAP_MAX];
	size_t n = engine_ncpus(s->eng) < CPUMAP_MAX ? engine_ncpus(s->eng) : CPUMAP_MAX;
	struct agg *a;

	if (s->wait == NULL || s->spans == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		cpus[i] = engine_cpu(s->eng, i);
	if ((a = agg_new(1, cpus, n)) == NULL)
		return; /* the old tables stay */
	snprintf(agg_event(a, 0)->name, sizeof(agg_event(a, 0)->name), "off-cpu");
	agg_free(s->wait);
	s->wait = a;
	if (s->wake && (a = wait_agg(s)) != NULL) {
		agg_free(s->wake);
		s->wake = a;
	}
	spans_free(s->spans);
	s->spans = spans_new(s->off->thresh_ns);
}

void session_offcpu_roll(struct session *s, unsigned decay_pct)
{
	/* Before the spans drop the stacks nothing used lately; what the
	 * kernel summed since the views read is the next interval's. */
	flush(s, -1);
	if (s->wait)
		agg_roll(s->wait, decay_pct);
	if (s->wake)
		agg_roll(s->wake, decay_pct);
	if (s->spans)
		spans_roll(s->spans);
	if (s->eng && s->wakers_want)
		(void)engine_offcpu_waking_refresh(s->eng); /* best effort: the old filter stays */
}

void session_offcpu_close(struct session *s)
{
	if (s->off) {
		session_offbpf_free(s->off->bpf);
		htab_free(&s->off->sched);
	}
	if (s->off)
		session_wakers_free(s->off->wk);
	agg_free(s->wake);
	s->wake = NULL;
	agg_free(s->wait);
	spans_free(s->spans);
	free(s->off);
	s->wait = NULL;
	s->spans = NULL;
	s->off = NULL;
}

int session_offcpu_set(struct session *s, bool on, char *err, size_t errlen)
{
	int rc;

	/* On: the kernel's way when wished (its failure a notice, the
	 * records' way then); off: whichever is on. */
	if (on && !session_offcpu_on(s))
		s->offcpu_bpf = session_offcpu_bpf_wish(s);
	if (on && (rc = session_offcpu_open(s, err, errlen)) != 0)
		return rc;
	session_offcpu_settle(s);
	if (on && s->offcpu_bpf)
		rc = bpf_on(s, err, errlen);
	else if (!on && s->offcpu_bpf) {
		bpf_off(s);
		rc = 0;
	} else
		rc = engine_offcpu_set(s->eng, on, err, errlen);
	if (rc != 0)
		return rc;
	s->offcpu_want = on;
	/* Spans open across an off and on again ended unseen. */
	if (s->spans)
		spans_drop_open(s->spans);
	return 0;
}

const char *session_offcpu_notice(const struct session *s)
{
	return s->off && s->off->notice[0] ? s->off->notice : NULL;
}

int session_offcpu_wakers(struct session *s)
{
	int rc;

	if (s->wake == NULL || s->eng == NULL)
		return -ENOENT;
	if (s->offcpu_bpf) {
		char err[256];

		s->wakers_want = true; /* no longer the kernel's way */
		if ((rc = to_records(s, err, sizeof(err))) != 0) {
			s->wakers_want = false;
			return rc;
		}
	}
	if ((rc = engine_offcpu_wakers(s->eng)) == 0)
		s->wakers_want = true;
	return rc;
}

const char *session_offcpu_wakers_note(const struct session *s)
{
	return s->eng ? engine_offcpu_wakers_note(s->eng) : NULL;
}

bool session_offcpu_on(const struct session *s)
{
	return (s->off && session_offbpf_loaded(s->off->bpf)) || (s->eng && engine_offcpu_enabled(s->eng));
}

void session_offcpu_lost(struct session *s, int cpu, uint64_t n)
{
	if (s->spans)
		spans_lost(s->spans, cpu, n);
}

/* The scheduler's own frames, under which every wait looks the same. */
static bool sched_frame(const struct sym_result *f)
{
	const char *n = f->sym;

	if (!f->kernel || n == NULL)
		return false;
	return strstr(n, "schedule") != NULL || strncmp(n, "__traceiter_", 12) == 0 ||
	       strncmp(n, "perf_trace_", 11) == 0 || strstr(n, "cond_resched") != NULL ||
	       strncmp(n, "__perf_", 7) == 0 || strncmp(n, "perf_tp_", 8) == 0 ||
	       /* offbpf's program and what runs it */
	       strncmp(n, "bpf_prog_", 9) == 0 || strncmp(n, "bpf_trace_run", 13) == 0 ||
	       strncmp(n, "__bpf_trace_", 12) == 0 || strncmp(n, "bpf_trampoline_", 15) == 0;
}

/* One pending charge: its stack resolved (the chain cache answers a stack
 * seen before) and counted as its spans summed: their microseconds as
 * samples, their nanoseconds as the period. */
static void charge(void *arg, const struct spans_charge *c)
{
	struct session *s = arg;
	struct sym_result frames[SESSION_STACK_MAX];
	const struct sym_result *fr;
	size_t nwords;
	const uint64_t *w = spans_stack_words(s->spans, c->stack, &nwords);
	uint64_t n = nwords ? w[0] : 0;

	if (s->wait == NULL)
		return;
	if (n == 0 || n > SESSION_STACK_MAX || nwords < 1 + n + (n + 63) / 64) {
		memset(&frames[0], 0, sizeof(frames[0]));
		symbols_resolve(s->syms, c->pid, 0, true, &frames[0]);
		agg_sample_stack_n(s->wait, 0, c->cpu, c->pid, c->tid, frames, 1, c->us, c->ns);
		return;
	}
	/* The scheduler's frames were left out when the stack was first
	 * seen: the chain cache's copy is the stack as charged, the task's
	 * names on its leaf. */
	fr = symbols_resolve_chain(s->syms, c->pid, c->tid, w + 1, w + 1 + n, n, frames);
	agg_sample_stack_n(s->wait, 0, c->cpu, c->pid, c->tid, fr, n, c->us, c->ns);
}


/* Charges what is pending for process pid (every process: -1). */
static void flush(struct session *s, pid_t pid)
{
	bool in = s->in_sample;

	if (s->spans == NULL || !spans_pend_since(s->spans))
		return;
	/* Resolving may load tables: the rings go back to the reader
	 * meanwhile. The record in hand (a COMM, MMAP, ...) is read through
	 * the record after this, never through pointers taken before. */
	s->in_sample = true;
	spans_take(s->spans, pid, charge, s);
	s->in_sample = in;
}

void session_offcpu_settle(struct session *s)
{
	if (s->off)
		(void)session_offbpf_drain(s->off->bpf);
	flush(s, -1);
}

/* Whether kernel address addr is in the scheduler (resolved once). */
static bool sched_addr(struct session *s, uint64_t addr)
{
	struct session_offcpu *o = s->off;
	uintptr_t v = o->sched.tab ? htab_get(&o->sched, addr) : 0;
	struct sym_result sr = { 0 };

	if (v)
		return v == 1;
	symbols_resolve(s->syms, 0, addr, true, &sr);
	v = sched_frame(&sr) ? 1 : 2;
	if (o->sched.tab || htab_init(&o->sched, 256) == 0)
		(void)htab_put(&o->sched, addr, v);
	return v == 1;
}

static void switch_in(struct session *s, pid_t tid, uint64_t time)
{
	struct spans_span sp;
	bool ended = tid > 0 && spans_in(s->spans, tid, time, &sp);

	/* The wakers read the span's stack now: before the flush below,
	 * which may drop the charges that hold it. */
	if (tid > 0 && s->off->wk)
		session_wakers_end(s, s->off->wk, tid, ended ? &sp : NULL);
	if (!ended)
		return;
	if (spans_pend_since(s->spans) && time >= spans_pend_since(s->spans) + OFFCPU_FLUSH_NS)
		flush(s, -1);
	if (spans_pend(s->spans, &sp, time) != 0) {
		struct spans_charge one = { sp.stack, sp.pid, sp.tid, sp.cpu, 1, spans_us(sp.ns), sp.ns };

		charge(s, &one);
	}
}

/* A stack as words: n, n addresses (leaf first), the kernel mask's
 * (n + 63) / 64 words. Returns how many. */
static size_t words_pack(uint64_t *w, const uint64_t *addrs, size_t n, const uint64_t *kmask)
{
	if (addrs != w + 1)
		memmove(w + 1, addrs, n * sizeof(*addrs));
	w[0] = n;
	memcpy(w + 1 + n, kmask, ((n + 63) / 64) * sizeof(*kmask));
	return 1 + n + (n + 63) / 64;
}

/* Packed words key as the span keeps them: the scheduler's frames on top
 * left out, so that the leaf is the kernel's wait function (and every wait
 * does not look the same). Into w (room for as many words as key). */
static size_t sched_skip(struct session *s, const uint64_t *key, uint64_t *w)
{
	size_t n = key[0], k = 0;
	const uint64_t *addrs = key + 1, *km = key + 1 + n;
	uint64_t kmask[SESSION_STACK_MAX / 64] = { 0 };

	while (k + 1 < n && (km[k / 64] >> (k % 64) & 1) && sched_addr(s, addrs[k]))
		k++;
	for (size_t i = 0; i + k < n; i++) {
		size_t j = i + k;

		if (km[j / 64] >> (j % 64) & 1)
			kmask[i / 64] |= 1ull << (i % 64);
	}
	return words_pack(w, addrs + k, n - k, kmask);
}

struct make_arg {
	struct session *s;
	const uint64_t *key;
};

static size_t make_words(void *arg, uint64_t *w, size_t max)
{
	struct make_arg *m = arg;

	(void)max; /* the key's size at most, which spans_stack took */
	return sched_skip(m->s, m->key, w);
}

static bool dwarf_walk(const struct session *s, const struct record *r)
{
	return s->unw && s->opts->cg.mode == CALLGRAPH_DWARF && r->sample.nregs;
}

/* Record r's stack as words, the scheduler's frames left out, a dwarf
 * walk's user frames (from the stack copy) after the chain's. key: the
 * chain's words packed (key_of). Into w; returns how many. */
static size_t stack_words(struct session *s, const struct record *r, const uint64_t *key, uint64_t *w)
{
	uint64_t ips[SESSION_STACK_MAX], kmask0[SESSION_STACK_MAX / 64] = { 0 };
	size_t nw = sched_skip(s, key, w), n = w[0], nu;
	bool complete, ran_off;
	uint32_t used;

	if (!dwarf_walk(s, r) || n >= SESSION_STACK_MAX)
		return nw;
	memcpy(kmask0, w + 1 + n, ((n + 63) / 64) * sizeof(*kmask0));
	nu = unwind_stack(s->unw, (pid_t)r->sid.pid, (pid_t)r->sid.tid, r, ips, SESSION_STACK_MAX - n, &complete);
	/* As a sample's walk does: what it read tells the engine how much of
	 * this process's stack copies to keep (a switch in a deeper call than
	 * the samples saw wants more). */
	unwind_copy_used(s->unw, &used, &ran_off);
	if (ran_off || (complete && used))
		engine_stack_used(s->eng, (pid_t)r->sid.pid, ran_off ? ENGINE_STACK_ALL : used);
	for (size_t i = 0; i < nu; i++)
		w[1 + n++] = i ? ips[i] - 1 : ips[i];
	return words_pack(w, w + 1, n, kmask0);
}

/* The chain's addresses with -g's leaf fix, packed as words into key. */
static size_t key_of(struct session *s, const struct record *r, uint64_t *key)
{
	uint64_t kmask[SESSION_STACK_MAX / 64];
	size_t n = session_addrs_of(s, r, key + 1, kmask, SESSION_STACK_MAX);

	return words_pack(key, key + 1, n, kmask);
}

/* The leaving task's stack as an id. Keyed by its addresses with -g's leaf
 * fix: a stack seen before is found there, nothing else worked out. A dwarf
 * walk's user frames come from the stack copy, not the chain: there the
 * whole stack is worked out and is its own key. */
static uint32_t stack_id(struct session *s, const struct record *r)
{
	uint64_t key[1 + SESSION_STACK_MAX + SESSION_STACK_MAX / 64];
	uint64_t w[1 + SESSION_STACK_MAX + SESSION_STACK_MAX / 64];
	size_t nk = key_of(s, r, key);
	struct make_arg m = { s, key };

	if (!dwarf_walk(s, r))
		return spans_stack(s->spans, key, nk, make_words, &m);
	return spans_stack(s->spans, w, stack_words(s, r, key, w), NULL, NULL);
}

/* A sched_waking: its (the waker's) stack kept for the woken thread. */
static void waking(struct session *s, const struct record *r, pid_t woken)
{
	uint64_t key[1 + SESSION_STACK_MAX + SESSION_STACK_MAX / 64];
	uint64_t w[1 + SESSION_STACK_MAX + SESSION_STACK_MAX / 64];

	if (woken > 0) {
		(void)key_of(s, r, key);
		session_wakers_keep(s->off->wk, woken, r, w, stack_words(s, r, key, w));
	}
}

void session_offcpu_record(struct session *s, const struct record *r)
{
	struct session_offcpu *o = s->off;
	int64_t prev, state, next;
	pid_t woken;

	if (o == NULL || !o->ok || s->spans == NULL)
		return;
	if (r->type == PERF_RECORD_SWITCH) {
		if (!(r->misc & PERF_RECORD_MISC_SWITCH_OUT))
			switch_in(s, (pid_t)r->sid.tid, r->sid.time);
		return;
	}
	if (r->type == PERF_RECORD_SAMPLE && o->wk && session_wakers_is(o->wk, r, &woken)) {
		waking(s, r, woken);
		return;
	}
	if (r->type != PERF_RECORD_SAMPLE || r->sample.raw == NULL ||
	    !tpformat_int(o->prev_pid, r->sample.raw, r->sample.raw_size, &prev) ||
	    !tpformat_int(o->prev_state, r->sample.raw, r->sample.raw_size, &state) ||
	    !tpformat_int(o->next_pid, r->sample.raw, r->sample.raw_size, &next))
		return;
	/* The idle task (0) does not wait. */
	if (prev > 0)
		(void)spans_out(s->spans, (pid_t)r->sid.pid, (pid_t)prev, (int)r->sid.cpu, r->sid.time,
				spans_state_of(state), stack_id(s, r));
	if (next > 0)
		switch_in(s, (pid_t)next, r->sid.time);
}

static void track(struct agg *a, const struct record *r)
{
	switch (r->type) {
	case PERF_RECORD_COMM:
		if (r->misc & PERF_RECORD_MISC_COMM_EXEC)
			agg_task_new(a, (pid_t)r->comm.pid);
		if (r->comm.pid == r->comm.tid)
			agg_task_comm(a, (pid_t)r->comm.pid, r->comm.comm);
		agg_thread_comm(a, (pid_t)r->comm.tid, r->comm.comm);
		break;
	case PERF_RECORD_FORK:
		if (r->task.pid == r->task.tid)
			agg_task_new(a, (pid_t)r->task.pid);
		break;
	case PERF_RECORD_EXIT:
		if (r->task.pid == r->task.tid)
			agg_task_exit(a, (pid_t)r->task.pid);
		else
			agg_thread_exit(a, (pid_t)r->task.tid);
		break;
	default:
		break;
	}
}

/* The wake agg's tasks are named and aged as the wait agg's: a waker that
 * exec'd or whose pid was reused is not shown under its old comm. */
void session_offcpu_track(struct session *s, const struct record *r)
{
	/* What is pending resolves with the names and maps it ended under. */
	switch (r->type) {
	case PERF_RECORD_COMM:
		if (s->off && (r->misc & PERF_RECORD_MISC_COMM_EXEC))
			session_offbpf_gone(s->off->bpf, (pid_t)r->comm.pid);
		flush(s, (pid_t)r->comm.pid);
		break;
	case PERF_RECORD_EXIT:
		if (s->off && r->task.pid == r->task.tid)
			session_offbpf_gone(s->off->bpf, (pid_t)r->task.pid);
		flush(s, (pid_t)r->task.pid);
		break;
	case PERF_RECORD_FORK:
		flush(s, (pid_t)r->task.pid);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		flush(s, (pid_t)r->mmap.pid);
		break;
	default:
		break;
	}
	track(s->wait, r);
	if (s->wake)
		track(s->wake, r);
	/* -p: a thread born in the target joins sched_waking's filter (the
	 * engine re-opens it at the next tick), one gone leaves it. */
	if (s->eng && s->wakers_want && (r->type == PERF_RECORD_FORK || r->type == PERF_RECORD_EXIT))
		engine_offcpu_waking_thread(s->eng, (pid_t)r->task.tid, r->type == PERF_RECORD_FORK);
}

/* --- summed in the kernel (session_offbpf) ------------------------------ */

static size_t skip_cb(struct session *s, const uint64_t *key, uint64_t *w) { return sched_skip(s, key, w); }

bool session_offcpu_bpf_wish(const struct session *s)
{
	const struct options *o = s->opts;

	/* A recording keeps the records; the kernel walks frame pointers
	 * only (not dwarf, not LBR); W's wakers meet the switches in the
	 * records' time order. */
	if (o == NULL || o->offcpu_via == OFFCPU_VIA_RECORDS || s->wakers_want || s->replay)
		return false;
	return o->offcpu_via == OFFCPU_VIA_BPF ||
	       (offbpf_built() && o->record == NULL && (o->cg.mode == CALLGRAPH_NONE || o->cg.mode == CALLGRAPH_FP));
}

int session_offcpu_target(struct session *s, const struct session_target *t)
{
	char quiet[256];

	if (s->off == NULL && (s->off = calloc(1, sizeof(*s->off))) == NULL)
		return -ENOMEM;
	if (s->off->bpf == NULL && (s->off->bpf = session_offbpf_new(s, skip_cb)) == NULL)
		return -ENOMEM;
	return session_offbpf_target(s->off->bpf, t, quiet, sizeof(quiet)) == -ENOMEM ? -ENOMEM : 0;
}

/* The records' way instead: the engine's sched_switch. */
static int records_on(struct session *s, char *err, size_t errlen)
{
	s->offcpu_bpf = false;
	if (s->off && s->off->fmt_err[0]) {
		snprintf(err, errlen, "%s", s->off->fmt_err);
		return -ENOENT;
	}
	return engine_offcpu_set(s->eng, true, err, errlen);
}

/* The kernel's way failed (why): the records' way, and a notice saying
 * so (or why that failed too, also in err). */
static int fall_back(struct session *s, const char *why, char *err, size_t errlen)
{
	int rc;

	snprintf(s->off->notice, sizeof(s->off->notice), "%.200s; reading sched_switch records instead", why);
	if ((rc = records_on(s, err, errlen)) != 0)
		snprintf(s->off->notice, sizeof(s->off->notice), "%.120s; %.130s", why, err);
	return rc;
}

/* The kernel's way; on its failure, unless --off-cpu-via bpf, the records'. */
static int bpf_on(struct session *s, char *err, size_t errlen)
{
	char why[200];
	int rc;

	s->offcpu_bpf = true;
	if ((rc = session_offbpf_load(s->off->bpf, why, sizeof(why))) == 0)
		return 0;
	s->offcpu_bpf = false;
	if (s->opts->offcpu_via == OFFCPU_VIA_BPF) {
		snprintf(err, errlen, "%s", why);
		return rc;
	}
	return fall_back(s, why, err, errlen);
}

int session_offcpu_begin(struct session *s, char *err, size_t errlen)
{
	int rc;

	if (!s->offcpu_bpf) {
		/* Its failure is a notice (describe): the rest runs on. */
		if (engine_offcpu_enabled(s->eng) && session_offcpu_open(s, err, errlen) != 0)
			(void)engine_offcpu_set(s->eng, false, err, errlen);
		return 0;
	}
	if ((rc = session_offcpu_open(s, err, errlen)) != 0)
		return rc == -ENOMEM ? rc : 0;
	rc = bpf_on(s, err, errlen);
	/* Only the kernel's way asked for stops perftop; else a notice. */
	return rc != 0 && s->opts->offcpu_via == OFFCPU_VIA_BPF ? rc : 0;
}

void session_offcpu_retarget(struct session *s, const struct session_target *t)
{
	char why[256], err[256];

	if (s->off == NULL || s->off->bpf == NULL) {
		(void)session_offcpu_target(s, t); /* out of memory: the next load fails and says so */
		return;
	}
	if (session_offbpf_target(s->off->bpf, t, why, sizeof(why)) != 0 && s->offcpu_bpf)
		(void)fall_back(s, why, err, sizeof(err));
}

/* Off: what the kernel still holds is charged first. */
static void bpf_off(struct session *s)
{
	if (s->off && session_offbpf_loaded(s->off->bpf)) {
		session_offcpu_settle(s);
		session_offbpf_unload(s->off->bpf);
	}
	s->offcpu_bpf = false;
}

/* W wants sched_waking's records beside the switch records: the records' way. */
static int to_records(struct session *s, char *err, size_t errlen)
{
	if (!s->offcpu_bpf)
		return 0;
	bpf_off(s);
	if (s->spans)
		spans_drop_open(s->spans);
	return records_on(s, err, errlen);
}

bool session_offcpu_started(struct session *s)
{
	char why[256], err[256];

	/* Loaded but refused at attach: the records' way, and a notice. */
	if (s->off == NULL || !session_offbpf_loaded(s->off->bpf) ||
	    session_offbpf_attach(s->off->bpf, why, sizeof(why)) == 0)
		return false;
	(void)fall_back(s, why, err, sizeof(err));
	return true;
}

bool session_offcpu_in_kernel(const struct session *s) { return s->off && session_offbpf_loaded(s->off->bpf); }

bool session_offcpu_bpf_stats(const struct session *s, struct offbpf_stats *st)
{
	return s->off && session_offbpf_stats(s->off->bpf, st);
}
