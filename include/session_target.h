/* session_target: re-opening a running session's engine on another target
 * (the live view's focus mode) or at another sampling rate, with the events
 * and exclude flags in force now. Only call it between engine_run()s. */
#ifndef PERFTOP_SESSION_TARGET_H
#define PERFTOP_SESSION_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "session.h"

struct session_target {
	const pid_t *pids;      /* NULL: system-wide (or cgroup) */
	size_t npids;
	bool pids_are_tids;
	const char *cgroup;
	uint64_t freq, period;  /* both 0: the options' */
	double interval;        /* 0: the options' */
	bool keep_agg;          /* same target, new rate: keep the tables */
};

/* On failure the old engine stays open and err says why — unless the old one
 * had to be closed to make room (EPERM, EMFILE, ENOMEM from locked ring
 * memory or fds): then s->eng is NULL and the caller must open a target again. */
int session_reopen(struct session *s, const struct session_target *t, char *err, size_t errlen);

/* Same events, excludes and rate; pids (npids 0: system-wide); fresh tables. */
int session_retarget(struct session *s, const pid_t *pids, size_t npids, char *err, size_t errlen);

#endif
