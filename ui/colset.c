/* SPDX-License-Identifier: GPL-2.0-or-later */
/* colset: which columns of a view show, and in which order (the setup
 * screen's, perftoprc's columns.VIEW). Columns are named by their titles;
 * a per-event column is "events"; a column that spans the next ("Symbol"
 * over "[k] name") moves and hides with it. */
#include <string.h>
#include <strings.h>

#include "columns.h"

static bool is_second(const struct view_def *d, size_t i)
{
	return i > 0 && d->cols[i - 1].span;
}

const char *colset_name(enum ui_view v, size_t col)
{
	const struct column *c = &columns_views[v].cols[col];

	if (c->per_event)
		return "events";
	return c->title && c->title[0] ? c->title : c->sort_name ? c->sort_name : "?";
}

size_t colset_all(enum ui_view v, size_t *out, size_t max)
{
	const struct view_def *d = &columns_views[v];
	size_t n = 0;

	for (size_t i = 0; i < d->ncols && n < max; i++)
		if (!is_second(d, i))
			out[n++] = i;
	return n;
}

int colset_find(enum ui_view v, const char *name)
{
	size_t all[UI_MAX_COLS], n = colset_all(v, all, UI_MAX_COLS);

	for (size_t i = 0; i < n; i++)
		if (strcasecmp(colset_name(v, all[i]), name) == 0)
			return (int)all[i];
	return -1;
}

size_t colset_list(const struct ui *u, enum ui_view v, size_t *out, size_t max)
{
	size_t n = 0;

	if (!u->col_custom[v])
		return colset_all(v, out, max);
	for (size_t i = 0; i < u->ncol_order[v] && n < max; i++)
		if (u->col_order[v][i] < columns_views[v].ncols)
			out[n++] = u->col_order[v][i];
	return n;
}

bool colset_shown(const struct ui *u, enum ui_view v, size_t col)
{
	size_t l[UI_MAX_COLS], n = colset_list(u, v, l, UI_MAX_COLS);

	for (size_t i = 0; i < n; i++)
		if (l[i] == col)
			return true;
	return false;
}

bool colset_available(const struct ui *u, enum ui_view v, size_t col)
{
	const struct column *c = &columns_views[v].cols[col];

	if (c->offcpu && !waits_shown(u))
		return false;
	if (c->baseline && !compare_on(u))
		return false;
	return !c->cg || (c->cg > 0) == u->callgraph;
}

/* The order made explicit, to be changed. */
static void take(struct ui *u, enum ui_view v)
{
	size_t l[UI_MAX_COLS], n = colset_list(u, v, l, UI_MAX_COLS);

	for (size_t i = 0; i < n; i++)
		u->col_order[v][i] = (uint8_t)l[i];
	u->ncol_order[v] = n;
	u->col_custom[v] = true;
}

void colset_toggle(struct ui *u, enum ui_view v, size_t col)
{
	size_t *n = &u->ncol_order[v];

	take(u, v);
	for (size_t i = 0; i < *n; i++)
		if (u->col_order[v][i] == col) {
			memmove(&u->col_order[v][i], &u->col_order[v][i + 1], *n - i - 1);
			(*n)--;
			return;
		}
	/* Shown again where the table has it among the shown. */
	{
		size_t at = *n;

		for (size_t i = 0; i < *n; i++)
			if (u->col_order[v][i] > col) {
				at = i;
				break;
			}
		memmove(&u->col_order[v][at + 1], &u->col_order[v][at], *n - at);
		u->col_order[v][at] = (uint8_t)col;
		(*n)++;
	}
}

void colset_move(struct ui *u, enum ui_view v, size_t col, int dir)
{
	take(u, v);
	for (size_t i = 0; i < u->ncol_order[v]; i++) {
		size_t j = i;
		uint8_t t;

		if (u->col_order[v][i] != col)
			continue;
		/* Past the columns this run does not show: the move is seen. */
		do {
			if ((dir < 0 && j == 0) || (dir > 0 && j + 1 >= u->ncol_order[v]))
				return;
			j = dir < 0 ? j - 1 : j + 1;
		} while (!colset_available(u, v, u->col_order[v][j]));
		t = u->col_order[v][i];
		u->col_order[v][i] = u->col_order[v][j];
		u->col_order[v][j] = t;
		return;
	}
}
