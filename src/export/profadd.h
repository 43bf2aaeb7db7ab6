/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profadd: the agg's figures into a pprof profile — a (process, symbol)
 * pair at a time, as each interval adds them, or a run's whole call-path
 * tree (-g) at its end, each stack whole, leaf first. */
#ifndef PERFTOP_PROFADD_H
#define PERFTOP_PROFADD_H

#include <stdint.h>

#include "agg.h"
#include "pprof.h"

/* The samples and CPU nanoseconds of symbol r in the processes named comm.
 * Most pairs were in the profile the interval before: found by key, their
 * names are only made for new ones. 0 or -ENOMEM. */
int profadd_pair(struct pprof *p, const struct agg_sym *r, const char *comm, uint64_t samples, uint64_t nanos);

/* Every stack of event ev's call-path tree over the whole run (AGG_TOTAL),
 * the comm as its label, its CPU time its samples times nanos_per_sample;
 * what did not fit the tree's bound as one frame "[other]". Nothing without
 * a tree. 0 or -ENOMEM. */
int profadd_stacks(struct pprof *p, struct agg *a, size_t ev, double nanos_per_sample);

#endif
