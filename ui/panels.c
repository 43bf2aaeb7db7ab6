/* SPDX-License-Identifier: GPL-2.0-or-later */
/* panels: the event panel (e), the exclude panel (x), the help screen. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "evspec.h"
#include "ui.h"

/* Letters of the exclude flags, in EXCL_* bit order; 'v' for hypervisor and
 * 'o' for host keep clear of htop's H (threads). */
static const struct {
	char key;
	const char *name;
} flags[] = {
	{ 'u', "user" }, { 'k', "kernel" }, { 'v', "hypervisor (hv)" },
	{ 'i', "idle" }, { 'o', "host" }, { 'g', "guest" },
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

/* h: the screen's lines; the box keeps clear of the message line and the
 * function bar, which are drawn after it (at 60x12 they hid its last row). */
static void panel_geometry(int h, int w, int rows, int want_w, int *y, int *x, int *ph, int *pw)
{
	h -= 2;
	*pw = want_w < w - 2 ? want_w : w - 2;
	*ph = rows + 4 < h ? rows + 4 : h;
	*y = (h - *ph) / 2;
	*x = (w - *pw) / 2;
}

static void flag_cells(unsigned bits, char *buf, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < NFLAGS && o + 3 < len; i++) {
		buf[o++] = bits & (1u << i) ? flags[i].key : '.';
		buf[o++] = ' ';
	}
	buf[o ? o - 1 : 0] = '\0';
}

static void events_draw(struct ui *u, int h, int w)
{
	int y, x, ph, pw, rows = (int)u->fr.nev;
	char line[256], cells[32], excl[64];

	panel_geometry(h, w, rows + 2, 78, &y, &x, &ph, &pw);
	paint_box(y, x, ph, pw, "Events");
	snprintf(line, sizeof(line), "%-24s %-5s %-11s %s", "Event", "State", "u k v i o g", "excluded");
	paint_text(y + 1, x + 2, pw - 4, R_HEAD, line, false);
	for (int i = 0; i < rows && i < ph - 4; i++) {
		const struct agg_event *e = &u->fr.ev[i];
		bool sel = (size_t)i == u->panel_sel;
		enum ui_role r = sel ? R_PANEL_SEL : R_PANEL;

		flag_cells(u->fr.excl[i], cells, sizeof(cells));
		session_exclude_format(u->fr.excl[i], excl, sizeof(excl));
		paint_fill(y + 2 + i, x + 2, pw - 4, r);
		paint_foreign(y + 2 + i, x + 2, 24, r, e->name);
		paint_text(y + 2 + i, x + 27, 5, sel ? r : u->fr.on[i] ? R_METER : R_OFF, u->fr.on[i] ? "on" : "OFF",
			   false);
		snprintf(line, sizeof(line), "%-11s %s", cells, excl[0] ? excl : "-");
		paint_text(y + 2 + i, x + 33, pw - 35, r, line, false);
	}
	paint_words(y + ph - 2, x + 2, pw - 4, R_DIM,
		    "Space on/off  u user k kernel v hv i idle o host g guest  Esc close");
}

static void exclude_draw(struct ui *u, int h, int w)
{
	int y, x, ph, pw;
	char line[128];

	panel_geometry(h, w, (int)NFLAGS + 2, 60, &y, &x, &ph, &pw);
	paint_box(y, x, ph, pw, "Exclude (all events)");
	paint_text(y + 1, x + 2, pw - 4, R_HEAD, "     Key  Exclude samples from", false);
	for (size_t i = 0; i < NFLAGS && (int)i < ph - 4; i++) {
		size_t on = 0;
		bool sel = i == u->panel_sel;

		for (size_t e = 0; e < u->fr.nev; e++)
			on += (u->fr.excl[e] >> i) & 1;
		snprintf(line, sizeof(line), "[%c]   %c   %s", on == 0 ? ' ' : on == u->fr.nev ? 'x' : '~',
			 flags[i].key, flags[i].name);
		paint_fill(y + 2 + (int)i, x + 2, pw - 4, sel ? R_PANEL_SEL : R_PANEL);
		paint_text(y + 2 + (int)i, x + 2, pw - 4, sel ? R_PANEL_SEL : R_PANEL, line, false);
	}
	paint_words(y + ph - 2, x + 2, pw - 4, R_DIM, "[x] all events  [~] some  Space/letter toggles");
}

/* F6: htop's "Sort by" list; the column now is marked. */
static void sort_draw(struct ui *u, int h, int w)
{
	size_t n = views_ncols(u);
	int y, x, ph, pw, rows = (int)n;
	size_t first = 0;

	panel_geometry(h, w, rows + 1, 40, &y, &x, &ph, &pw);
	paint_box(y, x, ph, pw, "Sort by");
	if (u->panel_sel >= (size_t)(ph - 4) && ph > 4)
		first = u->panel_sel - (size_t)(ph - 5);
	for (int i = 0; i < ph - 4 && first + (size_t)i < n; i++) {
		size_t c = first + (size_t)i;
		char name[64], line[96];
		enum ui_role r = c == u->panel_sel ? R_PANEL_SEL : R_PANEL;

		views_col_name(u, c, name, sizeof(name));
		snprintf(line, sizeof(line), "%s %s", c == u->sort_col[u->view] ? "*" : " ", name);
		paint_fill(y + 1 + i, x + 2, pw - 4, r);
		paint_foreign(y + 1 + i, x + 2, pw - 4, r, line);
	}
	paint_words(y + ph - 2, x + 2, pw - 4, R_DIM, "Enter sort  I invert  Esc close");
}

void panels_draw(struct ui *u, int h, int w)
{
	if (u->mode == MODE_SORT)
		sort_draw(u, h, w);
	if (u->mode == MODE_EVENTS)
		events_draw(u, h, w);
	else if (u->mode == MODE_EXCLUDE)
		exclude_draw(u, h, w);
}

static size_t section_len(size_t s)
{
	struct ui_keyhelp k;
	size_t n = 0;

	while (keys_doc(s, n, &k))
		n++;
	return n + 2; /* the title, a blank line after */
}

/* Draws sections [s0, s1) from line skip on, in rows lines at column col. */
static void help_lines(size_t s0, size_t s1, int y0, int rows, int col, int colw, size_t skip)
{
	struct ui_keyhelp k;
	size_t line = 0;
	int y = y0;

	for (size_t s = s0; s < s1; s++) {
		for (size_t i = 0; i < section_len(s) - 1; i++, line++) {
			if (line < skip)
				continue;
			if (y >= y0 + rows)
				return;
			if (i == 0) {
				paint_text(y++, col, colw, R_LABEL, keys_section(s), false);
			} else if (keys_doc(s, i - 1, &k)) {
				paint_text(y, col + 2, 13, R_VALUE, k.keys, false);
				paint_words(y++, col + 16, colw - 16, R_NORMAL, k.what);
			}
		}
		if (line++ >= skip)
			y++;
	}
}

/* Two columns split between sections when the screen is wide (scrolled
 * together when they do not fit its height); else one that scrolls. */
void panels_help_draw(struct ui *u, int h, int w)
{
	size_t nsec = 0, total = 0, first = 0, split;
	int rows = h - 3;

	while (keys_section(nsec))
		total += section_len(nsec++);
	erase();
	paint_words(0, 0, w, R_HEAD, " perftop " PERFTOP_VERSION " keys  (more in man perftop)");
	for (split = 0; split < nsec && first + section_len(split) <= total / 2; split++)
		first += section_len(split);
	/* A column's last line is the blank after its last section: it may
	 * fall off the screen. */
	if (w >= 110 && split < nsec && first + section_len(split) <= (size_t)rows + 1 &&
	    total - first - section_len(split) <= (size_t)rows + 1) {
		first += section_len(split++); /* the longer half on the left */
	}
	if (w >= 110 && first <= (size_t)rows + 1 && total - first <= (size_t)rows + 1) {
		help_lines(0, split, 2, rows, 0, w / 2 - 1, 0);
		help_lines(split, nsec, 2, rows, w / 2, w / 2 - 1, 0);
		u->help_top = 0;
		return;
	}
	u->help_page = rows > 1 ? (size_t)rows - 1 : 1; /* a line of the last page stays */
	if (w >= 110 && split > 0 && split < nsec) {
		size_t longer = first > total - first ? first : total - first;

		if (u->help_top + (size_t)rows > longer)
			u->help_top = longer > (size_t)rows ? longer - (size_t)rows : 0;
		help_lines(0, split, 2, rows, 0, w / 2 - 1, u->help_top);
		help_lines(split, nsec, 2, rows, w / 2, w / 2 - 1, u->help_top);
		return;
	}
	if (u->help_top + (size_t)rows > total)
		u->help_top = total > (size_t)rows ? total - (size_t)rows : 0;
	help_lines(0, nsec, 2, rows, 0, w - 1, u->help_top);
}

/* --- focus mode's counters ---------------------------------------------- */

#define CELL_W 50         /* name 16, interval 9, total 9, mark 12, gaps */
#define COUNTERS_MIN_TABLE 6

/* The row the section shows: the selected task's when it is counted, else
 * the first focused process. */
static const struct counter_row *shown_row(const struct ui *u)
{
	if (u->view == VIEW_TASKS && u->nrows && u->sel[VIEW_TASKS] < u->nrows) {
		const struct agg_task *t = u->rows[u->sel[VIEW_TASKS]];
		const struct counter_row *r = ui_counter_row(u, t->pid, t->tid);

		if (r)
			return r;
	}
	return u->fr.ncprocs ? &u->fr.cprocs[0] : NULL;
}

static int cells_per_line(int w)
{
	return w / CELL_W > 1 ? w / CELL_W : 1;
}

int panels_counters_height(const struct ui *u, int avail, int w)
{
	int want, per = cells_per_line(w);

	if (u->fr.ncnt == 0 || shown_row(u) == NULL)
		return 0;
	want = 1 + ((int)u->fr.ncnt + per - 1) / per;
	avail -= COUNTERS_MIN_TABLE;
	return want < avail ? want : avail > 1 ? avail : 0;
}

/* "n/a" unsupported here, "-" never scheduled, "(scaled 45%)" multiplexed. */
static bool is_clock(const char *name)
{
	size_t n = strcspn(name, ":");

	return (n == 10 && strncmp(name, "task-clock", n) == 0) ||
	       (n == 9 && strncmp(name, "cpu-clock", n) == 0);
}

static void counter_cell(const struct ui *u, const struct counter_value *v, const char *name,
			 char *val, char *tot, char *mark, size_t len)
{
	bool cum = ui_scope(u) == AGG_TOTAL;
	void (*fmt)(char *, size_t, double) = is_clock(name) ? paint_fmt_nsec : paint_fmt_count;

	mark[0] = '\0';
	switch (v->state) {
	case COUNTER_UNSUPPORTED:
		strlcpy(val, "n/a", len);
		strlcpy(tot, "n/a", len);
		return;
	case COUNTER_NOT_RUN:
		strlcpy(val, "-", len);
		strlcpy(tot, "-", len);
		return;
	case COUNTER_SCALED:
		snprintf(mark, len, "(scaled %.0f%%)",
			 v->enabled_ns ? 100.0 * (double)v->running_ns / (double)v->enabled_ns : 0.0);
		break;
	default:
		break;
	}
	fmt(val, len, (double)(cum ? v->total : v->value));
	fmt(tot, len, (double)v->total);
}

void panels_counters_draw(struct ui *u, int y, int lines, int w)
{
	const struct counter_row *r = shown_row(u);
	struct ratio rt[RATIO_COUNT];
	char line[256], val[32], tot[32], mark[32];
	int per = cells_per_line(w), x;

	if (lines <= 0 || r == NULL)
		return;
	paint_fill(y, 0, w, R_HEAD);
	if (r->tid)
		snprintf(line, sizeof(line), " Counters TID %d%s", (int)r->tid, r->exited ? " (exited)" : "");
	else
		snprintf(line, sizeof(line), " Counters PID %d%s", (int)r->pid, r->exited ? " (exited)" : "");
	paint_text(y, 0, w, R_HEAD, line, false);
	x = (int)strlen(line) + 2;
	snprintf(line, sizeof(line), "%s  total", ui_scope(u) == AGG_TOTAL ? "cumulative" : "interval");
	paint_text(y, x, w - x > 0 ? w - x : 0, R_HEAD, line, false);
	x += (int)strlen(line) + 3;
	ui_counter_ratios(u, r, rt);
	for (size_t k = 0; k < RATIO_COUNT && x < w; k++) {
		char v[32];

		ratios_format(&rt[k], (enum ratio_kind)k, v, sizeof(v));
		snprintf(line, sizeof(line), "%s %s", ratios_title((enum ratio_kind)k), v);
		paint_text(y, x, w - x, R_HEAD_SORT, line, false);
		x += (int)strlen(line) + 2;
	}
	for (size_t i = 0; i < u->fr.ncnt; i++) {
		int l = 1 + (int)i / per, cx = (int)(i % (size_t)per) * CELL_W;
		const struct counter_value *v = &r->v[i];

		if (l >= lines)
			break;
		if (cx == 0)
			paint_fill(y + l, 0, w, R_NORMAL);
		counter_cell(u, v, u->fr.cnt_name[i], val, tot, mark, sizeof(val));
		paint_foreign(y + l, cx + 1, 16, R_LABEL, u->fr.cnt_name[i]);
		snprintf(line, sizeof(line), "%9s %9s %s", val, tot, mark);
		paint_text(y + l, cx + 17, CELL_W - 18 < w - cx - 17 ? CELL_W - 18 : w - cx - 17,
			   v->state == COUNTER_UNSUPPORTED || v->state == COUNTER_NOT_RUN ? R_DIM
			   : v->state == COUNTER_SCALED ? R_WARN : R_VALUE, line, false);
	}
	if (lines < 1 + ((int)u->fr.ncnt + per - 1) / per) {
		snprintf(line, sizeof(line), " +%zu more", u->fr.ncnt - (size_t)((lines - 1) * per));
		paint_text(y + lines - 1, w - (int)strlen(line), (int)strlen(line), R_WARN, line, false);
	}
}
