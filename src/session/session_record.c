/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_record: the engine's records applied: a sample resolved (its
 * stack worked out, -g's leaf fix with it) and counted into the agg; maps,
 * names, forks and exits handed to the symbols, the agg and the unwinder. */
#include "session.h"

#include <string.h>
#include <sys/mman.h>

/* Frames of a sample's callchain, leaf first, worked out first (the leaf
 * fix with them), then resolved whole, so that a repeated stack is one
 * lookup. *out: frames or the symbols' cached copy (see
 * symbols_resolve_chain). */
static size_t chain_frames(struct session *s, const struct record *r, struct sym_result *frames, size_t max,
			   const struct sym_result **out)
{
	uint64_t addrs[SESSION_STACK_MAX], kmask[SESSION_STACK_MAX / 64];
	size_t n = session_addrs_of(s, r, addrs, kmask, max);

	*out = n ? symbols_resolve_chain(s->syms, (pid_t)r->sid.pid, (pid_t)r->sid.tid, addrs, kmask, n, frames)
		 : frames;
	return n;
}

/* --call-graph dwarf: the user half of the stack, unwound from the copy;
 * a stack cut short ends in [unknown]. */
static size_t user_frames(struct session *s, const struct record *r, struct sym_result *frames, size_t max)
{
	uint64_t ips[SESSION_STACK_MAX];
	size_t n = max < s->opts->cg.max_stack ? max : s->opts->cg.max_stack, k;
	bool complete;
	pid_t pid = (pid_t)r->sid.pid;

	if (n < 2)
		return 0;
	s->in_sample = false; /* as in find_map (and dwarf is never read in place) */
	k = unwind_stack(s->unw, pid, (pid_t)r->sid.tid, r, ips, n - 1, &complete);
	s->in_sample = true;
	{
		/* What the walk read tells the engine how much of this
		 * process's stack copies to spill. */
		uint32_t used;
		bool ran_off;

		unwind_copy_used(s->unw, &used, &ran_off);
		if (ran_off || (complete && used))
			engine_stack_used(s->eng, pid, ran_off ? ENGINE_STACK_ALL : used);
	}
	for (size_t i = 0; i < k; i++) {
		memset(&frames[i], 0, sizeof(frames[i]));
		symbols_resolve_thread(s->syms, pid, (pid_t)r->sid.tid, i ? ips[i] - 1 : ips[i], false, &frames[i]);
	}
	if (!complete && k) {
		memset(&frames[k], 0, sizeof(frames[k]));
		symbols_resolve(s->syms, pid, 0, false, &frames[k++]);
	}
	return k;
}

/* A sample with a stack: out of line, so that a flat sample's call does not
 * set up the frames' array (SESSION_STACK_MAX of them) on the stack. */
static __attribute__((noinline)) void sample_stack(struct session *s, int ev, const struct record *r)
{
	struct sym_result frames[SESSION_STACK_MAX];
	const struct sym_result *fr;
	size_t n;

	n = chain_frames(s, r, frames, SESSION_STACK_MAX, &fr);
	if (s->unw && s->opts->cg.mode == CALLGRAPH_DWARF && r->sample.nregs && n < SESSION_STACK_MAX) {
		if (fr != frames)
			memcpy(frames, fr, n * sizeof(*frames));
		fr = frames;
		n += user_frames(s, r, frames + n, SESSION_STACK_MAX - n);
	}
	if (n == 0) {
		fr = frames;
		memset(&frames[0], 0, sizeof(frames[0]));
		symbols_resolve_thread(s->syms, (pid_t)r->sid.pid, (pid_t)r->sid.tid, r->sample.ip,
				       session_addrs_kernel(r->misc), &frames[0]);
		n = 1;
	}
	agg_sample_stack(s->agg, (size_t)ev, (int)r->sid.cpu, (pid_t)r->sid.pid, (pid_t)r->sid.tid,
			 fr, n, r->sample.period);
}

/* n flat samples' miss: resolved, and their row found or made. */
static __attribute__((noinline)) void flat_miss(struct session *s, int ev, int cpu, struct agg_where *w,
						uint32_t n, uint64_t period)
{
	struct sym_result sr = { 0 };

	w->tag = symbols_resolve_tagged(s->syms, w->pid, w->tid, w->ip, w->kernel, &sr);
	agg_samples_at(s->agg, (size_t)ev, cpu, w, &sr, n, period);
}

/* n flat samples alike: an IP counted before under the same tags goes
 * through agg's flat memo: no resolve, no row lookup. */
static void flat(struct session *s, int ev, int cpu, pid_t pid, pid_t tid, uint64_t ip, uint16_t misc, uint32_t n,
		 uint64_t period)
{
	struct agg_where w = { .pid = pid, .tid = tid, .ip = ip, .kernel = session_addrs_kernel(misc) };

	w.tag = symbols_tag(s->syms, pid);
	if (!agg_samples_memo(s->agg, (size_t)ev, cpu, &w, n, period))
		flat_miss(s, ev, cpu, &w, n, period);
}

void session_samples(void *arg, int ev, const struct engine_samples *f)
{
	struct session *s = arg;

	/* Only values: the rings may go back while they resolve. */
	s->in_sample = true;
	flat(s, ev, (int)f->cpu, (pid_t)f->pid, (pid_t)f->tid, f->ip, f->misc, f->n, f->period);
	s->in_sample = false;
}

static void sample(struct session *s, int ev, const struct record *r)
{
	/* A call-graph layout gives every sample a stack, if only its own frame. */
	if (r->sample.ips == NULL && r->sample.regs == NULL) {
		flat(s, ev, (int)r->sid.cpu, (pid_t)r->sid.pid, (pid_t)r->sid.tid, r->sample.ip, r->misc, 1,
		     r->sample.period);
		return;
	}
	sample_stack(s, ev, r);
}

void session_record(void *arg, int ev, const struct record *r)
{
	struct session *s = arg;

	if (ev == ENGINE_EV_OFFCPU && r->type != PERF_RECORD_LOST) {
		/* Read through r only, as a sample: a new stack's leaf fix or
		 * scheduler frames may load a table, and the rings go back to the
		 * reader meanwhile (held, they overflowed under a busy machine). */
		s->in_sample = true;
		session_offcpu_record(s, r);
		s->in_sample = false;
		return;
	}
	if (s->wait && r->type != PERF_RECORD_SAMPLE)
		session_offcpu_track(s, r);
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		s->in_sample = true;
		sample(s, ev, r);
		s->in_sample = false;
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
		if (s->unw && (m.prot & PROT_EXEC))
			unwind_mapped(s->unw, m.pid, m.start, m.start + m.len);
		break;
	}
	case PERF_RECORD_COMM:
		symbols_comm(s->syms, (pid_t)r->comm.pid, (pid_t)r->comm.tid, r->comm.comm,
			     r->misc & PERF_RECORD_MISC_COMM_EXEC);
		/* An exec under a pid whose owner exited (its FORK lost) is a new task. */
		if (r->misc & PERF_RECORD_MISC_COMM_EXEC) {
			agg_task_new(s->agg, (pid_t)r->comm.pid);
			unwind_forget(s->unw, (pid_t)r->comm.pid);
			engine_stack_used(s->eng, (pid_t)r->comm.pid, 0);
		}
		if (r->comm.pid == r->comm.tid) {
			agg_task_comm(s->agg, (pid_t)r->comm.pid, r->comm.comm);
			agg_kin_name(s->agg, (pid_t)r->comm.pid, r->comm.comm);
		}
		agg_thread_comm(s->agg, (pid_t)r->comm.tid, r->comm.comm);
		break;
	case PERF_RECORD_FORK:
		symbols_fork(s->syms, (pid_t)r->task.pid, (pid_t)r->task.ppid, (pid_t)r->task.tid,
			     (pid_t)r->task.ptid);
		if (r->task.pid == r->task.tid) {
			agg_task_new(s->agg, (pid_t)r->task.pid);
			agg_kin_note(s->agg, (pid_t)r->task.pid, (pid_t)r->task.ppid, NULL);
		}
		break;
	case PERF_RECORD_EXIT:
		if (s->spans)
			spans_exit(s->spans, (pid_t)r->task.tid);
		symbols_exit(s->syms, (pid_t)r->task.pid, (pid_t)r->task.tid);
		if (r->task.pid == r->task.tid) {
			agg_task_exit(s->agg, (pid_t)r->task.pid);
			unwind_forget(s->unw, (pid_t)r->task.pid);
			engine_stack_used(s->eng, (pid_t)r->task.pid, 0);
		}
		else
			agg_thread_exit(s->agg, (pid_t)r->task.tid);
		break;
	case PERF_RECORD_LOST:
		/* Any record of the ring may have been a switch. */
		if (s->spans)
			session_offcpu_lost(s, (int)r->sid.cpu, r->lost.lost);
		if (ev == ENGINE_EV_OFFCPU)
			break;
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
