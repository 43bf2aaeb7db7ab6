/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics: perftop's figures as Prometheus families (doc/perftop.1 lists
 * them). Reads only the agg API and figures handed in; keeps the per-comm
 * accumulators that make the comm counters monotonic. Not thread-safe: the
 * main loop updates and renders; the HTTP server serves the rendered text. */
#ifndef PERFTOP_METRICS_H
#define PERFTOP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg.h"
#include "counters.h"
#include "promtext.h"

#define METRICS_OTHER "other"

struct metrics_figures {
	double interval;             /* the last interval's measured length */
	uint64_t intervals;
	double cpu_seconds;          /* perftop's own, user + system */
	uint64_t rss_bytes;
	uint64_t backlog_bytes;       /* taken from the rings, not yet decoded */
	uint64_t records;             /* records decoded */
	uint64_t tracking_lost;
	uint64_t push_sent, push_failed, push_dropped; /* --push windows */
	uint64_t http_requests, http_rejected;
	uint64_t textfile_errors;     /* --textfile writes that failed */
	double export_cpu_seconds;    /* of cpu_seconds, what exporting took */
	const struct offmetrics *off; /* --off-cpu's family (offmetrics.h), or NULL */
};

struct metrics;
struct offmetrics;

/* ncomms: named comms (the rest in comm="other"); nsyms: named symbols. */
struct metrics *metrics_new(size_t ncomms, size_t nsyms);
void metrics_free(struct metrics *m);

/* At an interval's end, before agg_roll: moves what each task grew by into
 * its comm's accumulator (or "other"). -ENOMEM leaves it half done. */
int metrics_update(struct metrics *m, struct agg *a);

/* The whole page in one format; *out is malloc'd. 0 or -ENOMEM. */
int metrics_render(struct metrics *m, struct agg *a, const struct metrics_figures *f,
		   enum promtext_fmt fmt, char **out, size_t *len);

#endif
