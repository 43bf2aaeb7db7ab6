/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_chain: the callchain cache of the resolver (symbols.c). */
#include "symbols_chain.h"

#include <stdlib.h>
#include <string.h>

#define BITS_MIN 10  /* the cache's slots, as 1 << bits (symbols_set_chain_rate) */
#define BITS_MAX 12

/* Not htab: a direct-mapped cache (a slot overwritten, never probed), its
 * entries' stacks inline. */

/* Valid while the pid's maps (its generation), the kernel's tables and
 * the resolver's ver are those it was resolved under. */
struct symbols_chain_entry {
	uint64_t hash;
	uint64_t tag;       /* kgen << 32 | the pid slot's generation */
	uint32_t ver;
	int32_t pid;
	uint16_t n, cap;
	uint32_t until;     /* 0: while tag and ver hold; else only in that interval (epoch + 1) */
	uint64_t kmask[SYMBOLS_CHAIN_MAX / 64];
	uint64_t *addrs;    /* cap of them, then cap frames, in one block */
	struct sym_result *frames;
};

void symbols_chain_init(struct symbols_chains *c)
{
	*c = (struct symbols_chains){ .bits = BITS_MIN };
}

void symbols_chain_free(struct symbols_chains *c)
{
	for (size_t i = 0; c->slots && i < ((size_t)1 << c->bits); i++)
		free(c->slots[i].addrs);
	free(c->slots);
	c->slots = NULL;
	c->bytes = 0;
}

void symbols_chain_set_rate(struct symbols_chains *c, uint64_t per_sec)
{
	unsigned bits = BITS_MIN;

	/* Distinct stacks an interval grow with the samples: beside perf top
	 * -g at 20 kHz on 2 CPUs, 1 024 slots had 35 000 chains in 10 s
	 * resolved frame by frame again, 4 096 20 000. */
	while (bits < BITS_MAX && per_sec > ((uint64_t)SYMBOLS_CHAIN_RATE << (bits - BITS_MIN)))
		bits++;
	if (bits == c->bits)
		return;
	symbols_chain_free(c); /* a cache: refilled at the new size */
	c->bits = bits;
}

static inline uint64_t chain_hash(pid_t pid, const uint64_t *addrs, const uint64_t *kmask, size_t n)
{
	uint64_t h = (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ addrs[i]) * 0xff51afd7ed558ccdull;
	for (size_t i = 0; i < (n + 63) / 64; i++)
		h = (h ^ kmask[i]) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

void symbols_chain_key(struct symbols_chain_key *k, pid_t pid, const uint64_t *addrs, const uint64_t *kmask,
		       size_t n, uint64_t tag, uint32_t ver, uint32_t now1)
{
	*k = (struct symbols_chain_key){ .tag = tag, .ver = ver, .now1 = now1, .pid = pid, .n = n, .addrs = addrs };
	memcpy(k->kmask, kmask, (n + 63) / 64 * sizeof(*k->kmask));
	if (n % 64)
		k->kmask[n / 64] &= (1ull << (n % 64)) - 1;
	k->hash = chain_hash(pid, addrs, k->kmask, n);
}

struct sym_result *symbols_chain_find(struct symbols_chains *c, const struct symbols_chain_key *k,
				      struct symbols_chain_entry **slot)
{
	struct symbols_chain_entry *e;

	*slot = NULL;
	if (c->slots == NULL && (c->slots = calloc((size_t)1 << c->bits, sizeof(*c->slots))) == NULL)
		return NULL;
	e = &c->slots[k->hash >> (64 - c->bits)];
	if (e->hash == k->hash && e->n == k->n && e->pid == k->pid && e->tag == k->tag && e->ver == k->ver &&
	    (e->until == 0 || e->until == k->now1) && memcmp(e->kmask, k->kmask, sizeof(k->kmask)) == 0 &&
	    memcmp(e->addrs, k->addrs, k->n * sizeof(*k->addrs)) == 0) {
		c->hits++;
		return e->frames;
	}
	c->misses++;
	*slot = e;
	return NULL;
}

void symbols_chain_keep(struct symbols_chains *c, struct symbols_chain_entry *e, const struct symbols_chain_key *k,
			bool lasting, const struct sym_result *frames)
{
	size_t n = k->n;

	if (e == NULL)
		return;
	if (e->cap < n) {
		size_t cap = n < 16 ? 16 : n, per = sizeof(*e->addrs) + sizeof(*e->frames);
		uint64_t *blk = c->bytes + (cap - e->cap) * per <= SYMBOLS_CHAIN_BYTES ? malloc(cap * per) : NULL;

		/* Over the bound (deep stacks in every slot), or out of memory:
		 * not kept. */
		if (blk == NULL) {
			e->hash = 0;
			e->n = 0;
			return;
		}
		c->bytes += (cap - e->cap) * per;
		free(e->addrs);
		e->addrs = blk;
		e->frames = (struct sym_result *)(void *)(blk + cap);
		e->cap = (uint16_t)cap;
	}
	e->hash = k->hash;
	e->tag = k->tag;
	e->ver = k->ver;
	e->until = lasting ? 0 : k->now1;
	e->pid = k->pid;
	e->n = (uint16_t)n;
	memcpy(e->kmask, k->kmask, sizeof(e->kmask));
	memcpy(e->addrs, k->addrs, n * sizeof(*k->addrs));
	memcpy(e->frames, frames, n * sizeof(*frames));
	/* The task's names are taken afresh at each hit, on frames[0]. */
	for (size_t i = 0; i < n; i++)
		e->frames[i].comm = e->frames[i].thread_comm = NULL;
}

size_t symbols_chain_bytes(const struct symbols_chains *c)
{
	return c->bytes + (c->slots ? ((size_t)1 << c->bits) * sizeof(*c->slots) : 0);
}
