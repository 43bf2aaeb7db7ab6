/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offmetrics: --off-cpu's family in /metrics,
 * perftop_comm_offcpu_seconds_total{comm,state}: blocked seconds per comm
 * and state (S, D, R), monotonic; comms past the first N under "other". */
#ifndef PERFTOP_OFFMETRICS_H
#define PERFTOP_OFFMETRICS_H

#include <stddef.h>

#include "promtext.h"
#include "session.h"

struct offmetrics;

struct offmetrics *offmetrics_new(size_t ncomms);
void offmetrics_free(struct offmetrics *om);
/* At an interval's end, before the roll: each process's blocked time of
 * the interval added to its comm's. */
void offmetrics_update(struct offmetrics *om, const struct session *s);
/* The family, when off-CPU was ever on; nothing otherwise. */
void offmetrics_families(struct promtext *p, const struct offmetrics *om);

#endif
