/* SPDX-License-Identifier: GPL-2.0-or-later */
/* export: perftop's figures for other programs — /metrics and
 * /debug/pprof/profile over HTTP (--listen), node_exporter's textfile
 * (--textfile), a whole-run pprof file (-b --format pprof). Reads only the
 * agg API and the session's figures (session_stats); never the engine or
 * rings. */
#ifndef PERFTOP_EXPORT_H
#define PERFTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "promtext.h"

struct exporter;
struct session;
struct agg;

/* *out is NULL when the options ask for no export. 0, or -errno with err
 * the user's one line (a port in use, a directory not writable). */
int export_open(struct exporter **out, struct session *s, const struct options *o, char *err, size_t errlen);
/* Ends the run: the pprof file (-b --format pprof's -o, opened for
 * writing before the run, pprof_fd; -1 without) is written whole, waiting
 * profile requests get what they have. 0, or -errno with err set. Then
 * export_close. */
int export_finish(struct exporter *x, int pprof_fd, char *err, size_t errlen);
void export_close(struct exporter *x);

/* At each interval's end, before session_roll. x may be NULL. */
void export_interval(struct exporter *x, struct agg *a, const struct session *s);

/* --push's figures for the dump's --stats; false without --push. */
bool export_push_stats(struct exporter *x, uint64_t *sent, uint64_t *failed, uint64_t *dropped);

/* For the HTTP server's thread. The page as of the last interval, not
 * copied: *text stays valid until export_page_put(*pg) (pg may be NULL).
 * export_page waits for the next interval when the format was not rendered
 * at the last one; export_page_ready says whether it would wait (false:
 * come back after the next interval), export_page_now never waits. */
int export_page(struct exporter *x, enum promtext_fmt fmt, void **pg, const char **text, size_t *len);
bool export_page_ready(struct exporter *x, enum promtext_fmt fmt);
void export_page_now(struct exporter *x, enum promtext_fmt fmt, void **pg, const char **text, size_t *len);
void export_page_put(void *pg);
/* Pages rendered so far: none while nobody asks (no client, no textfile). */
uint64_t export_renders(struct exporter *x);
/* A profile window of secs seconds of intervals (the sampler never waits on
 * it), without blocking: open gives its id (or -EBUSY when too many are
 * being taken), ready says when its time is up (or the run ends), take
 * builds the gzip'd profile (out NULL: just lets go of the window) and
 * frees the id. Every opened id is taken once. */
int export_profile_open(struct exporter *x, unsigned secs);
bool export_profile_ready(struct exporter *x, int id);
int export_profile_take(struct exporter *x, int id, uint8_t **out, size_t *len);
/* How long a request waiting for secs of intervals (0: the next page) may
 * stay suspended: past it the main loop has stalled, and the request is
 * answered with what there is. */
double export_wait_limit(struct exporter *x, unsigned secs);
/* The same, waiting for the window in the calling thread. */
int export_profile(struct exporter *x, unsigned secs, uint8_t **out, size_t *len);
void export_count_request(struct exporter *x, bool rejected);
/* CPU seconds spent exporting, counted in perftop_export_cpu_seconds_total:
 * the server adds what its thread used. */
void export_count_cpu(struct exporter *x, double secs);

#endif
