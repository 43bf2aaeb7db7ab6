/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config: the settings file ($XDG_CONFIG_HOME/perftop/perftoprc) read
 * under the command line: what it left unset takes the file's value. */
#ifndef PERFTOP_CLI_CONFIG_H
#define PERFTOP_CLI_CONFIG_H

#include "options_table.h"

/* Reads the file (unless --no-config) into st->o: the keys the command
 * line owns (delay, freq, event, call-graph) where it gave none; the live
 * view's keys are checked here and read by ui/prefs.c. A bad line is one
 * warning on stderr naming file and line, its default kept; never fatal. */
void config_apply(struct options_state *st);

#endif
