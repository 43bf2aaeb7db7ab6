/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_offbpf: --off-cpu through offbpf, the spans summed in the
 * kernel. Each sum becomes a pending charge of the spans (spans_add), its
 * stack an id keyed by what the kernel gave (the stacks' hashes, the leaf
 * fix): a stack seen before costs a lookup, a new one is read from the
 * kernel once, its addresses given -g's leaf fix and the scheduler frames
 * left out as session_offcpu does for records. The kernel's questions
 * about frameless leaves are answered from the leaf fix's rule cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "session_offbpf.h"
#include "offbpf.h"
#include "leaffix.h"

struct session_offbpf {
	struct session *s;
	struct offbpf *b;            /* loaded, else NULL */
	struct engine *eng;          /* its question fd is watched there */
	session_offbpf_skip_fn skip;
	struct offbpf_stats noted;   /* the kernel's counts already noted in the spans */
	uint64_t now;                /* a drain's count: the pending charges' time */
	/* The target the program filters by. */
	pid_t *pids;
	size_t npids;
	bool tids;
	char *cgroup;
};

static void on_question(void *arg, pid_t pid, uint64_t ip)
{
	struct session_offbpf *ob = arg;
	struct cfarule r;
	int32_t off = OFFBPF_NO_FIX;

	if (ob->s->leaf && leaffix_rule(ob->s->leaf, pid, ip, &r) && r.kind == CFARULE_SP)
		off = r.ra_off;
	(void)offbpf_rule(ob->b, pid, ip, off); /* best effort: not given, the leaf is unfixed */
}

static void readable(void *arg)
{
	struct session_offbpf *ob = arg;

	(void)offbpf_wants(ob->b, on_question, ob);
}

struct session_offbpf *session_offbpf_new(struct session *s, session_offbpf_skip_fn skip)
{
	struct session_offbpf *ob = calloc(1, sizeof(*ob));

	if (ob == NULL)
		return NULL;
	ob->s = s;
	ob->skip = skip;
	return ob;
}

void session_offbpf_unload(struct session_offbpf *ob)
{
	if (ob == NULL || ob->b == NULL)
		return;
	/* A re-open has closed the engine it was watched in. */
	if (ob->eng && ob->eng == ob->s->eng)
		engine_unwatch_fd(ob->eng, offbpf_want_fd(ob->b));
	offbpf_close(ob->b);
	ob->b = NULL;
	ob->eng = NULL;
	ob->noted = (struct offbpf_stats){ 0 };
}

void session_offbpf_free(struct session_offbpf *ob)
{
	if (ob == NULL)
		return;
	session_offbpf_unload(ob);
	free(ob->pids);
	free(ob->cgroup);
	free(ob);
}

bool session_offbpf_loaded(const struct session_offbpf *ob) { return ob && ob->b; }

/* The questions watched in the session's engine now; failing, unloaded. */
static int watch(struct session_offbpf *ob, char *err, size_t errlen)
{
	int rc;

	ob->eng = NULL; /* the engine it was watched in, if any, is gone */
	if (ob->s->eng && (rc = engine_watch_fd(ob->s->eng, offbpf_want_fd(ob->b), readable, ob)) != 0) {
		snprintf(err, errlen, "--off-cpu in BPF: cannot watch its ring buffer (%s)", strerror(-rc));
		session_offbpf_unload(ob);
		return rc;
	}
	ob->eng = ob->s->eng;
	return 0;
}

int session_offbpf_load(struct session_offbpf *ob, char *err, size_t errlen)
{
	struct offbpf_opts o = {
		.thresh_ns = (uint64_t)(ob->s->opts->offcpu_thresh_ms * 1e6),
		.pids = ob->pids, .npids = ob->npids, .pids_are_tids = ob->tids, .cgroup = ob->cgroup,
	};
	int rc;

	if (ob->b)
		return 0;
	if ((rc = offbpf_open(&ob->b, &o, err, errlen)) != 0)
		return rc;
	if ((rc = watch(ob, err, errlen)) != 0)
		return rc;
	/* Attached once the loop answers its questions; at once when the
	 * kernel's way was asked for, so that a refusal is perftop's error. */
	return ob->s->running || ob->s->opts->offcpu_via == OFFCPU_VIA_BPF ? session_offbpf_attach(ob, err, errlen) : 0;
}

int session_offbpf_attach(struct session_offbpf *ob, char *err, size_t errlen)
{
	int rc;

	if (ob == NULL || ob->b == NULL)
		return 0;
	if ((rc = offbpf_attach(ob->b, err, errlen)) != 0)
		session_offbpf_unload(ob);
	return rc;
}

int session_offbpf_target(struct session_offbpf *ob, const struct session_target *t, char *err, size_t errlen)
{
	pid_t *p = NULL;
	char *cg = NULL;

	/* The same target (a re-open for a new rate): the program stays. */
	if (ob->npids == (t->pids ? t->npids : 0) && ob->tids == t->pids_are_tids &&
	    (ob->npids == 0 || memcmp(ob->pids, t->pids, ob->npids * sizeof(*ob->pids)) == 0) &&
	    ((ob->cgroup == NULL && t->cgroup == NULL) ||
	     (ob->cgroup && t->cgroup && strcmp(ob->cgroup, t->cgroup) == 0))) {
		/* A new engine: its questions are watched there now. */
		if (ob->b == NULL || ob->eng == ob->s->eng || ob->s->eng == NULL)
			return 0;
		return watch(ob, err, errlen);
	}
	if ((t->pids && t->npids && (p = malloc(t->npids * sizeof(*p))) == NULL) ||
	    (t->cgroup && (cg = strdup(t->cgroup)) == NULL)) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (p)
		memcpy(p, t->pids, t->npids * sizeof(*p));
	free(ob->pids);
	free(ob->cgroup);
	ob->pids = p;
	ob->npids = p ? t->npids : 0;
	ob->tids = t->pids_are_tids;
	ob->cgroup = cg;
	if (ob->b == NULL)
		return 0;
	/* The program filters by the target it was loaded with. */
	session_offbpf_unload(ob);
	if (ob->s->spans)
		spans_drop_open(ob->s->spans);
	return session_offbpf_load(ob, err, errlen);
}

struct make_ctx {
	struct session_offbpf *ob;
	const struct offbpf_sum_of *m;
	bool gone;                   /* a stack the kernel no longer kept */
};

/* The sum's stacks as the packed words a record's chain gives (kernel
 * frames first, the first address of each context where it was, the
 * others return addresses less one), then the scheduler's frames out. */
static size_t make_words(void *arg, uint64_t *w, size_t max)
{
	struct make_ctx *c = arg;
	uint64_t key[1 + SESSION_STACK_MAX + SESSION_STACK_MAX / 64] = { 0 };
	uint64_t ips[SESSION_STACK_MAX], *kmask;
	size_t n = 0, nk, nu;

	(void)max; /* SPANS_WORDS_MAX: room for SESSION_STACK_MAX frames */
	nk = offbpf_stack(c->ob->b, c->m->khash, ips, SESSION_STACK_MAX);
	c->gone = c->m->khash && nk == 0;
	for (size_t i = 0; i < nk; i++)
		key[1 + n++] = i ? ips[i] - 1 : ips[i];
	nu = offbpf_stack(c->ob->b, c->m->uhash, ips, SESSION_STACK_MAX - n);
	c->gone |= c->m->uhash && nu == 0;
	for (size_t i = 0; i < nu && n < SESSION_STACK_MAX; i++) {
		key[1 + n++] = i ? ips[i] - 1 : ips[i];
		/* -g's leaf fix: the frameless leaf's caller, unless the chain has it. */
		if (i == 0 && c->m->leaf_fixed && c->m->leaf_ret && (nu < 2 || ips[1] != c->m->leaf_ret) &&
		    n < SESSION_STACK_MAX)
			key[1 + n++] = c->m->leaf_ret - 1;
	}
	key[0] = n;
	kmask = key + 1 + n;
	for (size_t i = 0; i < nk; i++)
		kmask[i / 64] |= 1ull << (i % 64);
	return c->ob->skip(c->ob->s, key, w);
}

static void on_sum(void *arg, const struct offbpf_sum_of *m)
{
	struct session_offbpf *ob = arg;
	struct session *s = ob->s;
	/* What tells the stack from every other: the kernel's hashes of its
	 * two halves and the leaf fix's answer. */
	uint64_t key[4] = { m->khash, m->uhash, m->leaf_fixed ? 2u : m->leaf_unknown ? 1u : 0u,
			    m->leaf_fixed ? m->leaf_ret : 0 };
	struct make_ctx c = { ob, m, false };
	struct spans_sum sum = { .pid = m->pid, .tid = m->tid, .cpu = m->cpu, .spans = m->spans, .us = m->us,
				 .ns = m->ns };

	sum.state = m->state == 1 ? SPANS_D : m->state == 2 ? SPANS_R : SPANS_S;
	sum.stack = spans_stack(s->spans, key, 4, make_words, &c);
	/* Evicted before it was read: charged without it this once, and read
	 * again when the kernel keeps it anew, not cached as it was. */
	if (c.gone)
		spans_stack_unkey(s->spans, sum.stack);
	(void)spans_add(s->spans, &sum, ob->now);
}

int session_offbpf_drain(struct session_offbpf *ob)
{
	struct offbpf_stats st;
	int rc;

	if (ob == NULL || ob->b == NULL || ob->s->spans == NULL)
		return 0;
	/* Questions first: a leaf asked about meanwhile is then known. */
	(void)offbpf_wants(ob->b, on_question, ob);
	ob->now++;
	rc = offbpf_drain(ob->b, on_sum, ob);
	offbpf_get_stats(ob->b, &st);
	spans_note(ob->s->spans, st.outs - ob->noted.outs, st.ins - ob->noted.ins,
		   st.short_spans - ob->noted.short_spans, st.lost - ob->noted.lost);
	ob->noted = st;
	return rc;
}

void session_offbpf_gone(struct session_offbpf *ob, pid_t pid)
{
	if (ob == NULL || ob->b == NULL)
		return;
	/* Its sums charged while its names and maps are still the ones they
	 * ended under; a drain only when it has some (a build execs
	 * thousands a second). Its rules no longer hold. */
	if (offbpf_pending(ob->b, pid))
		(void)session_offbpf_drain(ob);
	offbpf_forget(ob->b, pid);
}

bool session_offbpf_stats(const struct session_offbpf *ob, struct offbpf_stats *st)
{
	if (ob == NULL || ob->b == NULL)
		return false;
	offbpf_get_stats(ob->b, st);
	return true;
}
