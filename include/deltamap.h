/* SPDX-License-Identifier: GPL-2.0-or-later */
/* deltamap: the last cumulative figures seen per key (a PID, a symbol key),
 * so that what grew since can be taken from agg's AGG_TOTAL counts — which,
 * unlike the interval counts, the live view's decay never touches. */
#ifndef PERFTOP_DELTAMAP_H
#define PERFTOP_DELTAMAP_H

#include <stddef.h>
#include <stdint.h>

struct deltamap {
	uint64_t *slots;         /* per slot: key, mark (0: empty; else the sweep it
	                          * was last seen in), stride values */
	size_t cap, n, stride;
	uint64_t sweep;
};

int deltamap_init(struct deltamap *m, size_t stride);
void deltamap_free(struct deltamap *m);
/* The values of key (zeros when new), marked as seen; NULL when out of memory. */
uint64_t *deltamap_get(struct deltamap *m, uint64_t key);
/* The values of key, or NULL when it is not there (nothing added or marked). */
uint64_t *deltamap_find(const struct deltamap *m, uint64_t key);
/* Forgets the keys not seen since the last sweep (tasks gone from agg). */
int deltamap_sweep(struct deltamap *m);
/* Forgets every key, keeping the room (a table refilled at about its size). */
void deltamap_clear(struct deltamap *m);

#endif
