/* SPDX-License-Identifier: GPL-2.0-or-later */
/* W's tree (who woke a wait) built by the real code from stacks fed to a
 * wake agg as session_wakers charges them: the woken's stack, the
 * separator, the waker's. A waker interrupted in its own sleep has the
 * same wait function (do_nanosleep) in its stack: the callers of the
 * woken's do_nanosleep must still lead past the separator to the waker,
 * not stop at a bare comm line under the woken's outermost frame. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "agg.h"
#include "session.h"
#include "ui.h"

#define K "[kernel.kallsyms]"

struct fr {
	const char *sym, *dso;
};

static uint64_t key_of(const struct fr *f)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *s = f->sym; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* One charged stack (leaf first), weighing us, under task 10 ("ww"). */
static void feed(struct agg *a, const struct fr *f, size_t n, uint64_t us)
{
	struct sym_result sr[32];

	for (size_t i = 0; i < n; i++)
		sr[i] = (struct sym_result){ .sym = f[i].sym, .dso = f[i].dso, .kernel = strcmp(f[i].dso, K) == 0,
					     .key = key_of(&f[i]), .comm = "ww", .thread_comm = "ww" };
	agg_sample_stack_n(a, 0, 0, 10, 11, sr, n, us, us * 1000);
}

/* The tree node named name whose parent is named parent, or UINT32_MAX. */
static uint32_t node(const struct ui *u, const char *parent, const char *name)
{
	const struct ui_tree *t = &u->tree;

	for (uint32_t i = 1; i < t->nn; i++)
		if (strcmp(calltree_name(u, t, i), name) == 0 &&
		    (parent == NULL || strcmp(calltree_name(u, t, t->n[i].parent), parent) == 0))
			return i;
	return UINT32_MAX;
}

/* Every comm line of the tree has the separator among its ancestors. */
static bool comms_past_separator(const struct ui *u)
{
	const struct ui_tree *t = &u->tree;
	const struct ui_cgsnap *c = calltree_snap(u, t);

	for (uint32_t i = 1; i < t->nn; i++) {
		const struct ui_cgsym *s = calltree_snap_sym(c, t->n[i].sym);
		bool seen = false;

		if (s == NULL || !s->comm)
			continue;
		for (uint32_t p = t->n[i].parent; p != 0; p = t->n[p].parent)
			seen |= strcmp(calltree_name(u, t, p), SESSION_WOKEN_BY) == 0;
		if (!seen)
			return false;
	}
	return true;
}

int main(void)
{
	static const int cpus[] = { 0 };
	static const struct fr sep = { SESSION_WOKEN_BY, SESSION_WOKEN_BY_DSO };
	/* wait_sleep's sleep, woken by a timer interrupt that came while
	 * feed_pipe itself was leaving do_nanosleep's schedule. */
	const struct fr in_sleep[] = {
		{ "do_nanosleep", K }, { "hrtimer_nanosleep", K }, { "nanosleep", "libc" }, { "wait_sleep", "ww" },
		{ "start_thread", "libc" }, sep, { "try_to_wake_up", K }, { "hrtimer_wakeup", K },
		{ "finish_task_switch", K }, { "schedule", K }, { "do_nanosleep", K }, { "hrtimer_nanosleep", K },
		{ "nanosleep", "libc" }, { "feed_pipe", "ww" }, { "start_thread", "libc" },
	};
	/* The same sleep woken while the waker ran (hold_lock's write). */
	const struct fr running[] = {
		{ "do_nanosleep", K }, { "hrtimer_nanosleep", K }, { "nanosleep", "libc" }, { "wait_sleep", "ww" },
		{ "start_thread", "libc" }, sep, { "try_to_wake_up", K }, { "hrtimer_wakeup", K }, { "write", "libc" },
		{ "hold_lock", "ww" }, { "start_thread", "libc" },
	};
	const struct ui_wait row = { "do_nanosleep", K, true, 0, 0, 0, 0 };
	struct options o = { .interval = 1.0, .freq = 4000, .no_color = true };
	struct agg *wait = agg_new(1, cpus, 1), *wake = agg_new(1, cpus, 1);
	struct session s;
	struct ui u;
	uint32_t top, from_sleep, from_run;

	if (wait == NULL || wake == NULL)
		return 1;
	feed(wake, in_sleep, sizeof(in_sleep) / sizeof(in_sleep[0]), 3000);
	feed(wake, running, sizeof(running) / sizeof(running[0]), 1000);
	memset(&s, 0, sizeof(s));
	s.agg = wait;
	ui_init(&u, &s, &o);
	u.fixed_time = 1700000000;
	calltree_snap_take_waits(&u, wait, wake, 1.0);
	CHECK(calltree_open_wakers(&u, &row) == 0, "W on do_nanosleep: its tree opens");
	top = node(&u, NULL, "hrtimer_nanosleep");
	CHECK(u.tree.n[0].samples == 4000, "every stack through the woken's do_nanosleep counted (%llu of 4000)",
	      (unsigned long long)u.tree.n[0].samples);
	CHECK(top != UINT32_MAX && u.tree.n[top].parent == 0 && u.tree.n[top].samples == 4000,
	      "its callers start at the woken's own caller, with all of it");
	CHECK(comms_past_separator(&u), "no comm line before the separator (the waker's do_nanosleep took no stack)");
	from_sleep = node(&u, "start_thread", SESSION_WOKEN_BY);
	CHECK(from_sleep != UINT32_MAX && u.tree.n[from_sleep].samples == 4000,
	      "both wakings past the separator, under the woken's outermost frame");
	from_sleep = node(&u, "try_to_wake_up", "hrtimer_wakeup");
	from_run = node(&u, "hrtimer_wakeup", "finish_task_switch"); /* the one leaving its sleep */
	CHECK(from_sleep != UINT32_MAX && from_run != UINT32_MAX && u.tree.n[from_run].samples == 3000,
	      "the waker that was leaving its own sleep: its stack past the separator (3000 of it)");
	CHECK(node(&u, "nanosleep", "feed_pipe") != UINT32_MAX && node(&u, "write", "hold_lock") != UINT32_MAX,
	      "both wakers named");
	calltree_close(&u);
	ui_free(&u);
	agg_free(wait);
	agg_free(wake);
	return check_done();
}
