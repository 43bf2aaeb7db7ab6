/* session: one monitoring run — the engine, the symbols and the aggregation
 * wired together. Both front ends (dump and UI) drive a session. */
#ifndef PERFTOP_SESSION_H
#define PERFTOP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <time.h>

#include "agg.h"
#include "counters.h"
#include "cpumap.h"
#include "engine.h"
#include "options.h"
#include "symbols.h"

#define SESSION_NOTICES 4

struct session {
	const struct options *opts;
	struct engine *eng;
	struct symbols *syms;
	struct agg *agg;
	struct counters *cnt;      /* exact counters in focus mode, else NULL */
	uint64_t tracking_lost;    /* MMAP/COMM/… records the kernel dropped */
	size_t focus_left;         /* -p: processes still alive */
	const char *notices[SESSION_NOTICES];
	size_t nnotices;
	char target[256];
	struct timespec started, last_tick;
};

/* Opens everything; on failure err holds the user's one line. Returns 0 or -errno. */
int session_open(struct session *s, const struct options *o, char *err, size_t errlen);
void session_close(struct session *s);

/* The engine's record handler: resolve and aggregate. */
void session_record(void *arg, int ev, const struct record *rec);

/* Reads what the engine alone knows at an interval's end (multiplexing)
 * into the agg; call before showing the interval. */
void session_sample(struct session *s);

/* Ends an interval: agg_roll (decay_pct as there) and forgetting processes
 * that exited before it. */
void session_roll(struct session *s, unsigned decay_pct);

/* comm of a process the session knows, or NULL. */
const char *session_comm(void *session, pid_t pid);

/* Seconds since the last call (the interval really measured). */
double session_lap(struct session *s);

#endif
