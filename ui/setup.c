/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setup: the F2 screen's items and its drawing. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "setup.h"

const char *const setup_section_names[SETUP_COUNT] = {
	"Symbols columns", "Tasks columns", "CPUs columns", "Colours", "Meters", "Defaults",
};
const char *const setup_meter_names[3] = {
	"Event lines (rate, lost, excludes)", "Tasks, load average, memory", "CPU meters",
};
static const char *const view_names[VIEW_COUNT] = { "Symbols", "Tasks", "CPUs", "Waits" };

size_t setup_nitems(const struct ui *u, size_t sec)
{
	size_t all[UI_MAX_COLS], na, n = 0;

	switch (sec) {
	case SETUP_COLS_SYMBOLS:
	case SETUP_COLS_TASKS:
	case SETUP_COLS_CPUS:
		na = colset_all((enum ui_view)sec, all, UI_MAX_COLS);
		for (size_t k = 0; k < na; k++)
			n += colset_available(u, (enum ui_view)sec, all[k]);
		return n;
	case SETUP_COLORS:
		return SCHEME_COUNT;
	case SETUP_METERS:
		return 3;
	default:
		return DEF_COUNT;
	}
}

size_t setup_col_at(const struct ui *u, enum ui_view v, size_t i)
{
	size_t shown[UI_MAX_COLS], all[UI_MAX_COLS];
	size_t ns = colset_list(u, v, shown, UI_MAX_COLS), na = colset_all(v, all, UI_MAX_COLS);

	/* The shown in order, then the hidden; none whose mode is off. */
	for (size_t k = 0; k < ns; k++)
		if (colset_available(u, v, shown[k]) && i-- == 0)
			return shown[k];
	for (size_t k = 0; k < na; k++)
		if (colset_available(u, v, all[k]) && !colset_shown(u, v, all[k]) && i-- == 0)
			return all[k];
	return 0;
}

static void default_text(const struct ui *u, size_t i, char *buf, size_t len)
{
	char sort[96];

	switch (i) {
	case DEF_VIEW:
		snprintf(buf, len, "Start in view:     %s", u->start_view < 0 ? "the last one" : view_names[u->start_view]);
		break;
	case DEF_DELAY:
		snprintf(buf, len, "Refresh interval:  %g s   (- +)", session_interval(u->s));
		break;
	case DEF_SORT_SYMBOLS:
	case DEF_SORT_TASKS:
	case DEF_SORT_CPUS:
		prefs_sort_text(u, (enum ui_view)(i - DEF_SORT_SYMBOLS), sort, sizeof(sort));
		snprintf(buf, len, "Sort %-8s by:  %s   (I inverts)", view_names[i - DEF_SORT_SYMBOLS], sort);
		break;
	case DEF_DECAY:
		snprintf(buf, len, "[%c] Decaying history (z)", u->decay ? 'x' : ' ');
		break;
	default:
		snprintf(buf, len, "[%c] Cumulative counts (c)", u->cumulative ? 'x' : ' ');
		break;
	}
}

void setup_item_text(const struct ui *u, size_t sec, size_t i, char *buf, size_t len)
{
	switch (sec) {
	case SETUP_COLS_SYMBOLS:
	case SETUP_COLS_TASKS:
	case SETUP_COLS_CPUS: {
		enum ui_view v = (enum ui_view)sec;
		size_t c = setup_col_at(u, v, i);

		snprintf(buf, len, "[%c] %s", colset_shown(u, v, c) ? 'x' : ' ', colset_name(v, c));
		break;
	}
	case SETUP_COLORS:
		snprintf(buf, len, "(%c) %s", u->scheme == (enum ui_scheme)i ? '*' : ' ',
			 (const char *const[]){ "Default", "Monochrome", "Light terminal", "Colour-blind safe" }[i]);
		break;
	case SETUP_METERS:
		snprintf(buf, len, "[%c] %s", u->meters & (1u << i) ? 'x' : ' ', setup_meter_names[i]);
		break;
	default:
		default_text(u, i, buf, len);
	}
}

static const char *hint(size_t sec)
{
	if (sec <= SETUP_COLS_CPUS)
		return "Space show/hide  F7 F8 or [ ] move  Tab/Left/Right section  Esc done";
	if (sec == SETUP_DEFAULTS)
		return "Space change  - + interval  I invert sort  Tab section  Esc done";
	return "Space pick  Tab/Left/Right section  Esc done";
}

void setup_draw(struct ui *u, int h, int w)
{
	int lw = w >= 100 ? 24 : 20, rows = h - 5, y0 = 2;
	size_t n = setup_nitems(u, u->setup_sec), first = 0;
	char line[640];

	erase();
	snprintf(line, sizeof(line), " perftop setup: changes apply at once, kept in %s at q",
		 u->o->rc == NULL || u->o->no_config ? "no file (--no-config)" : u->o->rc_path);
	paint_fill(0, 0, w, R_HEAD);
	paint_foreign_words(0, 0, w, R_HEAD, line);
	paint_text(1, 0, lw, R_LABEL, "Setup", false);
	paint_text(1, lw + 1, w - lw - 1, R_LABEL, setup_section_names[u->setup_sec], false);
	for (size_t s = 0; s < SETUP_COUNT && (int)s < rows; s++)
		paint_text(y0 + (int)s, 0, lw, s == u->setup_sec ? R_PANEL_SEL : R_PANEL, setup_section_names[s], false);
	if (u->setup_sel >= n)
		u->setup_sel = n ? n - 1 : 0;
	if (u->setup_sel >= (size_t)rows)
		first = u->setup_sel - (size_t)rows + 1;
	for (int r = 0; r < rows && first + (size_t)r < n; r++) {
		size_t i = first + (size_t)r;

		setup_item_text(u, u->setup_sec, i, line, sizeof(line));
		paint_text(y0 + r, lw + 1, w - lw - 1, i == u->setup_sel ? R_SELECTED : R_NORMAL, line, false);
	}
	paint_words(h - 3, 0, w, R_DIM, hint(u->setup_sec));
}
