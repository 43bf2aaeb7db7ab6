/* dump: one interval of the aggregation as text (like top -b), CSV or JSON
 * Lines. Reads only the agg API; everything from other processes is
 * sanitised (text, CSV) or escaped (JSON). */
#ifndef PERFTOP_DUMP_H
#define PERFTOP_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "agg.h"
#include "counters.h"
#include "engine.h"
#include "options.h"
#include "symbols.h"

struct dump_meta {
	double time;              /* wall clock, seconds since the epoch */
	double interval;          /* measured length of this interval */
	unsigned long iteration;
	const char *target;
	uint64_t freq, period;
	const char *const *notices;
	size_t nnotices;
	const char *final;        /* why this is the last interval, or NULL */
	const struct counters *cnt; /* focus mode's exact counters, or NULL */
	bool threads;             /* per-thread counter rows too */
	const char *(*comm_of)(void *arg, pid_t pid);
	void *comm_arg;
	bool stats;               /* add the figures below */
	struct engine_stats est;
	struct symbols_stats sst;
	uint64_t tracking_lost;
	bool push;                /* --push: its figures below */
	uint64_t push_sent, push_failed, push_dropped;
};

/* The CSV header line (once per stream); nothing for other formats. With
 * counters (focus mode) the lines end in the counter columns. */
int dump_begin(FILE *f, enum dump_format fmt, struct agg *a, const struct counters *cnt);

/* One interval; rows per table at most. Returns 0 or -errno (EPIPE when the
 * reader went away). */
int dump_interval(FILE *f, enum dump_format fmt, struct agg *a, const struct dump_meta *m,
		  size_t rows);

#endif
