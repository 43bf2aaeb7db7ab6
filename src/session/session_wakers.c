/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_wakers: a sched:sched_waking record is taken in the waker's
 * context: its stack (and pid, tid) is kept for the woken thread, the last
 * one before that thread's switch-in. The span the switch-in ends is then
 * charged to the wake agg as the woken's stack, a "-- woken by" frame and
 * the waker's stack, under the waker's task: so a wait's callers there
 * lead past the separator into who woke it. A waking before the span
 * began (a thread woken before it slept) is not its waker: dropped. */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "session_wakers.h"
#include "tpformat.h"
#include "util.h"

#define WAKERS_MAX 4096 /* woken threads kept at once; past it a waking is not kept */
#define WORDS_MAX (1 + SESSION_STACK_MAX + SESSION_STACK_MAX / 64)
#define FRAMES_MAX 512  /* agg's stack bound: the waker's outermost frames cut past it */

struct waker {
	pid_t pid, tid;
	uint64_t time;
	size_t nwords;
	uint64_t words[WORDS_MAX];
};

struct session_wakers {
	struct tpformat fmt;
	const struct tpformat_field *type, *pid;
	struct htab idx;           /* woken tid -> slot + 1 */
	struct waker **slot;
	size_t nslot, cap;
	uint32_t *spare;           /* slots free again */
	size_t nspare, spare_cap;
	struct sym_result frames[FRAMES_MAX], wk[SESSION_STACK_MAX]; /* charge's, off the stack */
};

struct session_wakers *session_wakers_new(void)
{
	struct session_wakers *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	if (tpformat_load("sched", "sched_waking", &w->fmt) != 0 || w->fmt.id == 0 ||
	    (w->type = tpformat_find(&w->fmt, "common_type")) == NULL ||
	    (w->pid = tpformat_find(&w->fmt, "pid")) == NULL || htab_init(&w->idx, 256) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

void session_wakers_free(struct session_wakers *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->nslot; i++)
		free(w->slot[i]);
	free(w->slot);
	free(w->spare);
	htab_free(&w->idx);
	free(w);
}

/* tid's slot, made if new; NULL when full or out of memory. */
static struct waker *slot_of(struct session_wakers *w, pid_t tid)
{
	uintptr_t v = htab_get(&w->idx, (uint64_t)(uint32_t)tid);
	size_t i;

	if (v)
		return w->slot[v - 1];
	if (w->nspare) {
		i = w->spare[--w->nspare];
	} else {
		if (w->nslot >= WAKERS_MAX || !util_grow((void **)&w->slot, &w->cap, w->nslot + 1, sizeof(*w->slot)))
			return NULL;
		if ((w->slot[w->nslot] = malloc(sizeof(struct waker))) == NULL)
			return NULL;
		i = w->nslot++;
	}
	if (htab_put(&w->idx, (uint64_t)(uint32_t)tid, i + 1) != 0) {
		w->spare[w->nspare++] = (uint32_t)i; /* room: it came from there or is new */
		return NULL;
	}
	return w->slot[i];
}

bool session_wakers_is(const struct session_wakers *w, const struct record *r, pid_t *woken)
{
	int64_t type, pid;

	*woken = 0;
	if (r->sample.raw == NULL || !tpformat_int(w->type, r->sample.raw, r->sample.raw_size, &type) ||
	    type != (int64_t)w->fmt.id)
		return false;
	if (tpformat_int(w->pid, r->sample.raw, r->sample.raw_size, &pid) && pid > 0)
		*woken = (pid_t)pid;
	return true;
}

void session_wakers_keep(struct session_wakers *w, pid_t woken, const struct record *r, const uint64_t *words,
			 size_t nwords)
{
	struct waker *k;

	/* The spare list holds every slot at most once: room for one more. */
	if (nwords > WORDS_MAX || !util_grow((void **)&w->spare, &w->spare_cap, w->nslot + 1, sizeof(*w->spare)))
		return;
	if ((k = slot_of(w, woken)) == NULL)
		return;
	k->pid = (pid_t)r->sid.pid;
	k->tid = (pid_t)r->sid.tid;
	k->time = r->sid.time;
	k->nwords = nwords;
	memcpy(k->words, words, nwords * sizeof(*words));
}

/* words as spans keep them -> frames at out (at most max); how many. */
static size_t resolve(struct session *s, pid_t pid, pid_t tid, const uint64_t *words, size_t nwords,
		      struct sym_result *out, size_t max)
{
	uint64_t n = nwords ? words[0] : 0;
	const struct sym_result *fr;

	if (n == 0 || n > SESSION_STACK_MAX || nwords < 1 + n + (n + 63) / 64)
		return 0;
	fr = symbols_resolve_chain(s->syms, pid, tid, words + 1, words + 1 + n, n, out);
	if (fr != out)
		memcpy(out, fr, (n < max ? n : max) * sizeof(*out));
	return n < max ? n : max;
}

/* The separator between the woken's frames and its waker's. */
static const struct sym_result woken_by = {
	.sym = SESSION_WOKEN_BY, .dso = SESSION_WOKEN_BY_DSO, .key = 0x776f6b656e2d6279ULL,
};

static void charge(struct session *s, struct session_wakers *w, const struct spans_span *sp, const struct waker *k)
{
	struct sym_result *f = w->frames, *wk = w->wk;
	size_t n, m, nwords;
	const uint64_t *words = spans_stack_words(s->spans, sp->stack, &nwords);

	if (s->wake == NULL || (n = resolve(s, sp->pid, sp->tid, words, nwords, f, FRAMES_MAX - 2)) == 0)
		return;
	f[n++] = woken_by;
	m = resolve(s, k->pid, k->tid, k->words, k->nwords, wk, SESSION_STACK_MAX);
	if (m > FRAMES_MAX - n)
		m = FRAMES_MAX - n;
	memcpy(f + n, wk, m * sizeof(*wk));
	/* The waker's task names the stack (its comm at the root). */
	f[0].comm = m ? wk[0].comm : NULL;
	f[0].thread_comm = m ? wk[0].thread_comm : NULL;
	agg_sample_stack_n(s->wake, 0, sp->cpu, k->pid, k->tid, f, n + m, sp->ns >= 1500 ? (sp->ns + 500) / 1000 : 1,
			   sp->ns);
}

void session_wakers_end(struct session *s, struct session_wakers *w, pid_t tid, const struct spans_span *sp)
{
	uintptr_t v = htab_get(&w->idx, (uint64_t)(uint32_t)tid);
	struct waker *k;

	if (v == 0)
		return;
	k = w->slot[v - 1];
	if (sp && k->time >= sp->start)
		charge(s, w, sp, k);
	htab_del(&w->idx, (uint64_t)(uint32_t)tid, v);
	w->spare[w->nspare++] = (uint32_t)(v - 1);
}
