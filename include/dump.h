/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump: one interval of a session as text (like top -b), CSV or JSON Lines.
 * Reads the session's agg (and, through the session, the events' state and
 * perftop's own figures); everything from other processes is sanitised
 * (text, CSV) or escaped (JSON). */
#ifndef PERFTOP_DUMP_H
#define PERFTOP_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"
#include "session.h"

struct dump_meta {
	double time;              /* wall clock, seconds since the epoch */
	double interval;          /* measured length of this interval */
	unsigned long iteration;
	uint64_t freq, period;
	const char *final;        /* why this is the last interval, or NULL */
	bool threads;             /* per-thread rows too (--threads) */
	bool stats;               /* perftop's own figures (--stats) */
	bool children;            /* with call graphs: symbols by children (--children) */
	bool hierarchy;           /* --sort's rows folded under the first key (--hierarchy) */
	const struct baseline *baseline; /* --baseline: rows gain its share and the delta */
	bool push;                /* --push: its figures below (--stats) */
	uint64_t push_sent, push_failed, push_dropped;
};

/* The CSV header line (once per stream); nothing for other formats. With
 * counters (focus mode) the lines end in the counter columns; with thread
 * rows and no counters, in a tid column. */
int dump_begin(FILE *f, enum dump_format fmt, const struct session *s, bool threads);

/* One interval; rows per table at most. Returns 0 or -errno (EPIPE when the
 * reader went away). */
/* A --sort key's column title ("Command", "Shared Object"): dump_group.c. */
const char *dump_group_title(enum agg_gkey k);

int dump_interval(FILE *f, enum dump_format fmt, const struct session *s, const struct dump_meta *m,
		  size_t rows);

#endif
