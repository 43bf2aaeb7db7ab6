/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tally: flat samples (no stack) alike in all but time and period, counted
 * as one on their way from the rings. Only the records between samples
 * (MMAP, COMM, FORK, EXIT, LOST, ...) change what a sample resolves to and
 * where it counts; among themselves samples may be applied in any order.
 * So the engine's drain passes hold them here until the next such record
 * or the pass's end, and hand each kind on once, with its count.
 *
 * Why: at 100 kHz on a VM every sampling interrupt (~10 µs, most of each
 * CPU) is charged to the task it interrupts and evicts its cache lines.
 * Each sample went through a record decoded whole, a heap merge, a handler
 * and agg's memo, its event and CPU counts: about ten lines, fetched anew
 * after each interrupt. Here it is one slot. */
#ifndef PERFTOP_TALLY_H
#define PERFTOP_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tally_slot {
	uint64_t ip, id;
	uint64_t period;  /* the samples' periods, added */
	uint32_t pid, tid;
	uint32_t n;       /* samples; 0: empty */
	uint16_t cpu;
	uint16_t misc;    /* the cpumode bits */
};

#define TALLY_BITS 9
#define TALLY_PROBE 8  /* slots tried from the hashed one */

/* Not htab: fixed size, a probe of at most TALLY_PROBE, and the counts in
 * the slot itself, one line per sample on the drain's path. */

struct tally {
	size_t nused;
	uint16_t used[1u << TALLY_BITS];  /* the slots filled, in order */
	struct tally_slot slot[1u << TALLY_BITS];
};

struct tally *tally_new(void);
void tally_free(struct tally *t);

/* Whether a sample on this CPU has a slot's room (a kernel's CPU numbers
 * do); one that does not goes its own way. */
static inline bool tally_fits(uint32_t cpu)
{
	return cpu <= UINT16_MAX;
}

/* One sample (tally_fits); false when it has no room (tally_take it all
 * first): never with the tally empty. */
static inline bool tally_add(struct tally *t, uint64_t id, uint32_t cpu, uint32_t pid, uint32_t tid, uint64_t ip,
			     uint16_t misc, uint64_t period)
{
	const size_t mask = (1u << TALLY_BITS) - 1;
	uint64_t h = (ip ^ (uint64_t)tid << 32 ^ id << 7 ^ misc) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> (64 - TALLY_BITS));

	for (unsigned p = 0; p < TALLY_PROBE; p++, i = (i + 1) & mask) {
		struct tally_slot *s = &t->slot[i];

		if (s->n == 0) {
			t->used[t->nused++] = (uint16_t)i;
			*s = (struct tally_slot){ .ip = ip, .id = id, .period = period, .pid = pid, .tid = tid, .n = 1,
						  .cpu = (uint16_t)cpu, .misc = misc };
			return true;
		}
		if (s->ip == ip && s->tid == tid && s->pid == pid && s->id == id && s->cpu == cpu && s->misc == misc &&
		    s->n < UINT32_MAX) {
			s->n++;
			s->period += period;
			return true;
		}
	}
	return false;
}

static inline bool tally_empty(const struct tally *t)
{
	return t->nused == 0;
}

/* Each filled slot to sink, in the order they were filled, then empty. The
 * sink must not add. */
void tally_take(struct tally *t, void (*sink)(void *arg, const struct tally_slot *s), void *arg);

#endif
