/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tui: the interactive ncurses view. Reads the session's aggregation API;
 * drives the engine only through engine_* calls. */
#ifndef PERFTOP_TUI_H
#define PERFTOP_TUI_H

#include "session.h"

/* What runs at each interval's end after the frame is taken (main.c hands
 * in the exporter's): the ui knows it only as this callback. */
struct tui_hook {
	void (*interval)(void *arg, struct agg *a, const struct session *s);
	void *arg;
};

/* --baseline's table, compared with from the first frame (NULL: none
 * until B); the caller keeps it until tui_run returns. */
struct baseline;
void tui_baseline(struct baseline *b);

/* Runs until the user quits or a stop signal; the terminal is restored on
 * every exit path. hook may be NULL. Returns the process exit code. */
int tui_run(struct session *s, const struct options *o, const struct tui_hook *hook);

#endif
