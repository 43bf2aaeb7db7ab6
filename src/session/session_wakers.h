/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_wakers: who woke a waiting thread (--off-cpu, offwaketime's
 * question). Private to the session layer: session_offcpu feeds it the
 * sched:sched_waking records and the switch-ins; the front ends read the
 * wake agg (s->wake). */
#ifndef PERFTOP_SESSION_WAKERS_H
#define PERFTOP_SESSION_WAKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session.h"

struct session_wakers;

/* sched_waking's format read; NULL when tracefs lacks it or no memory
 * (then no wakers: the rest of --off-cpu runs). */
struct session_wakers *session_wakers_new(void);
void session_wakers_free(struct session_wakers *w);
/* A sched_waking record (by its common_type): true, *woken its woken
 * thread (0: none told). Any other record: false. */
bool session_wakers_is(const struct session_wakers *w, const struct record *r, pid_t *woken);
/* The waking's record r's stack (words as spans keep them, the caller's
 * from the record) kept for the woken thread, the last one before its
 * switch-in. Full or out of memory: not kept. */
void session_wakers_keep(struct session_wakers *w, pid_t woken, const struct record *r, const uint64_t *words,
			 size_t nwords);
/* tid came back on a CPU: the span it ended (NULL: none known) is charged
 * to s->wake with the stack of the waking seen during it; either way the
 * waking kept for tid is done. */
void session_wakers_end(struct session *s, struct session_wakers *w, pid_t tid, const struct spans_span *sp);

#endif
