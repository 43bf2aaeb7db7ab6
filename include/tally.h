/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tally: flat samples (no stack) alike in all but time and period, counted
 * as one. Only the records between samples (MMAP, COMM, FORK, EXIT, LOST,
 * ...) change what a sample resolves to and where it counts; among
 * themselves samples may be applied in any order. So the engine's drain
 * passes (samples from the rings) and the replay (-i) hold them here until
 * the next such record, and hand each kind on once, with its count.
 *
 * Why: at 100 kHz on a VM every sampling interrupt (~10 µs, most of each
 * CPU) is charged to the task it interrupts and evicts its cache lines.
 * Each sample went through a record decoded whole, a heap merge, a handler
 * and agg's memo: about ten lines, fetched anew after each interrupt. Here
 * it is one slot. A replay's sample costs one probe instead of the
 * session, the symbols' tag and agg's memo (two thirds of -b's work).
 *
 * The size is the caller's: the engine keeps a small one (the rings' lines
 * to spare), a replay's window (a recorded interval) wants a larger one. */
#ifndef PERFTOP_TALLY_H
#define PERFTOP_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tally_slot {
	uint64_t ip;
	uint64_t key;     /* the caller's kind: the engine's sample id, the replay's event index */
	uint64_t period;  /* the samples' periods, added */
	uint32_t pid, tid;
	uint32_t cpu;     /* as given (a replay's UINT32_MAX: not recorded) */
	uint32_t n;       /* samples; 0: empty */
	uint16_t misc;    /* the cpumode bits */
};

#define TALLY_BITS_MAX 16 /* the used list's entries are 16-bit */

/* Not htab: fixed size, a probe of at most `probe` slots, and the counts in
 * the slot itself, one line per sample on the hot path. */
struct tally {
	size_t nused;
	size_t mask;       /* slots - 1 */
	unsigned shift;    /* 64 - bits: the hash's top bits pick the slot */
	unsigned probe;    /* slots tried from the hashed one */
	uint16_t *used;    /* the slots filled, in order */
	struct tally_slot slot[];
};

/* 2^bits slots (1 <= bits <= TALLY_BITS_MAX), probe of 1 .. 2^bits; NULL
 * with errno EINVAL (out of range) or ENOMEM. */
struct tally *tally_new(unsigned bits, unsigned probe);
void tally_free(struct tally *t);

/* One sample; false when it has no room (tally_take it all first): never
 * with the tally empty. */
static inline bool tally_add(struct tally *t, uint64_t key, uint32_t cpu, uint32_t pid, uint32_t tid, uint64_t ip,
			     uint16_t misc, uint64_t period)
{
	uint64_t h = (ip ^ (uint64_t)tid << 32 ^ (uint64_t)cpu << 20 ^ key << 7 ^ misc) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> t->shift);
	unsigned p = t->probe; /* at least 1 (tally_new): no test before the first slot */

	do {
		struct tally_slot *s = &t->slot[i];

		if (s->n == 0) {
			t->used[t->nused++] = (uint16_t)i;
			*s = (struct tally_slot){ .ip = ip, .key = key, .period = period, .pid = pid, .tid = tid,
						  .cpu = cpu, .n = 1, .misc = misc };
			return true;
		}
		if (s->ip == ip && s->tid == tid && s->pid == pid && s->key == key && s->cpu == cpu && s->misc == misc &&
		    s->n < UINT32_MAX) {
			s->n++;
			s->period += period;
			return true;
		}
		i = (i + 1) & t->mask;
	} while (--p);
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
