/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setup_keys: the F2 screen's keys. A change applies at once (the table,
 * the colours, the header); prefs.c writes what changed at the quit. */
#include <curses.h>
#include <stdio.h>

#include "keys.h"
#include "setup.h"

unsigned setup_key_open(struct ui *u, int key)
{
	if (u->mode == MODE_SETUP) {
		u->mode = MODE_MAIN;
		return UI_RESORT;
	}
	u->mode = MODE_SETUP;
	u->setup_sec = (size_t)u->view; /* the columns of the view shown */
	u->setup_sel = 0;
	return UI_DRAW;
}

static unsigned setup_close(struct ui *u, int key)
{
	u->mode = MODE_MAIN;
	return UI_RESORT;
}

static unsigned setup_move(struct ui *u, int key)
{
	size_t n = setup_nitems(u, u->setup_sec), *s = &u->setup_sel;

	if (n == 0)
		return 0;
	if (key == KEY_UP || key == 'k')
		*s = *s ? *s - 1 : 0;
	else if (key == KEY_DOWN || key == 'j')
		*s = *s + 1 < n ? *s + 1 : n - 1;
	else if (key == KEY_HOME || key == KEY_PPAGE)
		*s = 0;
	else
		*s = n - 1;
	return UI_DRAW;
}

static unsigned setup_section(struct ui *u, int key)
{
	bool back = key == KEY_LEFT || key == KEY_BTAB;

	u->setup_sec = (u->setup_sec + (back ? SETUP_COUNT - 1 : 1)) % SETUP_COUNT;
	u->setup_sel = 0;
	return UI_DRAW;
}

/* A change of view v's columns, its sort staying on the same column. */
static void columns_change(struct ui *u, enum ui_view v, size_t col, int dir)
{
	enum ui_view was = u->view;
	const void *sc;
	size_t ev;

	u->view = v;
	views_sort_get(u, &sc, &ev);
	if (dir)
		colset_move(u, v, col, dir);
	else
		colset_toggle(u, v, col);
	views_sort_set(u, sc, ev);
	u->view = was;
}

static unsigned columns_key(struct ui *u, int dir)
{
	enum ui_view v = (enum ui_view)u->setup_sec;
	size_t col = setup_col_at(u, v, u->setup_sel), shown[UI_MAX_COLS], seen = 0;
	size_t ns = colset_list(u, v, shown, UI_MAX_COLS);

	for (size_t k = 0; k < ns; k++)
		seen += colset_available(u, v, shown[k]);
	if (dir == 0 && seen == 1 && colset_shown(u, v, col)) {
		ui_message(u, false, "%s is the last column shown: one stays", colset_name(v, col));
		return UI_DRAW;
	}
	if (dir && !colset_shown(u, v, col)) {
		ui_message(u, false, "%s is hidden: Space shows it, then it moves", colset_name(v, col));
		return UI_DRAW;
	}
	columns_change(u, v, col, dir);
	/* The selection follows the column moved (shown ones list first, in order). */
	if (dir)
		for (size_t i = 0; i < setup_nitems(u, u->setup_sec); i++)
			if (setup_col_at(u, v, i) == col)
				u->setup_sel = i;
	return UI_DRAW;
}

static unsigned sort_next(struct ui *u, enum ui_view v, bool invert)
{
	enum ui_view was = u->view;
	size_t n;

	u->view = v;
	n = views_ncols(u);
	if (invert)
		u->sort_inv[v] = !u->sort_inv[v];
	else if (n)
		u->sort_col[v] = (u->sort_col[v] + 1) % n;
	u->view = was;
	return UI_DRAW;
}

static unsigned default_key(struct ui *u, int key)
{
	size_t i = u->setup_sel;

	switch (i) {
	case DEF_VIEW:
		u->start_view = u->start_view + 1 < VIEW_WAITS ? u->start_view + 1 : -1;
		return UI_DRAW;
	case DEF_DELAY:
		return actions_interval_step(u, key != '-');
	case DEF_SORT_SYMBOLS:
	case DEF_SORT_TASKS:
	case DEF_SORT_CPUS:
		return sort_next(u, (enum ui_view)(i - DEF_SORT_SYMBOLS), key == 'I');
	case DEF_DECAY:
		u->decay = !u->decay;
		return UI_DRAW;
	default:
		u->cumulative = !u->cumulative;
		return UI_DRAW;
	}
}

static unsigned setup_space(struct ui *u, int key)
{
	switch (u->setup_sec) {
	case SETUP_COLS_SYMBOLS:
	case SETUP_COLS_TASKS:
	case SETUP_COLS_CPUS:
		return columns_key(u, 0);
	case SETUP_COLORS:
		if (!u->color)
			ui_message(u, false, "colours are off here (--no-color, NO_COLOR or the terminal): kept for later");
		paint_scheme(u, (enum ui_scheme)u->setup_sel);
		return UI_CLEAR | UI_DRAW;
	case SETUP_METERS:
		u->meters ^= 1u << u->setup_sel;
		return UI_DRAW;
	default:
		return default_key(u, key);
	}
}

static unsigned setup_order(struct ui *u, int key)
{
	if (u->setup_sec > SETUP_COLS_CPUS)
		return 0;
	return columns_key(u, key == KEY_F(7) || key == '[' ? -1 : 1);
}

static unsigned setup_value(struct ui *u, int key)
{
	if (u->setup_sec == SETUP_DEFAULTS && (u->setup_sel == DEF_DELAY || key == 'I'))
		return default_key(u, key);
	if (key == 'I') {
		ui_message(u, false, "I inverts the sort selected in Defaults");
		return UI_DRAW;
	}
	return setup_space(u, key);
}

const struct key_binding setup_keys[] = {
	{ KEY_UP, setup_move, { "Up Down", "select an item" } },
	{ KEY_DOWN, setup_move, { NULL, NULL } },
	{ 'k', setup_move, { NULL, NULL } },
	{ 'j', setup_move, { NULL, NULL } },
	{ KEY_HOME, setup_move, { NULL, NULL } },
	{ KEY_END, setup_move, { NULL, NULL } },
	{ KEY_PPAGE, setup_move, { NULL, NULL } },
	{ KEY_NPAGE, setup_move, { NULL, NULL } },
	{ '\t', setup_section, { "Tab Left Right", "the next / previous section" } },
	{ KEY_BTAB, setup_section, { NULL, NULL } },
	{ KEY_LEFT, setup_section, { NULL, NULL } },
	{ KEY_RIGHT, setup_section, { NULL, NULL } },
	{ ' ', setup_space, { "Space Enter", "show/hide a column, pick, change" } },
	{ '\n', setup_space, { NULL, NULL } },
	{ '\r', setup_space, { NULL, NULL } },
	{ KEY_ENTER, setup_space, { NULL, NULL } },
	{ KEY_F(7), setup_order, { "F7 F8 [ ]", "move the column up / down" } },
	{ KEY_F(8), setup_order, { NULL, NULL } },
	{ '[', setup_order, { NULL, NULL } },
	{ ']', setup_order, { NULL, NULL } },
	{ '-', setup_value, { "- + I", "defaults: interval; invert a sort" } },
	{ '+', setup_value, { NULL, NULL } },
	{ 'I', setup_value, { NULL, NULL } },
	{ KEY_ESC, setup_close, { "Esc F2 C", "done (kept in perftoprc at q)" } },
	{ KEY_F(2), setup_close, { NULL, NULL } },
	{ 'C', setup_close, { NULL, NULL } },
	{ 0, NULL, { NULL, NULL } },
};
