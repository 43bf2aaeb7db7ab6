/* SPDX-License-Identifier: GPL-2.0-or-later */
/* options_table: the command line as rows, one per option (as tmux's
 * cmd_entry, bpftool's cmds[]). The parser (options.c) and --help are both
 * made from the rows, so the two cannot drift. */
#ifndef PERFTOP_OPTIONS_TABLE_H
#define PERFTOP_OPTIONS_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* What a parse gathers besides struct options, checked once all is read. */
struct options_state {
	struct options *o;
	const char *events;   /* -e, parsed at the end */
	const char *counters; /* --counters, parsed at the end */
	int children;         /* --children 1, --no-children 0, neither -1 */
	bool freq_given, cg_given; /* -F, -g or --call-graph: the settings file's stay out */
	char err[512];        /* a handler's own complaint, when it has one */
};

struct options_row;

/* A row's handler: 0; OPTIONS_DONE when the run is over (--help,
 * --version); -1 for a bad argument, said by st->err when set, else by the
 * row's complaint. */
typedef int options_set_fn(struct options_state *st, const struct options_row *row, const char *arg);
#define OPTIONS_DONE 1

struct options_row {
	const char *name;        /* --name, or NULL (-g has none) */
	char letter;             /* -L, or 0 */
	const char *arg;         /* the argument's name in --help; NULL: a flag */
	const char *help;        /* lines split by '\n' */
	options_set_fn *set;
	const char *complaint;   /* printf format naming the bad argument ('%s') */
	size_t off;              /* set_flag, set_str, set_count: the field in struct options */
};

/* Room for getopt's arrays in options.c; the table checks it fits. */
#define OPTIONS_MAX_ROWS 64

extern const struct options_row options_rows[];
extern const size_t options_nrows;

/* "usage: perftop [options]" and a line or more per row. */
void options_usage(FILE *f);

#endif
