/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offmetrics: a comm's blocked time accumulated from the spans' process
 * rows each interval, so a series only grows (a process that exits keeps
 * what it added under its comm). */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "offmetrics.h"

struct comm_off {
	char comm[AGG_COMM_MAX];
	uint64_t ns[SPANS_NSTATES];
};

struct offmetrics {
	struct comm_off *c;
	size_t n, max;
	uint64_t other[SPANS_NSTATES];
	bool seen;
};

struct offmetrics *offmetrics_new(size_t ncomms)
{
	struct offmetrics *om = calloc(1, sizeof(*om));

	if (om)
		om->max = ncomms;
	return om;
}

void offmetrics_free(struct offmetrics *om)
{
	if (om)
		free(om->c);
	free(om);
}

struct upd {
	struct offmetrics *om;
	const struct session *s;
};

static uint64_t *slot(struct offmetrics *om, const char *comm)
{
	struct comm_off *n;

	for (size_t i = 0; i < om->n; i++)
		if (strcmp(om->c[i].comm, comm) == 0)
			return om->c[i].ns;
	if (om->n >= om->max || strcmp(comm, METRICS_OTHER) == 0 ||
	    (n = reallocarray(om->c, om->n + 1, sizeof(*n))) == NULL)
		return om->other;
	om->c = n;
	memset(&om->c[om->n], 0, sizeof(om->c[om->n]));
	strlcpy(om->c[om->n].comm, comm, sizeof(om->c[om->n].comm));
	return om->c[om->n++].ns;
}

static void add(void *arg, pid_t pid, pid_t tid, const struct spans_time *t)
{
	struct upd *u = arg;
	const char *comm;
	uint64_t *ns;

	if (tid != 0 || t->iv[0] + t->iv[1] + t->iv[2] == 0)
		return;
	comm = session_comm(u->s, pid);
	ns = slot(u->om, comm ? comm : "?");
	for (size_t k = 0; k < SPANS_NSTATES; k++)
		ns[k] += t->iv[k];
}

void offmetrics_update(struct offmetrics *om, const struct session *s)
{
	struct upd u = { om, s };

	if (om == NULL || s->spans == NULL)
		return;
	om->seen = true;
	spans_each(s->spans, add, &u);
}

void offmetrics_families(struct promtext *p, const struct offmetrics *om)
{
	static const char name[] = "perftop_comm_offcpu_seconds_total";

	if (om == NULL || !om->seen)
		return;
	promtext_family(p, name, PROMTEXT_COUNTER,
			"Seconds the tasks named comm spent off CPU, by state (S sleeping, D uninterruptible, "
			"R preempted; --off-cpu).");
	for (size_t i = 0; i <= om->n; i++)
		for (size_t k = 0; k < SPANS_NSTATES; k++) {
			struct promtext_label l[] = { { "comm", i < om->n ? om->c[i].comm : METRICS_OTHER },
						      { "state", spans_state_names[k] } };

			promtext_sample(p, name, l, 2, (double)(i < om->n ? om->c[i].ns[k] : om->other[k]) / 1e9);
		}
}
