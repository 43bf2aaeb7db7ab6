/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols_chain: the resolver's cache of whole callchains (-g), by their
 * addresses as resolved (return addresses already less one, the leaf fix
 * applied) and their modes: a repeated stack costs one lookup instead of
 * one resolve per frame. Internal to symbols. */
#ifndef PERFTOP_SYMBOLS_CHAIN_H
#define PERFTOP_SYMBOLS_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols.h"

#define SYMBOLS_CHAIN_MAX 128 /* longer stacks are resolved frame by frame */

struct symbols_chain_entry;

struct symbols_chains {
	struct symbols_chain_entry *slots; /* 1 << bits, NULL until the first stack */
	unsigned bits;
	size_t bytes;                      /* of the slots' frames */
	uint64_t hits, misses;
};

/* A stack as looked up: what it holds under besides its frames (tag: the
 * kernel tables' generation << 32 | the pid slot's; ver: the resolver's,
 * see symbols_tag; now1: the interval + 1), its kmask cut to n frames and
 * its hash. */
struct symbols_chain_key {
	uint64_t hash, tag;
	uint32_t ver, now1;
	pid_t pid;
	size_t n;                /* 1..SYMBOLS_CHAIN_MAX */
	const uint64_t *addrs;
	uint64_t kmask[SYMBOLS_CHAIN_MAX / 64];
};

void symbols_chain_init(struct symbols_chains *c);
void symbols_chain_free(struct symbols_chains *c);
/* As symbols_set_chain_rate. */
void symbols_chain_set_rate(struct symbols_chains *c, uint64_t per_sec);
void symbols_chain_key(struct symbols_chain_key *k, pid_t pid, const uint64_t *addrs, const uint64_t *kmask,
		       size_t n, uint64_t tag, uint32_t ver, uint32_t now1);
/* The frames kept for k's stack (the task's names unset), or NULL and *slot
 * where symbols_chain_keep may keep them (NULL: out of memory, nothing
 * kept). */
struct sym_result *symbols_chain_find(struct symbols_chains *c, const struct symbols_chain_key *k,
				      struct symbols_chain_entry **slot);
/* Keeps frames just resolved for k in slot: while k's tag and ver hold, or
 * (lasting false) in its interval only. Nothing when the slot cannot grow. */
void symbols_chain_keep(struct symbols_chains *c, struct symbols_chain_entry *slot, const struct symbols_chain_key *k,
			bool lasting, const struct sym_result *frames);
/* Bytes held, for statistics. */
size_t symbols_chain_bytes(const struct symbols_chains *c);

#endif
