/* tui: the interactive ncurses view. Reads the session's aggregation API;
 * drives the engine only through engine_* calls. */
#ifndef PERFTOP_TUI_H
#define PERFTOP_TUI_H

#include "export.h"
#include "session.h"

/* Runs until the user quits or a stop signal; the terminal is restored on
 * every exit path. Returns the process exit code. */
int tui_run(struct session *s, const struct options *o, struct exporter *x);

#endif
