/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tree_keys: what keys do to call trees (-g): the inline tree under a
 * symbol's row (Right/Enter open it, Left closes it, r flips callers and
 * callees) and F5's whole call-path tree; in the Waits view (--off-cpu) the
 * same on a wait row, from the wait agg's call paths. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"

/* The wait agg keeps its stacks with or without -g (frame pointers). */
bool tree_applies(const struct ui *u)
{
	if (u->mode != MODE_MAIN || u->nrows == 0 || u->sel[u->view] >= u->nrows)
		return false;
	if (u->view == VIEW_WAITS)
		return waits_shown(u);
	return u->callgraph && !groups_on(u) && u->view == VIEW_SYMBOLS;
}

static const void *sel_row(const struct ui *u)
{
	return u->rows[u->sel[u->view]];
}

static const char *kind_name(enum ui_tree_kind k)
{
	return k == TREE_CALLERS ? "callers" : k == TREE_CALLEES ? "callees" : "call paths";
}

static unsigned open_tree(struct ui *u)
{
	int rc = u->view == VIEW_WAITS ? calltree_open_wait(u, sel_row(u)) : calltree_open(u, sel_row(u));

	if (rc != 0) {
		ui_message(u, true, "no memory for the call tree: close other views or restart perftop");
		return UI_DRAW;
	}
	u->tree_row = u->sel[u->view]; /* until the next build: keys may come in a batch */
	ui_message(u, false, "callers of %s%s: Right expands, Left collapses or closes, r: callees", u->tree.sym,
		   u->tree.waits ? " (blocked ms)" : "");
	return UI_DRAW;
}

static unsigned close_tree(struct ui *u)
{
	calltree_close(u);
	u->tree_row = SIZE_MAX;
	return UI_DRAW;
}

/* Right on a line: expand it; expanded already: down to its first child. */
static unsigned step_right(struct ui *u, struct ui_tree *t)
{
	uint32_t n;

	if (t->nvis == 0)
		return 0;
	n = t->vis[t->sel];
	if (t->n[n].first == 0) {
		ui_message(u, false, "%s: nothing further (%s)", calltree_name(u, t, n), kind_name(t->kind));
		return UI_DRAW;
	}
	if (!calltree_expanded(t, n)) {
		calltree_set_expanded(t, n, true);
		calltree_lines(t);
	} else {
		calltree_select(t, t->sel + 1);
	}
	return UI_DRAW;
}

/* Left on a line: collapse it; collapsed: up to its parent. 0 on the root. */
static unsigned step_left(struct ui_tree *t)
{
	uint32_t n;

	if (t->nvis == 0 || (n = t->vis[t->sel]) == 0)
		return 0;
	if (t->n[n].first && calltree_expanded(t, n)) {
		calltree_set_expanded(t, n, false);
		calltree_lines(t);
		return UI_DRAW;
	}
	for (size_t i = t->sel; i-- > 0;)
		if (t->vis[i] == t->n[n].parent) {
			calltree_select(t, i);
			break;
		}
	return UI_DRAW;
}

static unsigned toggle(struct ui *u, struct ui_tree *t)
{
	uint32_t n = t->nvis ? t->vis[t->sel] : 0;

	if (n == 0)
		return 0;
	if (t->n[n].first == 0) {
		ui_message(u, false, "%s: nothing further (%s)", calltree_name(u, t, n), kind_name(t->kind));
		return UI_DRAW;
	}
	calltree_set_expanded(t, n, !calltree_expanded(t, n));
	calltree_lines(t);
	return UI_DRAW;
}

unsigned tree_right(struct ui *u)
{
	struct ui_tree *t = &u->tree;

	if (t->in)
		return step_right(u, t);
	if (!calltree_row_is(u, sel_row(u)))
		return open_tree(u);
	if (t->nvis > 1) { /* open already: step into it */
		t->in = true;
		calltree_select(t, 1);
	} else {
		ui_message(u, false, "%s: no %s in this interval", t->sym, kind_name(t->kind));
	}
	return UI_DRAW;
}

unsigned tree_left(struct ui *u)
{
	struct ui_tree *t = &u->tree;
	unsigned r;

	if (!t->in)
		return calltree_row_is(u, sel_row(u)) ? close_tree(u) : 0;
	r = step_left(t);
	return r ? r : close_tree(u); /* the root line */
}

unsigned tree_enter(struct ui *u)
{
	struct ui_tree *t = &u->tree;
	unsigned r;

	if (!t->in)
		return calltree_row_is(u, sel_row(u)) ? close_tree(u) : open_tree(u);
	r = toggle(u, t);
	return r ? r : close_tree(u);
}

/* W on a wait row: who woke the threads that waited there (the wake agg's
 * callers of it, the hottest path open); again: closed. */
unsigned tree_keys_wakers(struct ui *u, int key)
{
	const struct ui_wait *row;
	bool was = u->s->wakers_want, first;
	int rc;

	if (u->view != VIEW_WAITS || !waits_shown(u) || u->mode != MODE_MAIN) {
		ui_message(u, false, "W shows who woke a wait: O (off-CPU) on, then Tab to the Waits view");
		return UI_DRAW;
	}
	if (!u->waits.wake_known) {
		ui_message(u, true, "no wakers: sched:sched_waking cannot be read (mount tracefs, run as root)");
		return UI_DRAW;
	}
	if (u->nrows == 0 || u->sel[VIEW_WAITS] >= u->nrows)
		return 0;
	row = u->rows[u->sel[VIEW_WAITS]];
	if (u->tree.wakers && calltree_row_is(u, row))
		return close_tree(u);
	/* The first W opens sched_waking: it doubles the records, so only asked. */
	if (!u->s->wakers_want && (rc = session_offcpu_wakers(u->s)) != 0) {
		ui_message(u, true, "no wakers: sched:sched_waking %s",
			   rc == -EINVAL ? "opens while off-CPU is on: O first" : "could not be opened");
		return UI_DRAW;
	}
	first = !was;
	if (calltree_open_wakers(u, row) != 0) {
		ui_message(u, true, "no memory for the call tree: close other views or restart perftop");
		return UI_DRAW;
	}
	u->tree_row = u->sel[VIEW_WAITS];
	u->tree.hot = true; /* now, or at the first tick that has its lines */
	calltree_build(u, &u->tree);
	calltree_select(&u->tree, 0);
	if (first && session_offcpu_wakers_note(u->s)) /* -p, -t: per task only, it says what is missed */
		ui_message(u, true, "who woke %s: from the next tick; %s", u->tree.sym, session_offcpu_wakers_note(u->s));
	else
		ui_message(u, false, "who woke %s: its callers, then -- woken by -- and the waker's stack (W closes)%s",
			   u->tree.sym, first ? "; sched_waking opened: from the next tick" : "");
	return UI_DRAW;
}

unsigned tree_flip(struct ui *u, int key)
{
	struct ui_tree *t = &u->tree;

	if (!u->callgraph && !(u->view == VIEW_WAITS && t->waits)) {
		ui_message(u, false, "r switches a call tree between callers and callees: start perftop with -g");
		return UI_DRAW;
	}
	if (!calltree_in_view(u)) {
		ui_message(u, false, "r switches an open call tree: Right or Enter on a symbol opens one");
		return UI_DRAW;
	}
	t->kind = t->kind == TREE_CALLERS ? TREE_CALLEES : TREE_CALLERS;
	t->nexp = 0;
	calltree_build(u, t);
	calltree_select(t, 0);
	ui_message(u, false, "%s of %s (r: %s)", kind_name(t->kind), t->sym,
		   kind_name(t->kind == TREE_CALLERS ? TREE_CALLEES : TREE_CALLERS));
	return UI_DRAW;
}

/* --- F5: the whole call-path tree ---------------------------------------- */

/* F5's opening: calltree_hottest. */
void tree_keys_hottest(struct ui_tree *t)
{
	calltree_hottest(t);
}

unsigned tree_keys_paths_open(struct ui *u, int key)
{
	struct ui_tree *t = &u->paths;
	bool waits = u->view == VIEW_WAITS && waits_shown(u), first = t->n == NULL || t->waits != waits;

	if (!u->callgraph && !waits) {
		ui_message(u, false, "F5 shows the call-path tree: start perftop with -g (or --call-graph)");
		return UI_DRAW;
	}
	if (t->waits != waits)
		t->nexp = 0; /* the other source's lines */
	t->waits = waits;
	t->kind = TREE_PATHS;
	u->mode = MODE_PATHS;
	calltree_build(u, t);
	if (first) {
		tree_keys_hottest(t);
		calltree_select(t, 0);
	}
	return UI_DRAW;
}

static unsigned paths_close(struct ui *u, int key)
{
	u->mode = MODE_MAIN;
	return UI_DRAW;
}

static unsigned paths_move(struct ui *u, int key)
{
	struct ui_tree *t = &u->paths;
	size_t s = t->sel, pg = t->page > 1 ? t->page - 1 : 1;

	switch (key) {
	case KEY_UP:
	case 'k':
		s = s ? s - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		s++;
		break;
	case KEY_PPAGE:
		s = s > pg ? s - pg : 0;
		break;
	case KEY_NPAGE:
		s += pg;
		break;
	case KEY_HOME:
		s = 0;
		break;
	default:
		s = SIZE_MAX;
		break;
	}
	calltree_select(t, s);
	return UI_DRAW;
}

static unsigned paths_right(struct ui *u, int key)
{
	return step_right(u, &u->paths);
}

static unsigned paths_left(struct ui *u, int key)
{
	return step_left(&u->paths);
}

static unsigned paths_toggle(struct ui *u, int key)
{
	return toggle(u, &u->paths);
}

const struct key_binding tree_keys_paths[] = {
	{ KEY_UP, paths_move, { "Up Down k j", "select a line" } },
	{ KEY_DOWN, paths_move, { NULL, NULL } },
	{ 'k', paths_move, { NULL, NULL } },
	{ 'j', paths_move, { NULL, NULL } },
	{ KEY_PPAGE, paths_move, { "PgUp PgDn", "a page up or down" } },
	{ KEY_NPAGE, paths_move, { NULL, NULL } },
	{ KEY_HOME, paths_move, { "Home End", "the first or the last line" } },
	{ KEY_END, paths_move, { NULL, NULL } },
	{ KEY_RIGHT, paths_right, { "Right", "expand; expanded: to its first child" } },
	{ KEY_LEFT, paths_left, { "Left", "collapse; collapsed: to its parent" } },
	{ '\n', paths_toggle, { "Enter", "expand or collapse" } },
	{ '\r', paths_toggle, { NULL, NULL } },
	{ KEY_ENTER, paths_toggle, { NULL, NULL } },
	{ 'a', annview_open_selected, { NULL, NULL } }, /* told in the help's Annotate (a) */
	{ KEY_ESC, paths_close, { "Esc F5", "back to the tables" } },
	{ KEY_F(5), paths_close, { NULL, NULL } },
	{ 0, NULL, { NULL, NULL } },
};

/* The inline tree's keys are the tables' (keys.c), F5's the ones above:
 * the same meanings, told once in the help. */
const struct key_binding tree_doc_keys[] = {
	{ 0, NULL, { "Right Enter", "open a symbol's tree; expand a line" } },
	{ 0, NULL, { "Left", "collapse, up a level; root: close it" } },
	{ 0, NULL, { "r", "switch between callers and callees" } },
	{ 0, NULL, { "F5 Esc", "the whole call-path tree, and back" } },
	{ 0, NULL, { "Waits view", "a wait's trees too, by blocked ms" } },
	{ 0, NULL, { "W", "Waits: who woke it (the waker's stack)" } },
	{ 0, NULL, { "S-Left/Right", "scroll names sideways (as Left Right)" } },
	{ 0, NULL, { NULL, NULL } },
};
