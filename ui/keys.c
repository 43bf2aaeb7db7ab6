/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys: one declarative table per mode (key -> action); an action changes
 * the state, drives the engine when it must, and returns what to redraw. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evspec.h"
#include "keys.h"
#include "symbols.h"

/* --- moving around ----------------------------------------------------- */

static unsigned select_row(struct ui *u, size_t i)
{
	size_t v = u->view;

	if (u->nrows == 0)
		return 0;
	u->sel[v] = i >= u->nrows ? u->nrows - 1 : i;
	u->sel_key[v] = views_row_key(u, u->rows[u->sel[v]]);
	u->sel_valid[v] = true;
	u->tree.in = false;
	return UI_DRAW;
}

/* Moving goes by lines: rows, and an open call tree's lines among them. */
static unsigned select_line(struct ui *u, size_t i)
{
	if (u->nrows == 0)
		return 0;
	views_select_line(u, i);
	return UI_DRAW;
}

static size_t page(const struct ui *u)
{
	return u->page > 1 ? (size_t)u->page - 1 : 1;
}

static unsigned act_up(struct ui *u, int key)
{
	size_t s = views_sel_line(u);

	return select_line(u, s ? s - 1 : 0);
}

static unsigned act_down(struct ui *u, int key)
{
	return select_line(u, views_sel_line(u) + 1);
}

static unsigned act_pgup(struct ui *u, int key)
{
	size_t s = views_sel_line(u);

	return select_line(u, s > page(u) ? s - page(u) : 0);
}

static unsigned act_pgdn(struct ui *u, int key)
{
	return select_line(u, views_sel_line(u) + page(u));
}

static unsigned act_home(struct ui *u, int key)
{
	return select_line(u, 0);
}

static unsigned act_end(struct ui *u, int key)
{
	return select_line(u, SIZE_MAX);
}

/* Long names: the flexible column's text moves 8 columns a press. */
static unsigned act_hscroll(struct ui *u, int key)
{
	size_t *h = &u->hscroll[u->view];

	if (key == KEY_LEFT && *h == 0) {
		ui_message(u, false, "Left: already at the start of the names");
		return UI_DRAW;
	}
	*h = key == KEY_LEFT ? (*h > 8 ? *h - 8 : 0) : (*h < 480 ? *h + 8 : *h);
	return UI_DRAW;
}

static unsigned act_shscroll(struct ui *u, int key)
{
	return act_hscroll(u, key == KEY_SLEFT ? KEY_LEFT : KEY_RIGHT);
}

/* With -g, Left and Right on the symbols open and close call trees;
 * elsewhere they scroll names (Shift: everywhere). */
static unsigned act_left(struct ui *u, int key)
{
	unsigned r = tree_applies(u) ? tree_left(u) : groups_hier_on(u) ? groups_hier_key(u, key) : 0;

	return r ? r : act_hscroll(u, key);
}

static unsigned act_right(struct ui *u, int key)
{
	unsigned r = groups_hier_on(u) ? groups_hier_key(u, key) : 0;

	if (r)
		return r;
	return tree_applies(u) ? tree_right(u) : act_hscroll(u, key);
}

static unsigned act_view(struct ui *u, int key)
{
	do
		u->view = (enum ui_view)((u->view + (key == KEY_BTAB ? VIEW_COUNT - 1 : 1)) % VIEW_COUNT);
	while (u->view == VIEW_WAITS && !waits_shown(u));
	return UI_RESORT;
}

static unsigned act_sort(struct ui *u, int key)
{
	size_t n = views_ncols(u), *c = &u->sort_col[u->view];

	*c = (*c + (key == '<' ? n - 1 : 1)) % n;
	return UI_RESORT;
}

static unsigned act_invert(struct ui *u, int key)
{
	u->sort_inv[u->view] = !u->sort_inv[u->view];
	return UI_RESORT;
}

/* --- the whole program ------------------------------------------------- */

static unsigned act_quit(struct ui *u, int key)
{
	return UI_QUIT;
}

static unsigned act_help(struct ui *u, int key)
{
	u->prev_mode = u->mode == MODE_HELP ? MODE_MAIN : u->mode;
	u->mode = MODE_HELP;
	u->help_top = 0;
	return UI_DRAW;
}

static unsigned act_redraw(struct ui *u, int key)
{
	return UI_CLEAR;
}

/* --- what is sampled ----------------------------------------------------- */

static unsigned act_exclude_user(struct ui *u, int key)
{
	return actions_exclude_toggle_all(u, EXCL_USER);
}

static unsigned act_exclude_kernel(struct ui *u, int key)
{
	return actions_exclude_toggle_all(u, EXCL_KERNEL);
}

static unsigned open_panel(struct ui *u, enum ui_mode m)
{
	u->mode = u->mode == m ? MODE_MAIN : m;
	u->panel_sel = 0;
	return UI_DRAW;
}

static unsigned act_sort_menu(struct ui *u, int key)
{
	unsigned r = open_panel(u, MODE_SORT);

	u->panel_sel = u->sort_col[u->view];
	return r;
}

static unsigned act_events(struct ui *u, int key)
{
	return open_panel(u, MODE_EVENTS);
}

static unsigned act_exclude_panel(struct ui *u, int key)
{
	return open_panel(u, MODE_EXCLUDE);
}

/* Why Enter or F9 found no task: in the Tasks view, an empty table (a filter,
 * a user or nothing sampled), not the wrong view. */
static const char *no_task_why(const struct ui *u)
{
	if (u->view != VIEW_TASKS)
		return "Tab to the Tasks view and select one";
	if (u->filter[VIEW_TASKS][0])
		return "no task shown (Esc clears the filter)";
	return u->user[0] ? "no task shown (u, Enter: all users)" : "no task shown yet";
}

static unsigned act_focus(struct ui *u, int key)
{
	const struct agg_task *t;

	if (tree_applies(u))
		return tree_enter(u);
	if (groups_hier_on(u))
		return groups_hier_key(u, key);

	if (u->view != VIEW_TASKS || u->nrows == 0) {
		ui_message(u, false, "Enter focuses on a task: %s", no_task_why(u));
		return UI_DRAW;
	}
	t = u->rows[u->sel[VIEW_TASKS]];
	if (t->pid <= 0) {
		ui_message(u, true, "PID %d is the idle task: nothing to focus on", (int)t->pid);
		return UI_DRAW;
	}
	u->reopen = (struct ui_reopen){ .pending = true, .pid = t->pid };
	return UI_REOPEN;
}

/* Started on a -p, -t or -G target, and still on it. */
static bool on_start_target(const struct ui *u)
{
	return (u->o->pids || u->o->cgroup) && !u->left_start;
}

/* Esc closes what is open, the latest first: the inline tree, the filter,
 * the search, a focus entered with Enter (or one whose tasks all exited).
 * A target given on the command line stays: S leaves it. */
static unsigned act_back(struct ui *u, int key)
{
	if (u->tree.open) {
		calltree_close(u);
		u->tree_row = SIZE_MAX;
		return UI_DRAW;
	}
	if (u->filter[u->view][0]) {
		u->filter[u->view][0] = '\0';
		return UI_RESORT;
	}
	if (u->search[0]) {
		u->search[0] = '\0';
		return UI_DRAW;
	}
	if (u->focus || (u->ended && on_start_target(u))) {
		u->reopen = (struct ui_reopen){ .pending = true, .pid = 0 };
		return UI_REOPEN;
	}
	if (on_start_target(u)) {
		ui_message(u, false, "the command line's target stays (S: system-wide)");
		return UI_DRAW;
	}
	return 0;
}

/* S: off the command line's -p/-t/-G target (or an Enter focus) to system-wide. */
static unsigned act_system_wide(struct ui *u, int key)
{
	if (!u->focus && !on_start_target(u)) {
		ui_message(u, false, "already system-wide");
		return UI_DRAW;
	}
	u->reopen = (struct ui_reopen){ .pending = true, .system_wide = true };
	return UI_REOPEN;
}

/* --- how it is shown ----------------------------------------------------- */

static unsigned act_threads(struct ui *u, int key)
{
	u->threads = !u->threads;
	u->sel_valid[VIEW_TASKS] = false;
	if (u->view != VIEW_TASKS)
		u->view = VIEW_TASKS;
	ui_message(u, false, u->threads ? "one row per thread (H: per process)" : "one row per process");
	return UI_RESORT;
}

/* Names resolved from now on take the other form; the rows already shown
 * keep theirs until they age out (c: cumulative keeps both). */
static unsigned act_demangle(struct ui *u, int key)
{
	bool on = !session_demangle(u->s);

	session_set_demangle(u->s, on);
	ui_message(u, false, on ? "C++/Rust names demangled (M: raw)" : "raw symbol names (M: demangled)");
	return UI_DRAW;
}

/* A filter is edited; a number starts empty, the value now as a hint. */
static unsigned start_prompt(struct ui *u, enum ui_prompt p, const char *text)
{
	u->prompt = p;
	u->mode = MODE_PROMPT;
	strlcpy(u->input, p == PROMPT_FILTER ? text : "", sizeof(u->input));
	strlcpy(u->hint, p == PROMPT_FILTER ? "" : text, sizeof(u->hint));
	strlcpy(u->input_saved, u->filter[u->view], sizeof(u->input_saved));
	return UI_DRAW;
}

static unsigned act_filter(struct ui *u, int key)
{
	return start_prompt(u, PROMPT_FILTER, u->filter[u->view]);
}

static unsigned act_search(struct ui *u, int key)
{
	return start_prompt(u, PROMPT_SEARCH, "");
}

/* The next (dir 1) or previous row matching the search, from the selection. */
static unsigned search_step(struct ui *u, int dir)
{
	size_t n, s;

	views_build(u);
	n = u->nrows;
	s = u->sel[u->view];
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (s + k) % n : (s + n - k % n) % n;

		if (views_match(u, u->rows[i], u->search))
			return select_row(u, i);
	}
	ui_message(u, false, "no row matches \"%s\"", u->search);
	return UI_DRAW;
}

static unsigned act_prev(struct ui *u, int key)
{
	if (u->search[0] == '\0') {
		ui_message(u, false, "no search: F3 starts one");
		return UI_DRAW;
	}
	return search_step(u, -1);
}

static unsigned act_user(struct ui *u, int key)
{
	return start_prompt(u, PROMPT_USER, u->user[0] ? u->user : "all");
}

static unsigned act_kill(struct ui *u, int key)
{
	const struct agg_task *t;

	if (u->ntags) { /* the tagged tasks, from any view */
		u->kill_pid = 0;
		return start_prompt(u, PROMPT_KILL, "15");
	}
	if (u->view != VIEW_TASKS || u->nrows == 0) {
		ui_message(u, false, "F9 signals a task: %s", no_task_why(u));
		return UI_DRAW;
	}
	t = u->rows[u->sel[VIEW_TASKS]];
	if (t->pid <= 0) {
		ui_message(u, true, "PID %d is the idle task: no signal", (int)t->pid);
		return UI_DRAW;
	}
	u->kill_pid = t->tid ? t->tid : t->pid;
	return start_prompt(u, PROMPT_KILL, "15");
}

static unsigned act_next(struct ui *u, int key)
{
	if (u->search[0])
		return search_step(u, 1);
	if (u->filter[u->view][0] == '\0') {
		ui_message(u, false, "no filter: / sets one");
		return UI_DRAW;
	}
	return u->nrows ? select_row(u, (u->sel[u->view] + 1) % u->nrows) : 0;
}

static unsigned act_decay(struct ui *u, int key)
{
	u->decay = !u->decay;
	if (u->decay)
		ui_message(u, false, "decaying history: %d%% of each interval carries into the next", UI_DECAY_PCT);
	else
		ui_message(u, false, "each interval starts from zero");
	return UI_DRAW;
}

static unsigned act_cumulative(struct ui *u, int key)
{
	u->cumulative = !u->cumulative;
	ui_message(u, false, u->cumulative ? "cumulative: counts since start" : "counts of the interval");
	return UI_RESORT;
}

static unsigned act_pause(struct ui *u, int key)
{
	struct session_replay_state st;

	if (session_replaying(u->s) && key == 'Z') {
		/* -i: the replay itself stops, not just the display. */
		session_replay_state(u->s, &st);
		session_replay_pause(u->s, !st.paused);
		ui_message(u, false, st.paused ? "replay resumed" : "replay paused: Z resumes, . plays one interval");
		return UI_DRAW;
	}
	u->paused = !u->paused;
	return UI_DRAW;
}

/* -i: one recorded interval now (paused or not). */
static unsigned act_replay_step(struct ui *u, int key)
{
	if (!session_replaying(u->s)) {
		ui_message(u, false, ". steps a replay (-i FILE)");
		return UI_DRAW;
	}
	session_replay_step(u->s);
	return 0;
}

/* -i: ] twice as fast, [ half as fast. */
static unsigned act_replay_speed(struct ui *u, int key)
{
	double x;

	if (!session_replaying(u->s)) {
		ui_message(u, false, "%c speeds a replay up or down (-i FILE)", key);
		return UI_DRAW;
	}
	x = session_replay_speed(u->s, key == ']' ? 1 : -1);
	ui_message(u, false, "replay at %gx the recorded pace", x);
	return UI_DRAW;
}

static unsigned act_interval(struct ui *u, int key)
{
	char now[32];

	snprintf(now, sizeof(now), "%g", session_interval(u->s));
	return start_prompt(u, PROMPT_INTERVAL, now);
}

static unsigned act_adjust(struct ui *u, int key)
{
	if (tasktree_on(u)) /* the tree's: - folds, + opens */
		return tasktree_fold(u, key);
	return actions_interval_step(u, key == '+');
}

static unsigned act_freq(struct ui *u, int key)
{
	char now[32];

	if (session_replaying(u->s)) {
		ui_message(u, false, "a replay plays the recorded rate");
		return UI_DRAW;
	}

	snprintf(now, sizeof(now), "%llu", (unsigned long long)u->freq);
	return start_prompt(u, PROMPT_FREQ, now);
}

static const struct key_binding global_keys[] = {
	{ 'q', act_quit, { "q F10", "quit" } },
	{ KEY_F(10), act_quit, { NULL, NULL } },
	{ 'h', act_help, { "h ? F1", "this help" } },
	{ '?', act_help, { NULL, NULL } },
	{ KEY_F(1), act_help, { NULL, NULL } },
	{ KEY_CTRL('l'), act_redraw, { "Ctrl-L", "redraw the screen" } },
	{ 0, NULL, { NULL, NULL } },
};

static const struct key_binding main_keys[] = {
	{ KEY_UP, act_up, { "Up k", "select the row above" } },
	{ 'k', act_up, { NULL, NULL } },
	{ KEY_DOWN, act_down, { "Down j", "select the row below" } },
	{ 'j', act_down, { NULL, NULL } },
	{ KEY_PPAGE, act_pgup, { "PgUp PgDn", "a page up or down" } },
	{ KEY_NPAGE, act_pgdn, { NULL, NULL } },
	{ KEY_HOME, act_home, { "Home End", "the first or the last row" } },
	{ KEY_END, act_end, { NULL, NULL } },
	{ KEY_LEFT, act_left, { "Left Right", "scroll names (-g symbols: call tree)" } },
	{ KEY_RIGHT, act_right, { NULL, NULL } },
	{ KEY_SLEFT, act_shscroll, { NULL, NULL } }, /* documented with the call trees */
	{ KEY_SRIGHT, act_shscroll, { NULL, NULL } },
	{ '\t', act_view, { "Tab S-Tab", "switch view: symbols, tasks, CPUs" } },
	{ KEY_BTAB, act_view, { NULL, NULL } },
	{ '<', act_sort, { "< >", "sort by the column left / right" } },
	{ '>', act_sort, { NULL, NULL } },
	{ 'I', act_invert, { "I", "invert the sort order" } },
	{ 'H', act_threads, { "H", "tasks: one row per thread / per process" } },
	{ 'M', act_demangle, { "M", "symbols: raw / demangled C++ and Rust names" } },
	{ 'e', act_events, { "e", "event panel: on/off, per-event excludes" } },
	{ 'U', act_exclude_user, { "U", "exclude user samples (again: include)" } },
	{ 'K', act_exclude_kernel, { "K", "exclude kernel samples (again: include)" } },
	{ 'x', act_exclude_panel, { "x", "exclude panel: all six flags" } },
	{ '\n', act_focus, { "Enter", "focus on a task (-g symbols: call tree)" } },
	{ '\r', act_focus, { NULL, NULL } },
	{ KEY_ENTER, act_focus, { NULL, NULL } },
	{ KEY_ESC, act_back, { "Esc Backspace", "close tree/filter/search, leave Enter focus" } },
	{ KEY_BACKSPACE, act_back, { NULL, NULL } },
	{ 127, act_back, { NULL, NULL } },
	{ KEY_CTRL('h'), act_back, { NULL, NULL } },
	{ 'S', act_system_wide, { "S", "system-wide: leave a -p/-t/-G target" } },
	{ '/', act_filter, { "/ \\ F4", "filter: symbol, DSO, comm or PID" } },
	{ '\\', act_filter, { NULL, NULL } },
	{ KEY_F(4), act_filter, { NULL, NULL } },
	{ KEY_F(3), act_search, { "F3", "search: jump to a match, hide nothing" } },
	{ KEY_F(6), act_sort_menu, { "F6", "sort menu: pick the sort column" } },
	{ 'u', act_user, { "u", "tasks of one user only (empty: all)" } },
	{ KEY_F(9), act_kill, { "F9", "signal the tagged tasks, else the selected one" } },
	{ ' ', tags_key_tag, { "Space", "tasks: tag / untag the selected one, move down" } },
	{ 'Y', tags_key_children, { "Y", "tasks: tag it with its children" } },
	{ KEY_CTRL('u'), tags_key_untag, { "Ctrl-U", "untag all" } },
	{ 'P', save_key, { "P", "save the table to perftop.hist.N (text dump)" } },
	{ KEY_F(2), setup_key_open, { "F2 C", "setup: columns, colours, meters, defaults" } },
	{ 'C', setup_key_open, { NULL, NULL } },
	{ 'n', act_next, { "n N", "next / previous match (search, else filter)" } },
	{ 'N', act_prev, { NULL, NULL } },
	{ 'z', act_decay, { "z", "zero each interval / decay history" } },
	{ 'c', act_cumulative, { "c", "cumulative since start / interval" } },
	{ 'Z', act_pause, { "Z . ] [", "pause; -i: the replay, . a step, ] [ pace" } },
	{ '.', act_replay_step, { NULL, NULL } }, /* with Z: the help has no line to spare */
	{ ']', act_replay_speed, { NULL, NULL } },
	{ '[', act_replay_speed, { NULL, NULL } },
	{ 'd', act_interval, { "d", "set the refresh interval" } },
	/* One line for issue 49's three: the help at 120x40 has no room for more. */
	{ 't', tasktree_key, { "t g B", "task tree (- + fold); sort keys; baseline" } },
	{ 'g', groups_key, { NULL, NULL } },
	{ 'B', compare_key, { NULL, NULL } },
	{ '+', act_adjust, { "+ -", "longer / shorter refresh interval" } },
	{ '-', act_adjust, { NULL, NULL } },
	{ 'F', act_freq, { "F", "set the sampling frequency (re-open)" } },
	{ 'r', tree_flip, { "r F5", "call trees (-g): callers/callees, paths" } },
	{ 'O', waits_toggle, { "O", "off-CPU on/off: where threads wait" } },
	{ KEY_F(5), tree_keys_paths_open, { NULL, NULL } },
	{ 'W', tree_keys_wakers, { NULL, NULL } }, /* told in the help's Call trees */
	{ 'a', annview_open_selected, { NULL, NULL } }, /* told in the help's Annotate (a) */
	{ 0, NULL, { NULL, NULL } },
};

static const struct {
	const char *title;
	const struct key_binding *keys;
} sections[] = {
	{ "Anywhere", global_keys },
	{ "Tables", main_keys },
	{ "Event panel (e)", panel_keys_event },
	{ "Exclude panel (x)", panel_keys_exclude },
	{ "Sort menu (F6)", panel_keys_sort },
	{ "Call trees (-g)", tree_doc_keys },
	{ "Setup (F2 C)", setup_keys },
	{ "Annotate (a)", annview_keys },
	{ "Prompts (/ F3 F9 u d F)", panel_keys_prompt },
};

const char *keys_section(size_t s)
{
	return s < sizeof(sections) / sizeof(sections[0]) ? sections[s].title : NULL;
}

bool keys_doc(size_t s, size_t i, struct ui_keyhelp *out)
{
	const struct key_binding *k;

	if (s >= sizeof(sections) / sizeof(sections[0]))
		return false;
	for (k = sections[s].keys; k->fn || k->doc.keys; k++)
		if (k->doc.keys && i-- == 0) {
			*out = k->doc;
			return true;
		}
	return false;
}

static const struct key_binding *lookup(const struct key_binding *t, int key)
{
	for (; t->fn || t->doc.keys; t++)
		if (t->fn && t->key == key)
			return t;
	return NULL;
}

unsigned keys_dispatch(struct ui *u, int key)
{
	/* The table each mode reads first; the prompt and the help read keys themselves. */
	static const struct key_binding *const mode_keys[] = {
		[MODE_MAIN] = main_keys, [MODE_EVENTS] = panel_keys_event,
		[MODE_EXCLUDE] = panel_keys_exclude, [MODE_SORT] = panel_keys_sort,
		[MODE_PATHS] = tree_keys_paths, [MODE_SETUP] = setup_keys, [MODE_ANNOTATE] = annview_keys,
	};
	const struct key_binding *b = NULL;

	if (u->mode == MODE_PROMPT)
		return panel_keys_prompt_key(u, key);
	if (u->mode == MODE_HELP)
		return panel_keys_help_key(u, key);
	if (u->mode == MODE_ANNOTATE && annview_typing(u))
		return annview_prompt_key(u, key);
	if ((size_t)u->mode < sizeof(mode_keys) / sizeof(mode_keys[0]) && mode_keys[u->mode])
		b = lookup(mode_keys[u->mode], key);
	/* The annotate view follows the table's scope, decay and pause keys. */
	if (b == NULL && u->mode == MODE_ANNOTATE && key > 0 && key < 128 && strchr("czZ+-", key))
		return annview_table_key(u, key, lookup(main_keys, key)->fn(u, key));
	if (b == NULL)
		b = lookup(global_keys, key);
	if (b)
		return b->fn(u, key);
	if ((u->mode == MODE_MAIN || u->mode == MODE_ANNOTATE) && key != KEY_MOUSE) {
		const char *name = keyname(key);

		ui_message(u, false, "%s does nothing here (h: the keys)", name ? name : "that key");
		return UI_DRAW;
	}
	return 0;
}
