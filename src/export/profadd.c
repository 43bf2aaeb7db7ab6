/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profadd.h"

#include <errno.h>
#include <stdlib.h>

#include "callgraph.h"

#define PROFADD_MAX_DEPTH 128   /* pprof keeps no more frames of a stack */

/* As Go prints build-ids: lower-case hex. */
static const char *hex_id(const struct agg_sym *r, char buf[2 * AGG_BUILD_ID_MAX + 1])
{
	static const char digits[] = "0123456789abcdef";

	if (r->build_id_len == 0)
		return NULL;
	for (size_t i = 0; i < r->build_id_len; i++) {
		buf[2 * i] = digits[r->build_id[i] >> 4];
		buf[2 * i + 1] = digits[r->build_id[i] & 15];
	}
	buf[2 * r->build_id_len] = '\0';
	return buf;
}

int profadd_pair(struct pprof *p, const struct agg_sym *r, const char *comm, uint64_t samples, uint64_t nanos)
{
	char bid[2 * AGG_BUILD_ID_MAX + 1];
	struct pprof_frame fr;

	if (pprof_add_known(p, r->key, comm, samples, nanos) == 0)
		return 0;
	fr = (struct pprof_frame){ .sym = r->sym, .dso = r->dso, .build_id = hex_id(r, bid), .key = r->key };
	return pprof_add(p, &fr, 1, comm, samples, nanos);
}

struct stacks_ctx {
	struct pprof *p;
	double nanos_per_sample;
	struct pprof_frame fr[PROFADD_MAX_DEPTH];
	char bid[PROFADD_MAX_DEPTH][2 * AGG_BUILD_ID_MAX + 1];
	int rc;
};

/* path[0] the comm, path[depth-1] the leaf: pprof wants the leaf first.
 * A stack deeper than pprof keeps loses its outermost frames. */
static void add_path(void *arg, const struct cg_frame *path, size_t depth, uint64_t samples)
{
	struct stacks_ctx *c = arg;
	size_t n = 0;

	if (depth < 2)
		return; /* no frame */
	for (size_t i = depth - 1; i >= 1 && n < PROFADD_MAX_DEPTH; i--, n++) {
		const struct agg_sym *r = path[i].sym;

		c->fr[n] = (struct pprof_frame){ .sym = r->sym, .dso = r->dso, .build_id = hex_id(r, c->bid[n]),
						 .key = r->key };
	}
	if (n && pprof_add(c->p, c->fr, n, path[0].name, samples,
			   (uint64_t)((double)samples * c->nanos_per_sample)))
		c->rc = -ENOMEM;
}

int profadd_stacks(struct pprof *p, struct agg *a, size_t ev, double nanos_per_sample)
{
	const struct cg *g = agg_callgraph(a);
	struct stacks_ctx *c;
	uint64_t other;
	int rc;

	if (g == NULL)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->p = p;
	c->nanos_per_sample = nanos_per_sample;
	callgraph_walk_paths(g, AGG_TOTAL, ev, add_path, c);
	rc = c->rc;
	other = callgraph_other(g, AGG_TOTAL, ev);
	if (rc == 0 && other) {
		struct pprof_frame fr = { .sym = "[other]", .dso = "" };

		rc = pprof_add(p, &fr, 1, NULL, other, (uint64_t)((double)other * nanos_per_sample));
	}
	free(c);
	return rc;
}
