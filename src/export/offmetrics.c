/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offmetrics: a comm's blocked time accumulated from the spans' process
 * rows each interval, so a series only grows (a process that exits keeps
 * what it added under its comm). As the samples' comm family does, the
 * comms that waited most lately (a decayed score), N of them, add to
 * their own series; the others' time goes to "other". */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "offmetrics.h"

#define OFFMETRICS_COMMS_MAX 4096 /* comms followed; past them, "other" */

struct comm_off {
	char comm[AGG_COMM_MAX];
	uint64_t ns[SPANS_NSTATES];   /* named: the series */
	uint64_t iv[SPANS_NSTATES];   /* this interval's */
	double score;
	bool named;
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
			return om->c[i].iv;
	if (om->n >= OFFMETRICS_COMMS_MAX || strcmp(comm, METRICS_OTHER) == 0 ||
	    (n = reallocarray(om->c, om->n + 1, sizeof(*n))) == NULL)
		return om->other;
	om->c = n;
	memset(&om->c[om->n], 0, sizeof(om->c[om->n]));
	strlcpy(om->c[om->n].comm, comm, sizeof(om->c[om->n].comm));
	return om->c[om->n++].iv;
}

static int by_score(const void *a, const void *b)
{
	const struct comm_off *x = *(const struct comm_off *const *)a, *y = *(const struct comm_off *const *)b;

	return (x->score < y->score) - (x->score > y->score);
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
	struct comm_off **order;

	if (om == NULL || s->spans == NULL)
		return;
	om->seen = true;
	spans_each(s->spans, add, &u);
	order = calloc(om->n ? om->n : 1, sizeof(*order));
	if (order == NULL)
		return;
	for (size_t i = 0; i < om->n; i++) {
		om->c[i].score = om->c[i].score * 0.8 + (double)(om->c[i].iv[0] + om->c[i].iv[1] + om->c[i].iv[2]);
		order[i] = &om->c[i];
	}
	if (om->n > 1)
		qsort(order, om->n, sizeof(*order), by_score);
	/* The top N this interval add to their own series (named for good:
	 * one that drops out stays, stopped); the rest to other. */
	for (size_t i = 0; i < om->n; i++) {
		struct comm_off *c = order[i];
		bool top = i < om->max && c->score > 0;

		c->named |= top;
		for (size_t k = 0; k < SPANS_NSTATES; k++) {
			if (top)
				c->ns[k] += c->iv[k];
			else
				om->other[k] += c->iv[k];
			c->iv[k] = 0;
		}
	}
	free(order);
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
		for (size_t k = 0; k < SPANS_NSTATES && (i == om->n || om->c[i].named); k++) {
			struct promtext_label l[] = { { "comm", i < om->n ? om->c[i].comm : METRICS_OTHER },
						      { "state", spans_state_names[k] } };

			promtext_sample(p, name, l, 2, (double)(i < om->n ? om->c[i].ns[k] : om->other[k]) / 1e9);
		}
}
