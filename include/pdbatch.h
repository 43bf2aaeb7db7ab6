/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdbatch: a replay's flat samples (no stack) alike in all but time and
 * period, counted as one before they reach the session, as the engine's
 * tally does for the rings. Only the records between samples (MMAP, COMM,
 * FORK, EXIT, ...) change what a sample resolves to, so the replay holds
 * them here until the next such record or its interval's end.
 *
 * Not the engine's tally: a replay's window is a recorded interval (tens
 * of thousands of samples, and no rings' cache lines to spare), so the
 * table is eight times the tally's, and it keys by the event's index. With
 * it a sample costs one probe; without, a trip through the session, the
 * symbols' tag and agg's memo (two thirds of a -b replay's instructions). */
#ifndef PERFTOP_PDBATCH_H
#define PERFTOP_PDBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdbatch_slot {
	uint64_t ip;
	uint64_t period;  /* the samples' periods, added */
	uint32_t pid, tid;
	uint32_t cpu;     /* UINT32_MAX: not recorded */
	uint32_t n;       /* samples; 0: empty */
	uint16_t misc;    /* the cpumode bits */
	uint16_t ev;      /* the sampling event's index */
};

#define PDBATCH_BITS 12
#define PDBATCH_PROBE 16 /* slots tried from the hashed one */

struct pdbatch {
	size_t nused;
	uint16_t used[1u << PDBATCH_BITS]; /* the slots filled, in order */
	struct pdbatch_slot slot[1u << PDBATCH_BITS];
};

struct pdbatch *pdbatch_new(void);
void pdbatch_free(struct pdbatch *b);

/* One sample; false when it has no room (pdbatch_take it all first): never
 * with the batch empty. */
static inline bool pdbatch_add(struct pdbatch *b, uint16_t ev, uint32_t cpu, uint32_t pid, uint32_t tid,
			       uint64_t ip, uint16_t misc, uint64_t period)
{
	const size_t mask = (1u << PDBATCH_BITS) - 1;
	uint64_t h = (ip ^ (uint64_t)tid << 32 ^ (uint64_t)cpu << 20 ^ (uint64_t)ev << 7 ^ misc) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> (64 - PDBATCH_BITS));

	for (unsigned p = 0; p < PDBATCH_PROBE; p++, i = (i + 1) & mask) {
		struct pdbatch_slot *s = &b->slot[i];

		if (s->n == 0) {
			b->used[b->nused++] = (uint16_t)i;
			*s = (struct pdbatch_slot){ .ip = ip, .period = period, .pid = pid, .tid = tid, .cpu = cpu,
						    .n = 1, .misc = misc, .ev = ev };
			return true;
		}
		if (s->ip == ip && s->tid == tid && s->pid == pid && s->cpu == cpu && s->ev == ev && s->misc == misc &&
		    s->n < UINT32_MAX) {
			s->n++;
			s->period += period;
			return true;
		}
	}
	return false;
}

static inline bool pdbatch_empty(const struct pdbatch *b)
{
	return b->nused == 0;
}

/* Each filled slot to sink, in the order they were filled, then empty. The
 * sink must not add. */
void pdbatch_take(struct pdbatch *b, void (*sink)(void *arg, const struct pdbatch_slot *s), void *arg);

#endif
