/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mouse: clicks and the wheel, mapped through where the last frame drew
 * things (tabs, column titles, rows, the function bar) onto what keys do. */
#include <curses.h>
#include <string.h>
#include <time.h>

#include "keys.h"

#define DOUBLE_MS 400

/* A click on the marker of a symbol row (-g) or of a tree line: as Enter. */
static bool on_marker(const struct ui *u, size_t line, int x)
{
	size_t tl;
	char buf[1024];
	enum ui_role role;

	views_line(u, line, &tl);
	if (tl == SIZE_MAX)
		return x == 0;
	treeview_line(u, &u->tree, tl, buf, sizeof(buf), &role);
	return x < (int)strlen(buf) && (buf[x] == '+' || buf[x] == '-') && strspn(buf, " ") == (size_t)x;
}

static unsigned click_row(struct ui *u, int y, int x)
{
	size_t v = u->view, row = u->top[v] + (size_t)(y - u->table_y);
	struct timespec now;
	long ms;

	if (row >= views_nlines(u))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - u->last_click.tv_sec) * 1000 + (now.tv_nsec - u->last_click.tv_nsec) / 1000000;
	views_select_line(u, row);
	if (u->callgraph && v == VIEW_SYMBOLS && on_marker(u, row, x)) {
		u->last_click.tv_sec = 0;
		return keys_dispatch(u, '\n');
	}
	if (u->last_click_row == row && ms >= 0 && ms < DOUBLE_MS) {
		u->last_click.tv_sec = 0;
		return keys_dispatch(u, '\n'); /* double click: focus, as Enter */
	}
	u->last_click = now;
	u->last_click_row = row;
	return UI_DRAW;
}

unsigned mouse_event(struct ui *u)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return 0;
	if (annview_typing(u)) /* the last line is the search prompt, not the bar */
		return 0;
	if (ev.bstate & BUTTON4_PRESSED)
		return keys_dispatch(u, KEY_UP) | keys_dispatch(u, KEY_UP) | keys_dispatch(u, KEY_UP);
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED)
		return keys_dispatch(u, KEY_DOWN) | keys_dispatch(u, KEY_DOWN) | keys_dispatch(u, KEY_DOWN);
#endif
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
		return 0;
	if (ev.y == LINES - 1) { /* the function bar: the key under the click */
		for (int i = 0; i < u->nbar_hit; i++)
			if (ev.x >= u->bar_hit[i].x0 && ev.x <= u->bar_hit[i].x1 && u->bar_hit[i].key)
				return keys_dispatch(u, u->bar_hit[i].key);
		return 0;
	}
	if (u->mode == MODE_ANNOTATE)
		return annview_mouse(u, ev.y, ev.x);
	if (u->mode != MODE_MAIN)
		return 0;
	if (ev.y == u->head_y - 1) { /* the tabs */
		for (int v = 0; v < VIEW_COUNT; v++)
			if (ev.x >= u->tab_x[v] && ev.x < u->tab_x[v + 1]) {
				u->view = (enum ui_view)v;
				return UI_RESORT;
			}
		return 0;
	}
	if (ev.y == u->head_y) { /* a title: sort by it; again: invert */
		for (int i = 0; i < u->nhead_hit; i++)
			if (ev.x >= u->head_hit[i].x0 && ev.x <= u->head_hit[i].x1) {
				if (u->sort_col[u->view] == u->head_hit[i].col)
					u->sort_inv[u->view] = !u->sort_inv[u->view];
				u->sort_col[u->view] = u->head_hit[i].col;
				return UI_RESORT;
			}
		return 0;
	}
	if (ev.y >= u->table_y && ev.y < u->table_y + u->table_rows)
		return click_row(u, ev.y, ev.x);
	return 0;
}
