/* SPDX-License-Identifier: GPL-2.0-or-later */
/* screen: the state's defaults and the one place a whole frame is drawn. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ui.h"

void ui_init(struct ui *u, struct session *s, const struct options *o)
{
	struct utsname un;

	memset(u, 0, sizeof(*u));
	u->s = s;
	u->o = o;
	u->threads = o->threads; /* --threads: the Tasks view starts with thread rows (H) */
	u->freq = o->freq;
	u->period = o->period;
	u->sort_col[VIEW_TASKS] = 1; /* the first event's share */
	/* -g: Children (perf top's default) or, with --no-children, Self */
	u->callgraph = o->cg.mode != CALLGRAPH_NONE;
	u->sort_col[VIEW_SYMBOLS] = u->callgraph && !o->children ? 1 : 0;
	u->tree_row = SIZE_MAX;
	u->meters = METER_ALL;
	u->start_view = -1;
	if (gethostname(u->host, sizeof(u->host)) < 0)
		strlcpy(u->host, "?", sizeof(u->host));
	u->host[sizeof(u->host) - 1] = '\0';
	if (uname(&un) == 0)
		strlcpy(u->kernel, un.release, sizeof(u->kernel));
}

void ui_free(struct ui *u)
{
	free(u->tags);
	annview_free(u);
	frame_free(u);
	paint_free();
	procstat_close();
}

void screen_draw(struct ui *u, unsigned what)
{
	int h = LINES, w = COLS, hh, ch;

	if (what & UI_CLEAR)
		clearok(curscr, TRUE);
	views_build(u); /* cheap, and rows then never outlive the frame */
	erase();
	if (w < UI_MIN_W || h < UI_MIN_H) {
		char msg[64];

		snprintf(msg, sizeof(msg), "terminal too small: %dx%d needed", UI_MIN_W, UI_MIN_H);
		paint_text(0, 0, w, R_WARN, msg, false);
		curs_set(0);
		paint_refresh(what & UI_CLEAR);
		return;
	}
	if (u->mode == MODE_PATHS) {
		treeview_paths_draw(u, h, w);
		header_message_draw(u, h - 2, w);
		header_footer_draw(u, h - 1, w);
		curs_set(0);
		paint_refresh(what & UI_CLEAR);
		return;
	}
	if (u->mode == MODE_SETUP) {
		setup_draw(u, h, w);
		header_message_draw(u, h - 2, w);
		header_footer_draw(u, h - 1, w);
		curs_set(0);
		paint_refresh(what & UI_CLEAR);
		return;
	}
	if (u->mode == MODE_ANNOTATE) {
		annview_draw(u, h, w);
		curs_set(annview_typing(u) ? 1 : 0);
		paint_refresh(what & UI_CLEAR);
		return;
	}
	if (u->mode == MODE_HELP) {
		panels_help_draw(u, h, w);
		header_footer_draw(u, h - 1, w);
		curs_set(0);
		paint_refresh(what & UI_CLEAR);
		return;
	}
	hh = header_height(u, h, w);
	header_draw(u, w, h);
	ch = panels_counters_height(u, h - hh - 2, w);
	panels_counters_draw(u, hh, ch, w);
	views_draw(u, hh + ch, h - hh - ch - 2, w);
	panels_draw(u, h, w);
	header_message_draw(u, h - 2, w);
	header_footer_draw(u, h - 1, w); /* last: the prompt leaves the cursor there */
	curs_set(u->mode == MODE_PROMPT ? 1 : 0);
	paint_refresh(what & UI_CLEAR);
}
