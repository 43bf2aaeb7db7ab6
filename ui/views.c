/* SPDX-License-Identifier: GPL-2.0-or-later */
/* views: the table of the view shown — filtered, sorted, laid out and drawn
 * from the column tables in columns.c. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "sanitize.h"

/* One column on screen: per-event columns once per event. */
struct col_inst {
	const struct column *c;
	size_t ev;
	int width;
};

#define MAX_INST (16 + 2 * AGG_MAX_EVENTS)

const char *views_title(const struct ui *u, enum ui_view v)
{
	return columns_views[v].name;
}

uint64_t views_row_key(const struct ui *u, const void *row)
{
	return columns_views[u->view].key(row);
}

bool views_match(const struct ui *u, const void *row, const char *pat)
{
	return columns_views[u->view].match(row, pat);
}

/* Column c's instances (per-event ones once an event) after out[*n]. */
static void expand_col(const struct ui *u, const struct column *c, struct col_inst *out, size_t *n)
{
	if ((c->threads_only && !u->threads) || (c->offcpu && !waits_shown(u)))
		return;
	if (c->baseline && !compare_on(u))
		return;
	if (c->cg && (c->cg > 0) != u->callgraph)
		return;
	if (c->ratio) {
		if (u->fr.ratio_avail[c->ratio - 1])
			out[(*n)++] = (struct col_inst){ c, (size_t)(c->ratio - 1), c->width };
		return;
	}
	if (!c->per_event) {
		out[(*n)++] = (struct col_inst){ c, 0, c->width };
		return;
	}
	if (c->multi_only && u->fr.nev < 2)
		return;
	for (size_t e = 0; e < u->fr.nev && *n < MAX_INST; e++) {
		int nl = (int)strlen(u->fr.ev[e].name);

		/* As wide as the event's name, within reason. */
		out[(*n)++] = (struct col_inst){ c, e, nl < c->width ? c->width : nl > 16 ? 16 : nl };
	}
}

/* The columns shown (colset.c: the setup's order), per-event ones
 * expanded; a spanning column with the one it spans. */
static size_t expand(const struct ui *u, struct col_inst *out)
{
	const struct view_def *v = &columns_views[u->view];
	size_t n = 0, list[UI_MAX_COLS], nl = colset_list(u, u->view, list, UI_MAX_COLS);

	for (size_t k = 0; k < nl && n + AGG_MAX_EVENTS < MAX_INST; k++) {
		expand_col(u, &v->cols[list[k]], out, &n);
		if (v->cols[list[k]].span && list[k] + 1 < v->ncols)
			expand_col(u, &v->cols[list[k] + 1], out, &n);
	}
	return n;
}

size_t views_sort_event(const struct ui *u)
{
	struct col_inst inst[MAX_INST];
	size_t n = expand(u, inst), c = u->sort_col[u->view];

	return c < n && inst[c].c->per_event && inst[c].ev < u->fr.nev ? inst[c].ev : ui_primary(u);
}

size_t views_ncols(const struct ui *u)
{
	struct col_inst inst[MAX_INST];

	return expand(u, inst);
}

static void column_title(const struct ui *u, const struct col_inst *ci, char *buf, size_t len);

void views_sort_get(const struct ui *u, const void **col, size_t *ev)
{
	struct col_inst inst[MAX_INST];
	size_t n = expand(u, inst), sc = u->sort_col[u->view];

	*col = sc < n ? inst[sc].c : NULL;
	*ev = sc < n ? inst[sc].ev : 0;
}

void views_sort_set(struct ui *u, const void *col, size_t ev)
{
	struct col_inst inst[MAX_INST];
	size_t n = expand(u, inst);

	for (size_t i = 0; i < n; i++)
		if (inst[i].c == col && inst[i].ev == ev)
			u->sort_col[u->view] = i;
}

void views_col_name(const struct ui *u, size_t i, char *buf, size_t len)
{
	struct col_inst inst[MAX_INST];
	size_t n = expand(u, inst);

	buf[0] = '\0';
	if (i >= n)
		return;
	if (inst[i].c->sort_name)
		strlcpy(buf, inst[i].c->sort_name, len);
	else
		column_title(u, &inst[i], buf, len);
}

struct sort_ctx {
	const struct ui *u;
	struct col_inst col;
	bool inv;
};

/* One order for both sorts: r from the column, inverted on request, the
 * view's key breaking ties so rows keep their places between refreshes. */
static int order(const struct sort_ctx *cx, int r, uint64_t ka, uint64_t kb)
{
	if (cx->inv)
		r = -r;
	return r != 0 ? r : (ka > kb) - (ka < kb);
}

static int cmp_num(const struct column *c, double x, double y)
{
	return c->asc ? (x > y) - (x < y) : (x < y) - (x > y); /* counts: biggest first */
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *cx = arg;
	const void *a = *(const void *const *)pa, *b = *(const void *const *)pb;
	const struct column *c = cx->col.c;
	int r;

	if (c->str)
		r = strcmp(c->str(a), c->str(b));
	else
		r = cmp_num(c, c->num(cx->u, a, cx->col.ev), c->num(cx->u, b, cx->col.ev));
	return order(cx, r, columns_views[cx->u->view].key(a), columns_views[cx->u->view].key(b));
}

/* A number column sorts on its values taken once a row (num() was called
 * twice a comparison: most of the sort), the key beside it for the ties. */
static int cmp_items(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *cx = arg;
	const struct ui_sort_item *a = pa, *b = pb;

	return order(cx, cmp_num(cx->col.c, a->num, b->num), a->key, b->key);
}

static void sort_rows(struct ui *u, const struct sort_ctx *cx)
{
	const struct column *c = cx->col.c;
	struct ui_sort_item *it;

	if (u->nrows < 2)
		return;
	if (c->str || !c->num) {
		qsort_r(u->rows, u->nrows, sizeof(*u->rows), cmp_rows, (void *)cx);
		return;
	}
	if (u->nrows > u->items_cap) {
		it = reallocarray(u->items, u->nrows, sizeof(*it));
		if (it == NULL) { /* the slow way, same order */
			qsort_r(u->rows, u->nrows, sizeof(*u->rows), cmp_rows, (void *)cx);
			return;
		}
		u->items = it;
		u->items_cap = u->nrows;
	}
	it = u->items;
	for (size_t i = 0; i < u->nrows; i++)
		it[i] = (struct ui_sort_item){ c->num(u, u->rows[i], cx->col.ev), columns_views[u->view].key(u->rows[i]),
					       u->rows[i] };
	qsort_r(it, u->nrows, sizeof(*it), cmp_items, (void *)cx);
	for (size_t i = 0; i < u->nrows; i++)
		u->rows[i] = it[i].row;
}

static bool grow_rows(struct ui *u, size_t n)
{
	const void **p;

	if (n <= u->rows_cap)
		return true;
	p = reallocarray(u->rows, n, sizeof(*p));
	if (p == NULL)
		return false;
	u->rows = p;
	u->rows_cap = n;
	return true;
}

static void add_rows(struct ui *u, const void *base, size_t n, size_t size)
{
	const struct view_def *v = &columns_views[u->view];

	for (size_t i = 0; i < n; i++) {
		const void *row = (const char *)base + i * size;

		/* Rows that took no samples in scope are history, not news; with
		 * -g a caller that only calls (main) has children, no self. */
		if (u->view != VIEW_CPUS && u->view != VIEW_WAITS &&
		    columns_counts_sum(u, v->counts(row, ui_scope(u))) == 0 &&
		    !(u->view == VIEW_SYMBOLS && u->callgraph && columns_counts_sum(u, columns_children_of(u, row))))
			continue;
		if (u->filter[u->view][0] && !v->match(row, u->filter[u->view]))
			continue;
		if (u->view == VIEW_TASKS && u->user[0] && !taskuid_match(u, row))
			continue;
		u->rows[u->nrows++] = row;
	}
}

/* Filters and sorts the frame into u->rows; the selection follows its row. */
void views_build(struct ui *u)
{
	struct col_inst inst[MAX_INST];
	size_t ncols = expand(u, inst), v = u->view, i;
	struct sort_ctx cx = { .u = u };

	u->nrows = 0;
	taskuid_note(u);
	switch (u->view) {
	case VIEW_SYMBOLS:
		if (grow_rows(u, u->fr.nsyms))
			add_rows(u, u->fr.syms, u->fr.nsyms, sizeof(*u->fr.syms));
		break;
	case VIEW_TASKS:
		if (u->threads && grow_rows(u, u->fr.nthreads))
			add_rows(u, u->fr.threads, u->fr.nthreads, sizeof(*u->fr.threads));
		else if (!u->threads && grow_rows(u, u->fr.ntasks))
			add_rows(u, u->fr.tasks, u->fr.ntasks, sizeof(*u->fr.tasks));
		break;
	case VIEW_WAITS:
		if (grow_rows(u, u->waits.n))
			add_rows(u, u->waits.rows, u->waits.n, sizeof(*u->waits.rows));
		break;
	default:
		if (grow_rows(u, u->fr.ncpus))
			add_rows(u, u->fr.cpus, u->fr.ncpus, sizeof(*u->fr.cpus));
		break;
	}
	if (u->sort_col[v] >= ncols)
		u->sort_col[v] = 0;
	if (ncols) { /* none: every column hidden in the setup (it keeps one) */
		cx.col = inst[u->sort_col[v]];
		cx.inv = u->sort_inv[v];
		sort_rows(u, &cx);
	}
	if (tasktree_on(u))
		tasktree_build(u);
	if (groups_hier_on(u))
		groups_hier_build(u);
	if (u->sel_valid[v])
		for (i = 0; i < u->nrows; i++)
			if (columns_views[v].key(u->rows[i]) == u->sel_key[v]) {
				u->sel[v] = i;
				break;
			}
	if (u->sel[v] >= u->nrows)
		u->sel[v] = u->nrows ? u->nrows - 1 : 0;
	/* The inline tree hangs under its symbol's row, wherever it sorts. */
	u->tree_row = SIZE_MAX;
	if (calltree_in_view(u)) /* a symbol's, or a wait's (Waits view) */
		for (i = 0; i < u->nrows; i++)
			if (calltree_row_is(u, u->rows[i])) {
				u->tree_row = i;
				break;
			}
	if (u->tree.in && (u->tree_row == SIZE_MAX || u->sel[v] != u->tree_row))
		u->tree.in = false;
}

static size_t tree_nlines(const struct ui *u)
{
	return u->tree_row < u->nrows && calltree_in_view(u) ? u->tree.nvis : 0;
}

size_t views_nlines(const struct ui *u)
{
	return u->nrows + tree_nlines(u);
}

size_t views_line(const struct ui *u, size_t i, size_t *tl)
{
	size_t n = tree_nlines(u);

	*tl = SIZE_MAX;
	if (n == 0 || i <= u->tree_row)
		return i;
	if (i <= u->tree_row + n) {
		*tl = i - u->tree_row - 1;
		return u->tree_row;
	}
	return i - n;
}

size_t views_sel_line(const struct ui *u)
{
	size_t s = u->sel[u->view], n = tree_nlines(u);

	if (n == 0 || s < u->tree_row)
		return s;
	if (s == u->tree_row)
		return s + (u->tree.in ? 1 + u->tree.sel : 0);
	return s + n;
}

void views_select_line(struct ui *u, size_t line)
{
	size_t v = u->view, tl, r;

	if (u->nrows == 0)
		return;
	if (line >= views_nlines(u))
		line = views_nlines(u) - 1;
	r = views_line(u, line, &tl);
	u->sel[v] = r;
	u->sel_key[v] = views_row_key(u, u->rows[r]);
	u->sel_valid[v] = true;
	u->tree.in = tl != SIZE_MAX;
	if (u->tree.in)
		calltree_select(&u->tree, tl);
}

/* Widths for a screen w wide: the flexible column takes the rest; per-event
 * columns go first when there is no room, then the DSO column shrinks. */
static size_t layout(const struct ui *u, struct col_inst *inst, int w)
{
	size_t n = expand(u, inst);
	int fixed;

	for (;;) {
		size_t last_ev = n;

		fixed = 0;
		for (size_t i = 0; i < n; i++) {
			fixed += inst[i].width + 1;
			if (inst[i].c->per_event && inst[i].ev > 0)
				last_ev = i;
		}
		if (fixed + 12 <= w || last_ev == n)
			break;
		memmove(&inst[last_ev], &inst[last_ev + 1], (n - last_ev - 1) * sizeof(*inst));
		n--;
	}
	for (size_t i = 0; i < n && fixed + 12 > w; i++)
		if (inst[i].c->shrinks) {
			fixed -= inst[i].width - 10;
			inst[i].width = 10;
		}
	/* A fitting column takes what its texts need, from what the flexible
	 * one can spare (it keeps 24), up to a third of the line. */
	for (size_t i = 0; i < n; i++) {
		char buf[512];
		int want = inst[i].width, room;

		if (!inst[i].c->fit)
			continue;
		for (size_t r = 0; r < u->nrows; r++) {
			int l;

			inst[i].c->text(u, u->rows[r], inst[i].ev, buf, sizeof(buf));
			l = (int)strlen(buf);
			want = l > want ? l : want;
		}
		room = inst[i].width + (w - fixed - 24);
		want = want > w / 3 ? w / 3 : want;
		want = want > room ? room : want;
		if (want > inst[i].width) {
			fixed += want - inst[i].width;
			inst[i].width = want;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (inst[i].width == 0)
			inst[i].width = w - fixed > 1 ? w - fixed : 1;
	return n;
}

static void column_title(const struct ui *u, const struct col_inst *ci, char *buf, size_t len)
{
	if (groups_title(u, ci->c->title, buf, len)) /* --sort: the keys' titles */
		return;
	if (ci->c->title)
		strlcpy(buf, ci->c->title, len);
	else
		strlcpy(buf, u->fr.ev[ci->ev].name, len);
}

static const char *mode_name(const struct ui *u)
{
	if (u->cumulative)
		return "cumulative";
	return u->decay ? "decaying" : "interval";
}

static void draw_tabs(struct ui *u, int y, int w)
{
	struct col_inst inst[MAX_INST];
	size_t n = expand(u, inst), sc = u->sort_col[u->view];
	char title[64], right[256];
	int x = 0;

	paint_fill(y, 0, w, R_NORMAL);
	for (int v = 0; v < VIEW_COUNT && x < w; v++) {
		u->tab_x[v] = x;
		if (v == VIEW_WAITS && !waits_shown(u)) {
			u->tab_x[v + 1] = x;
			continue;
		}
		snprintf(title, sizeof(title), " %s ", columns_views[v].name);
		paint_text(y, x, (int)strlen(title), v == (int)u->view ? R_HEAD_SORT : R_LABEL, title, false);
		x += (int)strlen(title) + 1;
		u->tab_x[v + 1] = x;
	}
	if (sc < n && inst[sc].c->sort_name)
		strlcpy(title, inst[sc].c->sort_name, sizeof(title));
	else if (sc < n)
		column_title(u, &inst[sc], title, sizeof(title));
	else
		title[0] = '\0';
	{
		char where[96] = "";

		char user[80] = "";

		if (u->view == VIEW_TASKS && u->user[0])
			snprintf(user, sizeof(user), "user: %s  ", u->user);
		if (u->ntags) /* F9 signals them, from any view */
			snprintf(user + strlen(user), sizeof(user) - strlen(user), "%zu tagged  ", u->ntags);
		if (u->nrows)
			snprintf(where, sizeof(where), "%srow %zu of %zu  ", user, u->sel[u->view] + 1, u->nrows);
		else
			snprintf(where, sizeof(where), "%s0 rows  ", user);
		snprintf(right, sizeof(right), "%s%s%s%s%s  sort: %s%s", u->filter[u->view][0] ? "filter: " : "",
			 u->filter[u->view], u->filter[u->view][0] ? "  " : "", where, mode_name(u),
			 title[0] ? title : "?", u->sort_inv[u->view] ? " (inverted)" : "");
		/* Narrow: the row count and the filter stay, the rest goes. */
		if ((int)strlen(right) > w - x - 2)
			snprintf(right, sizeof(right), "%s%s%s%s", u->filter[u->view][0] ? "filter: " : "",
				 u->filter[u->view], u->filter[u->view][0] ? "  " : "", where);
	}
	if (x + 2 < w) {
		char safe[256];

		/* The filter is the user's own typing, yet printable only. */
		sanitize(safe, sizeof(safe), right);
		paint_text(y, x + 1, w - x - 1, R_LABEL, safe, true);
	}
}

static enum ui_role row_role(const struct ui *u, int v, const void *row, const struct column *c, bool sel, bool hit)
{
	if (!sel && !hit && c->baseline) /* the change: + and - coloured */
		return compare_role(u, row);
	return sel ? R_SELECTED : hit ? R_METER : columns_views[v].role ? columns_views[v].role(row, c) : R_NORMAL;
}

/* A tagged task (Space): its row in the tagged colour, '*' in its first cell. */
static bool row_tagged(const struct ui *u, const void *row)
{
	return u->view == VIEW_TASKS && u->ntags && ui_tagged(u, (pid_t)columns_views[VIEW_TASKS].key(row));
}

void views_draw(struct ui *u, int y, int h, int w)
{
	struct col_inst inst[MAX_INST];
	size_t n = layout(u, inst, w), v = u->view, all[MAX_INST], nall, nlines, sl;
	struct col_inst allinst[MAX_INST];
	char buf[512];
	int x, rows = h - 2;

	if (h < 3)
		return;
	draw_tabs(u, y, w);
	/* Which on-screen column is the sort column: match by identity. */
	nall = expand(u, allinst);
	for (size_t i = 0; i < n; i++) {
		all[i] = SIZE_MAX;
		for (size_t j = 0; j < nall; j++)
			if (allinst[j].c == inst[i].c && allinst[j].ev == inst[i].ev)
				all[i] = j;
	}
	paint_fill(y + 1, 0, w, R_HEAD);
	u->head_y = y + 1;
	u->nhead_hit = 0;
	for (size_t i = 0, xx = 0; i < n && u->nhead_hit < 48; xx += (size_t)inst[i].width + 1, i++)
		if (all[i] != SIZE_MAX) {
			u->head_hit[u->nhead_hit].x0 = (int)xx;
			u->head_hit[u->nhead_hit].x1 = (int)xx + inst[i].width;
			u->head_hit[u->nhead_hit++].col = all[i];
		}
	for (size_t i = 0, xx = 0; i < n; xx += (size_t)inst[i].width + 1, i++) {
		int cw = inst[i].width;
		bool sorted = all[i] == u->sort_col[v];

		column_title(u, &inst[i], buf, sizeof(buf));
		if (inst[i].c->span && i + 1 < n) {
			cw += inst[i + 1].width + 1;
			sorted = sorted || all[i + 1] == u->sort_col[v];
		} else if (i > 0 && inst[i - 1].c->span) {
			continue; /* drawn by the column before */
		}
		paint_text(y + 1, (int)xx, cw, sorted ? R_HEAD_SORT : R_HEAD, buf, !inst[i].c->left);
	}
	u->page = rows;
	u->table_y = y + 2;
	u->table_rows = rows;
	/* top: the first line shown (rows, and the inline tree's lines) */
	nlines = views_nlines(u);
	sl = views_sel_line(u);
	if (sl < u->top[v])
		u->top[v] = sl;
	if (sl >= u->top[v] + (size_t)rows)
		u->top[v] = sl - (size_t)rows + 1;
	if (u->top[v] + (size_t)rows > nlines)
		u->top[v] = nlines > (size_t)rows ? nlines - (size_t)rows : 0;
	if (u->nrows == 0) {
		char why[160];

		if (u->filter[u->view][0])
			snprintf(why, sizeof(why), "no rows match the %s filter \"%s\" (/ changes it, Esc clears it)",
				 columns_views[v].name, u->filter[u->view]);
		else if (u->view == VIEW_TASKS && u->user[0])
			snprintf(why, sizeof(why), "no task of user \"%s\" took samples (u, Enter: all users)", u->user);
		else
			ui_empty_why(u, why, sizeof(why));
		paint_foreign_words(y + 2 + rows / 2, 0, w, R_WARN, why);
		return;
	}
	for (int r = 0; r < rows && u->top[v] + (size_t)r < nlines; r++) {
		size_t line = u->top[v] + (size_t)r, tl, idx = views_line(u, line, &tl);
		const void *row = u->rows[idx];
		bool sel = line == sl, tagged;
		bool hit = u->search[0] && columns_views[v].match(row, u->search);

		if (tl != SIZE_MAX) {
			enum ui_role role;

			treeview_line(u, &u->tree, tl, buf, sizeof(buf), &role);
			paint_name(y + 2 + r, 0, w, sel ? R_SELECTED : role, buf);
			continue;
		}

		if (v == VIEW_TASKS)
			taskcpu_update(u, row);
		tagged = row_tagged(u, row);

		paint_fill(y + 2 + r, 0, w, sel ? R_SELECTED : R_NORMAL);
		x = 0;
		for (size_t i = 0; i < n; x += inst[i].width + 1, i++) {
			const struct column *c = inst[i].c;
			enum ui_role role = tagged && !sel ? R_TAGGED : row_role(u, v, row, c, sel, hit);
			char safe[1024];
			const char *t = safe;

			c->text(u, row, inst[i].ev, buf, sizeof(buf));
			if (c->foreign)
				sanitize(safe, sizeof(safe), buf);
			else
				strlcpy(safe, buf, sizeof(safe));
			if (c->width == 0) /* Left/Right scroll the long names */
				t = strlen(safe) > u->hscroll[v] ? safe + u->hscroll[v] : "";
			else if ((c->fit || c->shrinks) && (int)strlen(safe) > inst[i].width && inst[i].width > 1)
				strlcpy(safe + inst[i].width - 1, "~", 2); /* cut: marked */
			if (c->width == 0 && c->left) /* a long name: cut, marked */
				paint_name(y + 2 + r, x, inst[i].width, role, t);
			else
				paint_text(y + 2 + r, x, inst[i].width, role, t, !c->left);
			/* "[k] name": the gap in the colour of both. */
			if (!sel && role != R_NORMAL && i + 1 < n &&
			    (tagged || row_role(u, v, row, inst[i + 1].c, sel, hit) == role))
				paint_gap(y + 2 + r, x + inst[i].width, role);
		}
		if (tagged)
			paint_text(y + 2 + r, 0, 1, sel ? R_SELECTED : R_TAGGED, "*", false);
	}
}

/* What the selected row does not show in full: a symbol's whole DSO path. */
void views_detail(const struct ui *u, char *buf, size_t len)
{
	const struct agg_sym *r;

	buf[0] = '\0';
	/* Once the user picked a row: the notices stay until then. */
	if (u->view != VIEW_SYMBOLS || !u->sel_valid[u->view] || u->nrows == 0 || u->sel[u->view] >= u->nrows)
		return;
	r = u->rows[u->sel[u->view]];
	snprintf(buf, len, "%s  %s", r->dso ? r->dso : "?", r->sym ? r->sym : "?");
}
