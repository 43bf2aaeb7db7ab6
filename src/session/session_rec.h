/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_rec: --record, the session's side: the engine's raw tap into a
 * perf.data writer (include/pdwrite.h), with the records perf record
 * would have synthesized for what ran before the start (at a task's first
 * sample: perftop reads /proc lazily too). Private to the session layer;
 * the front ends see session_rec_finish and session_stats. */
#ifndef PERFTOP_SESSION_REC_H
#define PERFTOP_SESSION_REC_H

#include <stddef.h>

#include "session.h"

/* With --record: the file created, the attrs and ids of s->eng, the
 * kernel's map. 0, or -errno with err the user's line. */
int session_rec_open(struct session *s, char *err, size_t errlen);
/* The engine's raw handler (record_arg: the session). */
void session_rec_raw(void *arg, int ev, const struct perf_event_header *hdr);
/* After a re-open: the new engine's ids; the notice again. */
void session_rec_engine(struct session *s);
/* An interval's end: a FINISHED_ROUND and the buffer out. */
void session_rec_round(struct session *s);

#endif
